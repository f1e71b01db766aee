import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createApiClient, exchangeCaps, recordExchange, type Exchange } from '../../../harness/http/client.ts';
import { REDACTED, createRedactor } from '../../../harness/http/redact.ts';

const apiToken = 'oc_live_9f8e7d6c5b4a3210';
const clientSecret = 'cs_0123456789abcdef';
const hookSecret = 'whsec_Zm9vYmFyYmF6cXV4';
const accessToken = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
const basicCredentials = Buffer.from(`cid:${clientSecret}`).toString('base64');

/** An exchange carrying every kind of secret in every place a secret can hide. */
const leaky: Exchange = {
  seq: 1,
  method: 'POST',
  url: `https://auth.example.com/oauth/token?client_secret=${clientSecret}&scope=read`,
  requestHeaders: {
    authorization: `Bearer ${apiToken}`,
    'proxy-authorization': `Basic ${basicCredentials}`,
    'x-trace': apiToken,
    'content-type': 'application/x-www-form-urlencoded',
  },
  requestBody: `grant_type=client_credentials&client_id=cid&client_secret=${encodeURIComponent(clientSecret)}`,
  status: 200,
  responseHeaders: {
    'content-type': 'application/json',
    'set-cookie': `session=${apiToken}`,
    'www-authenticate': 'Basic realm="oauth"',
  },
  rawBody: JSON.stringify({
    id: 'h1',
    secret: hookSecret,
    access_token: accessToken,
    note: `echo ${apiToken}`,
    error_description: 'use HTTP Basic, not a Bearer token',
  }),
  json: { id: 'h1', secret: hookSecret },
  jsonError: undefined,
  transportError: `failed for ${apiToken}`,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1,
};

