import { describe, expect, it } from 'vitest';
import { createApiClient, redactExchange, type Exchange } from '../../harness/http/client.ts';
import { REDACTED, createRedactor, redactHeaders } from '../../harness/http/redact.ts';

const apiToken = 'oc_live_9f8e7d6c5b4a3210';
const clientSecret = 'cs_0123456789abcdef';
const hookSecret = 'whsec_Zm9vYmFyYmF6cXV4';
const accessToken = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';

/** An exchange carrying every kind of secret in every place a secret can hide. */
const leaky: Exchange = {
  seq: 1,
  method: 'POST',
  url: `https://auth.example.com/oauth/token?client_secret=${clientSecret}`,
  requestHeaders: { authorization: `Bearer ${apiToken}`, 'proxy-authorization': `Basic ${Buffer.from(`cid:${clientSecret}`).toString('base64')}`, 'x-trace': apiToken },
  requestBody: `grant_type=client_credentials&client_id=cid&client_secret=${clientSecret}`,
  status: 200,
  responseHeaders: { 'content-type': 'application/json', 'set-cookie': `session=${apiToken}`, 'x-service-signature': 't=1,v1=abcdef0123' },
  rawBody: JSON.stringify({ id: 'h1', secret: hookSecret, access_token: accessToken, note: `echo ${apiToken}` }),
  json: { id: 'h1', secret: hookSecret },
  jsonError: undefined,
  transportError: `failed for Bearer ${apiToken}`,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1,
};

describe('redaction', () => {
  it('scrubs bearer tokens, client secrets, whsec_ secrets and access tokens from every part of an exchange', () => {
    const redacted = redactExchange(leaky, createRedactor([apiToken, clientSecret]));
    const text = JSON.stringify(redacted);
    for (const secret of [apiToken, clientSecret, hookSecret, accessToken, Buffer.from(`cid:${clientSecret}`).toString('base64')]) {
      expect(text).not.toContain(secret);
    }
    expect(redacted.requestHeaders.authorization).toBe(`Bearer ${REDACTED}`);
    expect(redacted.requestHeaders['x-trace']).toBe(REDACTED);
    expect(redacted.responseHeaders['x-service-signature']).toBe(`t=1,v1=${REDACTED}`);
    expect((redacted.json as { secret: string }).secret).toBe(REDACTED);
    expect((redacted.json as { id: string }).id).toBe('h1');
  });

  it('catches secrets it was never told about by their shape', () => {
    const redact = createRedactor();
    expect(redact(`Authorization: Bearer ${apiToken}`)).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redact(`secret is ${hookSecret}.`)).toBe(`secret is whsec_${REDACTED}`);
    expect(redact(`{"client_secret":"${clientSecret}"}`)).toBe(`{"client_secret":"${REDACTED}"}`);
    expect(redact(`client_secret=${clientSecret}&x=1`)).toBe(`client_secret=${REDACTED}&x=1`);
  });

  it('scrubs a secret learnt during the run wherever it appears', () => {
    const redact = createRedactor();
    const learnt = 'plain-opaque-token-value';
    expect(redact(`x ${learnt} y`)).toContain(learnt);
    redact.remember(learnt);
    expect(redact(`x ${learnt} y`)).toBe(`x ${REDACTED} y`);
  });

  it('keeps the Authorization scheme word so a malformed-scheme check stays readable', () => {
    const headers = redactHeaders({ authorization: `Token ${apiToken}`, Authorization: 'Bearer' }, createRedactor());
    expect(headers.authorization).toBe(`Token ${REDACTED}`);
    expect(headers.Authorization).toBe(REDACTED);
  });

  it('the client log holds only redacted copies while the caller gets the raw exchange', async () => {
    const client = createApiClient({ baseUrl: 'http://127.0.0.1:9/v1', timeoutMs: 500, requestsPerMinute: undefined, secrets: [apiToken] });
    try {
      const exchange = await client.send({ method: 'GET', path: '/me', token: apiToken });
      expect(exchange.requestHeaders.authorization).toBe(`Bearer ${apiToken}`);
      expect(exchange.transportError).toMatch(/connection refused/);
      expect(JSON.stringify(client.log)).not.toContain(apiToken);
    } finally {
      await client.close();
    }
  });
});
