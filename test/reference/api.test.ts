/**
 * The reference server against the spec, over HTTP: every operation's success and error paths,
 * auth, OAuth, CDR windows, hooks, docs, robustness. Every /v1 answer is also validated against
 * openapi.json (status documented, content type, body schema incl. error code per status).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CDR_WINDOW_MAX_MS,
  CREDENTIAL_FIELD_PATTERN,
  DAY_MS,
  eventTypes,
  limits,
  operations,
  scopes,
} from '../../contract/openapi.ts';
import { startReferenceServer } from '../../reference/server.ts';
import type { ReferenceServer } from '../../reference/server.ts';
import { api, control, expectResponse, http, iso, postJson, reset } from './helpers.ts';

let server: ReferenceServer;
let t: ReferenceServer['fixtures']['tokens'];

beforeAll(async () => {
  server = await startReferenceServer({ rateLimit: false, callDurationMs: 300 });
  t = server.fixtures.tokens;
});
afterAll(() => server.close());
beforeEach(() => reset(server));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('auth', () => {
  const requests = operations.map((o) => ({
    method: o.method,
    path: o.path.replace('{id}', '6f1c2b9e-7d4a-4c1e-9f3b-2a5d8e7c6b10'),
    scope: o.scope,
  }));

  it('every operation: 401 unauthorized for no header, another scheme, unknown, revoked, expired tokens', async () => {
    for (const { method, path } of requests) {
      const variants: Array<Record<string, string>> = [
        {},
        { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
        { authorization: `Token ${t.all}` },
        { authorization: 'Bearer oc_live_nope' },
        { authorization: `Bearer ${t.revoked}` },
        { authorization: `Bearer ${t.expired}` },
        { authorization: 'Bearer' },
      ];
      for (const headers of variants) {
        const res = await api(server, method, path, { headers });
        expectResponse(method, path, res, 401, 'unauthorized');
      }
    }
  });

  it('checks the scope of each operation from openapi.json, before validating the body', async () => {
    for (const { method, path, scope } of requests) {
      if (scope === undefined) continue;
      const others = scopes.filter((s) => s !== scope);
      for (const name of ['none', ...others] as const) {
        const res = await api(server, method, path, {
          token: t[name as keyof typeof t],
          body: '{not json',
          contentType: method === 'POST' ? 'application/json' : undefined,
        });
        expectResponse(method, path, res, 401, 'unauthorized');
      }
    }
  });

  it('GET /me takes any valid token, even one without scopes; scope tokens reach only their operation', async () => {
    for (const name of ['all', 'none', ...scopes] as const)
      expectResponse('GET', '/me', await api(server, 'GET', '/me', { token: t[name as keyof typeof t] }), 200);
    expectResponse('GET', '/balance', await api(server, 'GET', '/balance', { token: t['read:balance'] }), 200);
    expectResponse('GET', '/cdrs', await api(server, 'GET', '/cdrs', { token: t['read:cdrs'] }), 200);
    expectResponse('GET', '/agents', await api(server, 'GET', '/agents', { token: t['read:agents'] }), 200);
    expect((await api(server, 'GET', '/me', { headers: { authorization: `bearer ${t.none}` } })).status).toBe(200);
  });

  it('suspended account: 403 suspended on GET /me', async () => {
    expectResponse('GET', '/me', await api(server, 'GET', '/me', { token: t.suspended }), 403, 'suspended');
    await control(server, 'PATCH', '/accounts/main', { suspended: true });
    expectResponse('GET', '/me', await api(server, 'GET', '/me', { token: t.all }), 403, 'suspended');
  });

  it('revocation is immediate and last-used times are recorded per token', async () => {
    const minted = (await control(server, 'POST', '/tokens', { account: 'main', scopes: ['read:balance'] })).json as {
      token: string;
    };
    expect(minted.token.startsWith('oc_live_')).toBe(true);
    expectResponse('GET', '/balance', await api(server, 'GET', '/balance', { token: minted.token }), 200);
    const used = (await control(server, 'GET', `/tokens/last-used?token=${minted.token}`)).json as {
      tokens: Array<{ lastUsedAt: string | null }>;
    };
    expect(used.tokens[0]!.lastUsedAt).toMatch(/^\d{4}-/);
    expect((await control(server, 'DELETE', '/tokens', { token: minted.token })).status).toBe(200);
    expectResponse(
      'GET',
      '/balance',
      await api(server, 'GET', '/balance', { token: minted.token }),
      401,
      'unauthorized',
    );
    const neverUsed = (await control(server, 'GET', `/tokens/last-used?token=${t['write:hooks']}`)).json as {
      tokens: Array<{ lastUsedAt: string | null }>;
    };
    expect(neverUsed.tokens[0]!.lastUsedAt).toBeNull();
  });

  it('every API token carries the oc_live_ prefix', () => {
    for (const token of Object.values(t)) expect(token).toMatch(/^oc_live_[0-9A-Za-z]{32}$/);
  });
});

describe('OAuth client_credentials', () => {
  const form = 'application/x-www-form-urlencoded';
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const token = (body: string, headers: Record<string, string> = {}, contentType = form) =>
    http('POST', `${server.authUrl}/oauth/token`, { body, contentType, headers });

  it('serves RFC 8414 discovery metadata', async () => {
    const res = await http('GET', `${server.authUrl}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      issuer: server.authUrl,
      token_endpoint: `${server.authUrl}/oauth/token`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: [...scopes],
      response_types_supported: [],
    });
  });

  it('issues a bearer token for Basic and body credentials; the API accepts it with the same scope rules', async () => {
    const { clientId, clientSecret } = server.fixtures.oauth;
    const a = await token('grant_type=client_credentials', { authorization: basic(clientId, clientSecret) });
    expect(a.status).toBe(200);
    expect(a.headers['cache-control']).toBe('no-store');
    const body = a.json as { access_token: string; token_type: string; expires_in: number; scope: string };
    // No scope asked: every scope the client is registered for (a reporting client, not every scope).
    expect(server.fixtures.oauth.scopes).toEqual(['read:balance', 'read:cdrs']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read:balance read:cdrs' });
    expectResponse('GET', '/balance', await api(server, 'GET', '/balance', { token: body.access_token }), 200);
    const b = await token(
      `grant_type=client_credentials&client_id=${clientId}&client_secret=${clientSecret}&scope=read%3Acdrs`,
    );
    const narrow = b.json as { access_token: string; scope: string };
    expect(narrow.scope).toBe('read:cdrs');
    expectResponse('GET', '/cdrs', await api(server, 'GET', '/cdrs', { token: narrow.access_token }), 200);
    expectResponse(
      'GET',
      '/balance',
      await api(server, 'GET', '/balance', { token: narrow.access_token }),
      401,
      'unauthorized',
    );
    expectResponse('GET', '/me', await api(server, 'GET', '/me', { token: narrow.access_token }), 200);
  });

  it('answers RFC 6749 §5.2 errors', async () => {
    const { clientId, clientSecret } = server.fixtures.oauth;
    const wrong = await token('grant_type=client_credentials', { authorization: basic(clientId, 'wrong') });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toMatchObject({ error: 'invalid_client' });
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
    expect((await token(`grant_type=client_credentials&client_id=${clientId}&client_secret=nope`)).json).toMatchObject({
      error: 'invalid_client',
    });
    expect((await token('grant_type=client_credentials')).status).toBe(401);
    const grant = await token('grant_type=password', { authorization: basic(clientId, clientSecret) });
    expect([grant.status, (grant.json as { error: string }).error]).toEqual([400, 'unsupported_grant_type']);
    const scope = await token('grant_type=client_credentials&scope=admin', {
      authorization: basic(clientId, clientSecret),
    });
    expect([scope.status, (scope.json as { error: string }).error]).toEqual([400, 'invalid_scope']);
    // A scope of the spec the client is not registered for is refused too (RFC 6749 §3.3: never widened).
    const beyond = await token('grant_type=client_credentials&scope=read%3Abalance+read%3Aagents', {
      authorization: basic(clientId, clientSecret),
    });
    expect([beyond.status, (beyond.json as { error: string }).error]).toEqual([400, 'invalid_scope']);
    const missing = await token('', { authorization: basic(clientId, clientSecret) });
    expect([missing.status, (missing.json as { error: string }).error]).toEqual([400, 'invalid_request']);
    const json = await token(
      '{"grant_type":"client_credentials"}',
      { authorization: basic(clientId, clientSecret) },
      'application/json',
    );
    expect([json.status, (json.json as { error: string }).error]).toEqual([400, 'invalid_request']);
  });

  it('variants: a grant beyond the registration is narrowed, said; scope omitted when it is the request', async () => {
    const other = await startReferenceServer({
      rateLimit: false,
      variants: ['oauth-scope-narrowed'],
    });
    try {
      const { clientId, clientSecret } = other.fixtures.oauth;
      const grant = (scope: string) =>
        http('POST', `${other.authUrl}/oauth/token`, {
          body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
          contentType: form,
          headers: { authorization: basic(clientId, clientSecret) },
        });
      const narrowed = (await grant('read:cdrs read:agents write:hooks')).json as Record<string, string>;
      expect(narrowed.scope).toBe('read:cdrs');
      expectResponse('GET', '/agents', await api(other, 'GET', '/agents', { token: narrowed.access_token! }), 401);
      const exact = (await grant('read:cdrs')).json as Record<string, string>;
      expect(exact).not.toHaveProperty('scope');
      expectResponse('GET', '/cdrs', await api(other, 'GET', '/cdrs', { token: exact.access_token! }), 200);
      expect((await grant('read:agents')).status).toBe(400);
    } finally {
      await other.close();
    }
  });

  it('OAuth tokens expire after tokenLifetimeSeconds on the virtual clock', async () => {
    const { clientId, clientSecret } = server.fixtures.oauth;
    const a = (await token('grant_type=client_credentials', { authorization: basic(clientId, clientSecret) })).json as {
      access_token: string;
    };
    expect((await api(server, 'GET', '/me', { token: a.access_token })).status).toBe(200);
    await control(server, 'POST', '/clock/advance', { ms: 3_600_000 });
    expectResponse('GET', '/me', await api(server, 'GET', '/me', { token: a.access_token }), 401, 'unauthorized');
  });
});

describe('GET /me and GET /balance', () => {
  it('GET /me answers the Me shape', async () => {
    const res = await api(server, 'GET', '/me', { token: t.all });
    expectResponse('GET', '/me', res, 200);
    expect(Object.keys(res.json as object).sort()).toEqual(['companyName', 'customerId', 'primaryContactEmail']);
  });

  it('GET /balance is a live snapshot; 500 internal_error when the upstream fails', async () => {
    const res = await api(server, 'GET', '/balance', { token: t.all });
    expectResponse('GET', '/balance', res, 200);
    expect(res.json).toMatchObject({ accountType: 'prepaid', creditLimit: null, blocked: false, stale: false });
    await control(server, 'PUT', '/switches', { balanceUpstreamFails: true });
    expectResponse('GET', '/balance', await api(server, 'GET', '/balance', { token: t.all }), 500, 'internal_error');
  });
});

describe('GET /cdrs', () => {
  const cdrs = (query: string, token = t.all) => api(server, 'GET', `/cdrs${query}`, { token });
  type List = { count: number; calls: Array<{ startTime: string }> };
  const now = async () => ((await control(server, 'GET', '/clock')).json as { now: number }).now;

  it('defaults: the last 24 hours, at most 100 rows, ascending, count = rows', async () => {
    const before = await now();
    const res = await cdrs('');
    expectResponse('GET', '/cdrs', res, 200);
    const list = res.json as List;
    expect(list.count).toBe(list.calls.length);
    expect(list.count).toBeGreaterThan(0);
    expect(list.count).toBeLessThanOrEqual(limits.cdrLimitDefault);
    const times = list.calls.map((c) => Date.parse(c.startTime));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    for (const ms of times) expect(ms).toBeGreaterThanOrEqual(before - DAY_MS - 5000);
    const wide = (await cdrs(`?from=${iso(before - 10 * DAY_MS)}&till=${iso(before)}`)).json as List;
    expect(wide.count).toBe(100);
  });

  it('limit: honoured 1..1000, clamped outside, non-integers read as absent', async () => {
    const till = await now();
    const window = `from=${iso(till - CDR_WINDOW_MAX_MS)}&till=${iso(till)}`;
    const count = async (limit: string) => ((await cdrs(`?${window}&limit=${limit}`)).json as List).count;
    expect(await count('1')).toBe(1);
    expect(await count('1000')).toBe(1000);
    expect(await count('5000')).toBe(1000);
    expect(await count('0')).toBe(1);
    expect(await count('-3')).toBe(1);
    expect(await count('abc')).toBe(100);
    expect(await count('2.5')).toBe(100);
    const res = await cdrs(`?${window}&limit=1000`);
    expectResponse('GET', '/cdrs', res, 200);
  });

  it('windows: exactly 31 days accepted, longer refused, zero/negative refused; rows in [from, till)', async () => {
    const till = Math.floor((await now()) / 1000) * 1000;
    expectResponse('GET', '/cdrs', await cdrs(`?from=${iso(till - CDR_WINDOW_MAX_MS)}&till=${iso(till)}`), 200);
    expectResponse(
      'GET',
      '/cdrs',
      await cdrs(`?from=${iso(till - CDR_WINDOW_MAX_MS - 1000)}&till=${iso(till)}`),
      400,
      'window_too_wide',
    );
    expectResponse(
      'GET',
      '/cdrs',
      await cdrs(`?from=${iso(till - CDR_WINDOW_MAX_MS - 1)}&till=${iso(till)}`),
      400,
      'window_too_wide',
    );
    expectResponse('GET', '/cdrs', await cdrs(`?from=${iso(till)}&till=${iso(till)}`), 400, 'till_must_be_after_from');
    expectResponse(
      'GET',
      '/cdrs',
      await cdrs(`?from=${iso(till)}&till=${iso(till - 1000)}`),
      400,
      'till_must_be_after_from',
    );
    // A row's own startTime as from includes it; as till excludes it.
    const row = ((await cdrs(`?from=${iso(till - 5 * DAY_MS)}&till=${iso(till)}&limit=1`)).json as List).calls[0]!;
    const at = Date.parse(row.startTime);
    expect(((await cdrs(`?from=${iso(at)}&till=${iso(at + 1)}`)).json as List).calls.map((c) => c.startTime)).toContain(
      row.startTime,
    );
    expect(
      ((await cdrs(`?from=${iso(at - 1)}&till=${iso(at)}`)).json as List).calls.map((c) => c.startTime),
    ).not.toContain(row.startTime);
  });

  it('timestamps: any offset, Z, fractions; unparseable and date-only → invalid_timestamp', async () => {
    const till = await now();
    const a = (
      await cdrs(
        `?from=${encodeURIComponent('2020-01-01T02:00:00+02:00')}` +
          `&till=${encodeURIComponent('2020-01-01T00:30:00.123456Z')}`,
      )
    ).json as List;
    expect(a.count).toBe(0);
    const offset = new Date(till - DAY_MS + 3 * 3_600_000).toISOString().replace('Z', '').slice(0, 19);
    const plus = await cdrs(`?from=${encodeURIComponent(`${offset}+03:00`)}&till=${iso(till)}`);
    expectResponse('GET', '/cdrs', plus, 200);
    const unencodedPlus = await cdrs(`?from=${offset}+03:00&till=${iso(till)}`);
    expect(unencodedPlus.status).toBe(200);
    for (const bad of [
      'yesterday',
      '2026-01-31',
      '2026-02-30T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:00',
      '',
      '1700000000',
    ]) {
      expectResponse('GET', '/cdrs', await cdrs(`?from=${encodeURIComponent(bad)}`), 400, 'invalid_timestamp');
      expectResponse('GET', '/cdrs', await cdrs(`?till=${encodeURIComponent(bad)}`), 400, 'invalid_timestamp');
    }
  });

  it('409 account_not_provisioned without a trunk', async () => {
    expectResponse('GET', '/cdrs', await cdrs('', t.noTrunk), 409, 'account_not_provisioned');
    await control(server, 'PATCH', '/accounts/noTrunk', { trunk: true });
    expectResponse('GET', '/cdrs', await cdrs('', t.noTrunk), 200);
  });
});

describe('GET /agents', () => {
  it("lists the account's agents without any credential field", async () => {
    const res = await api(server, 'GET', '/agents', { token: t.all });
    expectResponse('GET', '/agents', res, 200);
    const list = res.json as { count: number; agents: Array<Record<string, unknown>> };
    expect(list.count).toBe(list.agents.length);
    const ids = list.agents.map((a) => a.id);
    expect(ids).toContain(server.fixtures.agents.provisioned);
    expect(ids).toContain(server.fixtures.agents.unprovisioned);
    expect(ids).not.toContain(server.fixtures.agents.foreign);
    for (const agent of list.agents)
      for (const key of Object.keys(agent)) expect(CREDENTIAL_FIELD_PATTERN.test(key)).toBe(false);
    expect(res.rawBody).not.toMatch(/password/i);
  });
});

describe('POST /calls', () => {
  const call = (body: unknown, token = t.all) => postJson(server, '/calls', token, body);
  const valid = () => ({ aiAgentId: server.fixtures.agents.provisioned, toNumber: '+14155550100' });

  it('queues a call: a UUID callId, status queued; metadata accepted, fromNumber validated', async () => {
    const res = await call({ ...valid(), fromNumber: '+442071234567', metadata: { campaign: 'x', n: 1 } });
    expectResponse('POST', '/calls', res, 200);
    const body = res.json as { callId: string; status: string };
    expect(body.callId).toMatch(UUID);
    expect(body.status).toBe('queued');
  });

  it('400 invalid_input for every malformed body', async () => {
    const v = valid();
    const bodies: Array<[string, string | undefined]> = [
      ['{bad json', 'application/json'],
      ['', 'application/json'],
      ['[1,2]', 'application/json'],
      ['"text"', 'application/json'],
      ['null', 'application/json'],
      [JSON.stringify(v), 'text/plain'],
      [JSON.stringify(v), undefined],
      [`aiAgentId=${v.aiAgentId}`, 'application/x-www-form-urlencoded'],
      ...[
        {},
        { toNumber: v.toNumber },
        { aiAgentId: v.aiAgentId },
        { ...v, aiAgentId: 1035 },
        { ...v, aiAgentId: 'abc' },
        { ...v, aiAgentId: '' },
        { ...v, toNumber: '14155550100' },
        { ...v, toNumber: '+0123' },
        { ...v, toNumber: 14155550100 },
        { ...v, toNumber: '+1234567890123456' },
        { ...v, fromNumber: 'anonymous' },
        { ...v, fromNumber: null },
        { ...v, metadata: 'x' },
        { ...v, metadata: [1] },
        { ...v, metadata: null },
      ].map((b) => [JSON.stringify(b), 'application/json'] as [string, string]),
    ];
    for (const [body, contentType] of bodies) {
      const res = await api(server, 'POST', '/calls', { token: t.all, body, contentType });
      expectResponse('POST', '/calls', res, 400, 'invalid_input');
    }
  });

  it('404 / 409 / 502 / 503 in the documented precedence', async () => {
    const { unprovisioned, foreign } = server.fixtures.agents;
    expectResponse('POST', '/calls', await call({ ...valid(), aiAgentId: '999999999' }), 404, 'ai_agent_not_found');
    expectResponse('POST', '/calls', await call({ ...valid(), aiAgentId: foreign }), 404, 'ai_agent_not_found');
    expectResponse(
      'POST',
      '/calls',
      await call({ ...valid(), aiAgentId: unprovisioned }),
      409,
      'ai_agent_not_provisioned',
    );
    expectResponse('POST', '/calls', await call(valid(), t.noTrunk), 409, 'account_not_provisioned');
    expectResponse('POST', '/calls', await call(valid(), t.noDialer), 409, 'dialer_required');
    await control(server, 'PUT', '/switches', { originateFails: true });
    const failed = await call(valid());
    expectResponse('POST', '/calls', failed, 502, 'originate_failed');
    expect(typeof (failed.json as { detail?: unknown }).detail).toBe('string');
    await control(server, 'PUT', '/switches', { engineNotConfigured: true });
    expectResponse('POST', '/calls', await call(valid()), 503, 'engine_not_configured');
    // Validation before state: a bad body on an unprovisioned account is still 400.
    expectResponse('POST', '/calls', await call({ toNumber: 'x' }, t.noTrunk), 400, 'invalid_input');
  });

  it('the call runs on the virtual clock and leaves a CDR', async () => {
    const { callId } = (await call(valid())).json as { callId: string };
    await control(server, 'POST', '/clock/advance', { ms: 1000 });
    const rec = (await control(server, 'GET', `/calls/${callId}`)).json as {
      status: string;
      timeline: Array<{ status: string }>;
      cdrId: string;
    };
    expect(rec.timeline.map((s) => s.status)).toEqual(['queued', 'ringing', 'answered', 'ended']);
    const list = (await api(server, 'GET', '/cdrs?limit=1000', { token: t.all })).json as {
      calls: Array<{ id: string; dst: string }>;
    };
    expect(list.calls.find((c) => c.id === rec.cdrId)?.dst).toBe('+14155550100');
  });
});

describe('POST /hooks and DELETE /hooks/{id}', () => {
  const create = (body: unknown, token = t.all) => postJson(server, '/hooks', token, body);
  const target = 'https://hooks.example.com/in';

  it('creates one subscription per event and target, several allowed; the secret only once', async () => {
    const ids = new Set<string>();
    for (const event of [...eventTypes, eventTypes[0]!]) {
      const res = await create({ event, target_url: target });
      expectResponse('POST', '/hooks', res, 200);
      const body = res.json as { id: string; secret: string };
      expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(body.secret).toMatch(/^whsec_/);
      ids.add(body.id);
      const view = await control(server, 'GET', `/hooks/${body.id}`);
      expect(view.rawBody).not.toContain(body.secret);
    }
    expect(ids.size).toBe(eventTypes.length + 1);
    const long = `https://h.example.com/${'a'.repeat(limits.targetUrlMaxLength - 'https://h.example.com/'.length)}`;
    expect(long.length).toBe(512);
    expectResponse('POST', '/hooks', await create({ event: 'call.ended', target_url: long }), 200);
  });

  it('400 invalid_input for bad bodies, events and targets', async () => {
    const bodies: Array<[string, string | undefined]> = [
      ['{x', 'application/json'],
      ['[]', 'application/json'],
      [JSON.stringify({ event: 'call.ended', target_url: target }), 'text/plain'],
      ...[
        {},
        { event: 'call.ended' },
        { target_url: target },
        { event: 'call.started', target_url: target },
        { event: 'CALL.ENDED', target_url: target },
        { event: 'call.ended', target_url: 'http://hooks.example.com/in' },
        { event: 'call.ended', target_url: 'ftp://x.example.com' },
        { event: 'call.ended', target_url: 'https://' },
        { event: 'call.ended', target_url: 'not a url' },
        { event: 'call.ended', target_url: 42 },
        { event: 'call.ended', target_url: `https://h.example.com/${'a'.repeat(491)}` },
      ].map((b) => [JSON.stringify(b), 'application/json'] as [string, string]),
    ];
    for (const [body, contentType] of bodies)
      expectResponse(
        'POST',
        '/hooks',
        await api(server, 'POST', '/hooks', { token: t.all, body, contentType }),
        400,
        'invalid_input',
      );
  });

  it('soft delete: 204 empty, then 404; unknown, foreign and non-UUID ids; history kept', async () => {
    const { id } = (await create({ event: 'call.ended', target_url: target })).json as { id: string };
    const first = await api(server, 'DELETE', `/hooks/${id}`, { token: t['write:hooks'] });
    expectResponse('DELETE', `/hooks/${id}`, first, 204);
    expect(first.rawBody).toBe('');
    const view = (await control(server, 'GET', `/hooks/${id}`)).json as { status: string; disabledReason: string };
    expect(view).toMatchObject({ status: 'disabled', disabledReason: 'deleted' });
    expectResponse(
      'DELETE',
      `/hooks/${id}`,
      await api(server, 'DELETE', `/hooks/${id}`, { token: t.all }),
      404,
      'not_found',
    );
    expectResponse(
      'DELETE',
      '/hooks/x',
      await api(server, 'DELETE', '/hooks/not-a-uuid', { token: t.all }),
      400,
      'invalid_input',
    );
    expectResponse(
      'DELETE',
      '/hooks/x',
      await api(server, 'DELETE', '/hooks/6f1c2b9e-7d4a-4c1e-9f3b-2a5d8e7c6b10', { token: t.all }),
      404,
      'not_found',
    );
    const mine = (await create({ event: 'dnc.added', target_url: target })).json as { id: string };
    for (const other of [t.noDialer, t.noTrunk, t.suspended]) {
      expectResponse(
        'DELETE',
        '/hooks/x',
        await api(server, 'DELETE', `/hooks/${mine.id}`, { token: other }),
        404,
        'not_found',
      );
    }
    expect(((await control(server, 'GET', `/hooks/${mine.id}`)).json as { status: string }).status).toBe('active');
  });
});

describe('docs, openapi.json, robustness', () => {
  it('serves openapi.json with the live server URL and every operation, without auth', async () => {
    const res = await api(server, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json as {
      openapi: string;
      servers: Array<{ url: string }>;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(doc.servers[0]!.url).toBe(server.baseUrl);
    for (const o of operations) expect(doc.paths[o.path]?.[o.method.toLowerCase()]).toBeDefined();
  });

  it('serves the interactive reference with local assets', async () => {
    const page = await api(server, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const assets = [...page.rawBody.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset.startsWith('/v1/docs/assets/')).toBe(true);
      const r = await http('GET', `${server.authUrl}${asset}`);
      expect(r.status, asset).toBe(200);
      expect(r.rawBody.length).toBeGreaterThan(0);
    }
  });

  it('JSON errors for unknown paths, wrong methods, big bodies; never HTML', async () => {
    for (const path of ['/v1/nope', '/nope', '/v2/me', '/v1/hooks/a/b']) {
      const r = await http('GET', `${server.authUrl}${path}`, { token: t.all });
      expect(r.status).toBe(404);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.json).toMatchObject({ error: 'not_found' });
    }
    const wrong = await api(server, 'POST', '/me', { token: t.all, body: '{}', contentType: 'application/json' });
    expect(wrong.status).toBe(405);
    expect(wrong.json).toMatchObject({ error: 'method_not_allowed' });
    expect(wrong.headers.allow).toContain('GET');
    const big = await api(server, 'POST', '/calls', {
      token: t.all,
      body: JSON.stringify({ pad: 'x'.repeat(70_000) }),
      contentType: 'application/json',
    });
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ error: 'payload_too_large' });
    const badUrl = await http('GET', `${server.baseUrl}/me%zz`, { token: t.all });
    expect(badUrl.headers['content-type']).toMatch(/^application\/json/);
    expect((await api(server, 'GET', '/me', { token: t.all })).status).toBe(200);
  });
});