describe('structured redaction', () => {
  it('scrubs credential headers by name, body credentials by structure and known secrets wherever they occur', () => {
    const record = recordExchange(leaky, createRedactor([apiToken, clientSecret]));
    const text = JSON.stringify(record);
    for (const secret of [apiToken, clientSecret, hookSecret, accessToken, basicCredentials])
      expect(text).not.toContain(secret);
    expect(record.requestHeaders.authorization).toBe(`Bearer ${REDACTED}`);
    expect(record.requestHeaders['proxy-authorization']).toBe(`Basic ${REDACTED}`);
    expect(record.requestHeaders['x-trace']).toBe(REDACTED);
    expect(record.responseHeaders['set-cookie']).toBe(REDACTED);
    expect(record.requestBody).toBe(`grant_type=client_credentials&client_id=cid&client_secret=${REDACTED}`);
    expect(record.url).toBe(`https://auth.example.com/oauth/token?client_secret=${REDACTED}&scope=read`);
    expect(JSON.parse(record.rawBody)).toEqual({
      id: 'h1',
      secret: REDACTED,
      access_token: REDACTED,
      note: `echo ${REDACTED}`,
      error_description: 'use HTTP Basic, not a Bearer token',
    });
    expect(record.transportError).toBe(`failed for ${REDACTED}`);
  });

  it("never rewrites prose: scheme words, realms, check names and a target's error_description stay as written", () => {
    const redact = createRedactor([apiToken]);
    for (const prose of [
      'GET /me answers 401 unauthorized to a Basic scheme carrying a valid token, and to a bare "Bearer"',
      'GET /me answers 401 unauthorized to a bearer token it never issued',
      'the token endpoint accepts HTTP Basic client authentication',
      'Basic realm="oauth"',
      '{"secret": "is in the name of the field only in prose", "client_secret=x" }',
      'POST /hooks answers 201 with a whsec_ secret',
    ])
      expect(redact(prose)).toBe(prose);
    expect(redact.headers({ 'www-authenticate': 'Basic realm="oauth", Bearer realm="api"' })).toEqual({
      'www-authenticate': 'Basic realm="oauth", Bearer realm="api"',
    });
    expect(
      redact.body(
        '{"error":"invalid_client","error_description":"Client authentication failed (HTTP Basic)"}',
        'application/json',
      ),
    ).toBe('{"error":"invalid_client","error_description":"Client authentication failed (HTTP Basic)"}');
  });

  it('a whsec_ value is a secret wherever it occurs; a known secret in prose is replaced, the prose kept', () => {
    const redact = createRedactor([apiToken]);
    expect(redact(`signed with ${hookSecret}.`)).toBe(`signed with whsec_${REDACTED}`);
    expect(redact(`the target echoed ${apiToken} in its error`)).toBe(`the target echoed ${REDACTED} in its error`);
    expect(redact.body('not json: {"secret": "plain"')).toBe('not json: {"secret": "plain"');
  });

  it('learns the credentials of responses (hook secrets, access tokens) and the tokens sent, never short words', () => {
    const redact = createRedactor();
    const opaque = 'opaque-access-token-value';
    expect(redact(`x ${opaque} y`)).toBe(`x ${opaque} y`);
    redact.learnFrom({ access_token: opaque, token_type: 'Bearer', nested: { secret: 'short' } });
    expect(redact(`x ${opaque} y`)).toBe(`x ${REDACTED} y`);
    expect(redact('a short answer')).toBe('a short answer');
    expect(redact('Bearer')).toBe('Bearer');
  });

  it('keeps the Authorization scheme word so a malformed-scheme check stays readable', () => {
    const headers = createRedactor().headers({ authorization: `Token ${apiToken}`, Authorization: 'Bearer' });
    expect(headers.authorization).toBe(`Token ${REDACTED}`);
    expect(headers.Authorization).toBe(REDACTED);
  });

  it('caps bodies and headers after redacting, and says so in the record', () => {
    const big = 'é'.repeat(50_000); // 100 000 bytes
    const manyHeaders = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`x-h${i}`, i === 0 ? 'v'.repeat(5_000) : 'v']),
    );
    const record = recordExchange(
      { ...leaky, rawBody: `${big}${apiToken}`, responseHeaders: manyHeaders, requestBody: undefined },
      createRedactor([apiToken]),
    );
    expect(Buffer.byteLength(record.rawBody)).toBeLessThanOrEqual(exchangeCaps.bodyBytes);
    expect(record.rawBody).toBe('é'.repeat(exchangeCaps.bodyBytes / 2));
    expect(Object.keys(record.responseHeaders)).toHaveLength(exchangeCaps.headers);
    expect(record.responseHeaders['x-h0']).toHaveLength(exchangeCaps.headerChars);
    expect(record.truncated).toBe(
      `${exchangeCaps.headers} of 100 response headers kept; ` +
        `1 response header cut at ${exchangeCaps.headerChars} characters; ` +
        `response body cut at ${exchangeCaps.bodyBytes} of ${100_000 + Buffer.byteLength(REDACTED)} bytes`,
    );
  });

  it('the client log holds only redacted records while the caller gets the raw exchange', async () => {
    const server = createServer((req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'h1', secret: hookSecret, youSent: req.headers.authorization }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = createApiClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      timeoutMs: 2_000,
      requestsPerMinute: undefined,
    });
    try {
      const exchange = await client.send({
        method: 'POST',
        path: '/hooks',
        token: apiToken,
        json: { url: 'https://x.example' },
      });
      expect(exchange.requestHeaders.authorization).toBe(`Bearer ${apiToken}`);
      expect((exchange.json as { secret: string }).secret).toBe(hookSecret);
      const log = JSON.stringify(client.recordsSince(0).records);
      expect(log).not.toContain(apiToken);
      expect(log).not.toContain(hookSecret);
      // Learnt: the secret is scrubbed from any later text too (a failure message quoting it).
      expect(client.redact(`got ${hookSecret} back`)).toBe(`got ${REDACTED} back`);
      expect(client.redact(`got ${apiToken} back`)).toBe(`got ${REDACTED} back`);
    } finally {
      await client.close();
      server.close();
    }
  });
});
