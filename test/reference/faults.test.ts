/**
 * The fault catalogue: every fault that the server (not the dispatcher) implements changes the
 * behaviour it names. Each probe answers "is the deviation observable?"; it must say no with the
 * fault off and yes with it on (switched through the control API). The dispatcher's faults are
 * probed in webhooks.test.ts against a real HTTPS receiver.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CDR_WINDOW_MAX_MS, CREDENTIAL_FIELD_PATTERN, DAY_MS } from '../../contract/openapi.ts';
import { faults, FaultSet } from '../../reference/faults.ts';
import type { FaultId } from '../../reference/faults.ts';
import { isRequirementId } from '../../requirements/catalogue.ts';
import { startReferenceServer } from '../../reference/server.ts';
import type { ReferenceServer } from '../../reference/server.ts';
import { DISPATCHER_FAULT_IDS } from '../../reference/faults/delivery.ts';
import { rawExchange } from '../../harness/http/raw.ts';
import { parseRaw } from '../../operators/framing.ts';
import { answersOnSocket, api, contract, control, http, iso, postJson } from './helpers.ts';
import { itChangesWhatItNames } from './post-hoc-sets.ts';
import type { Res } from './helpers.ts';
import { relationFaultProbes } from './relation-fault-probes.ts';

let server: ReferenceServer;
let limited: ReferenceServer;
const RATE = 10;

beforeAll(async () => {
  [server, limited] = await Promise.all([
    startReferenceServer({ rateLimit: false }),
    startReferenceServer({ rateLimit: { perWindow: RATE, windowMs: 60_000 } }),
  ]);
});
afterAll(async () => {
  await Promise.all([server.close(), limited.close()]);
});

type S = ReferenceServer;
const tk = (s: S) => s.fixtures.tokens;
const json = (r: Res) => r.json as Record<string, unknown>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TARGET = 'https://127.0.0.1:1/never';
const now = async (s: S) => json(await control(s, 'GET', '/clock')).now as number;
/** A client_credentials grant by the reference's OAuth client (registered for read:balance read:cdrs). */
const oauthGrant = (s: S, scope: string) =>
  http('POST', `${s.authUrl}/oauth/token`, {
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: s.fixtures.oauth.clientId,
      client_secret: s.fixtures.oauth.clientSecret,
      scope,
    }).toString(),
    contentType: 'application/x-www-form-urlencoded',
  });
const validCall = (s: S) => ({ aiAgentId: s.fixtures.agents.provisioned, toNumber: '+14155550100' });
const hook = async (s: S, event = 'call.ended', token = tk(s).all) =>
  json(await postJson(s, '/hooks', token, { event, target_url: TARGET })) as { id: string; secret: string };
const deliveries = async (s: S, hookId: string) =>
  json(await control(s, 'GET', `/deliveries?hookId=${hookId}`)).deliveries as Array<{
    payload: Record<string, unknown>;
  }>;
const cdrList = async (s: S, query: string) =>
  json(await api(s, 'GET', `/cdrs${query}`, { token: tk(s).all })) as {
    count: number;
    calls: Array<{ startTime: string }>;
  };
const window = async (s: S, spanMs: number, extra = '') => {
  const till = Math.floor((await now(s)) / 1000) * 1000;
  return `?from=${iso(till - spanMs)}&till=${iso(till)}${extra}`;
};

/** An answer's status, field lines (a repeated name kept as an array) and first octets. */
async function wire(method: string, url: string, headers: Record<string, string> = {}, body?: string) {
  const r = await request(url, { method: method as 'GET', headers, body });
  const octets = Buffer.from(await r.body.arrayBuffer());
  return { status: r.statusCode, headers: r.headers, octets };
}
const basic = (s: S, secret: string) =>
  `Basic ${Buffer.from(`${s.fixtures.oauth.clientId}:${secret}`).toString('base64')}`;
const tokenRequest = (s: S, secret: string) =>
  wire(
    'POST',
    `${s.authUrl}/oauth/token`,
    { authorization: basic(s, secret), 'content-type': 'application/x-www-form-urlencoded' },
    'grant_type=client_credentials',
  );
const isoDate = /^\d{4}-\d\d-\d\dT/;

/** The faults of the standards under the spec (../../reference/faults-standards.ts). */
const standardsProbes: Partial<Record<FaultId, (s: S) => Promise<boolean>>> = {
  'std-401-no-challenge': async (s) => (await wire('GET', `${s.baseUrl}/me`)).headers['www-authenticate'] === undefined,
  'std-challenge-quoted-description': async (s) =>
    String((await wire('GET', `${s.baseUrl}/me`)).headers['www-authenticate']).includes('\\"'),
  'std-405-no-allow': async (s) => (await wire('PUT', `${s.baseUrl}/me`)).headers.allow === undefined,
  'std-allow-space-separated': async (s) => (await wire('PUT', `${s.baseUrl}/me`)).headers.allow === 'GET HEAD',
  'std-no-date': async (s) => (await wire('GET', `${s.baseUrl}/me`)).headers.date === undefined,
  'std-date-iso': async (s) => isoDate.test(String((await wire('GET', `${s.baseUrl}/me`)).headers.date)),
  'std-last-modified-ahead': async (s) =>
    (await wire('GET', `${s.baseUrl}/me`, { authorization: `Bearer ${tk(s).all}` })).headers['last-modified'] !==
    undefined,
  'std-content-type-twice': async (s) => Array.isArray((await wire('GET', `${s.baseUrl}/me`)).headers['content-type']),
  'std-length-on-204': async (s) => {
    const h = await hook(s);
    const r = await wire('DELETE', `${s.baseUrl}/hooks/${h.id}`, { authorization: `Bearer ${tk(s).all}` });
    return r.status === 204 && r.headers['content-length'] !== undefined;
  },
  'std-chunked-204': async (s) => {
    const h = await hook(s);
    const r = await wire('DELETE', `${s.baseUrl}/hooks/${h.id}`, { authorization: `Bearer ${tk(s).all}` });
    return r.status === 204 && r.headers['transfer-encoding'] !== undefined;
  },
  'std-head-length-zero': async (s) =>
    (await wire('HEAD', `${s.baseUrl}/me`, { authorization: `Bearer ${tk(s).all}` })).headers['content-length'] === '0',
  'std-json-bom': async (s) => (await wire('GET', `${s.baseUrl}/me`)).octets[0] === 0xef,
  'std-token-expires-in-string': async (s) =>
    typeof JSON.parse((await tokenRequest(s, s.fixtures.oauth.clientSecret)).octets.toString()).expires_in === 'string',
  'std-token-error-code-unregistered': async (s) =>
    JSON.parse((await tokenRequest(s, 'wrong')).octets.toString()).error !== 'invalid_client',
  'std-token-error-description-quotes': async (s) =>
    String(JSON.parse((await tokenRequest(s, 'wrong')).octets.toString()).error_description).includes('"'),
  'std-token-401-no-challenge': async (s) => (await tokenRequest(s, 'wrong')).headers['www-authenticate'] === undefined,
  'std-host-lines-unchecked': async (s) =>
    (await answersOnSocket(s, '/me', { hosts: [new URL(s.baseUrl).host, new URL(s.baseUrl).host] })).finals[0]
      ?.status !== 400,
  'std-continue-to-http10': async (s) => (await answersOnSocket(s, '/me', { version: '1.0' })).interim.length > 0,
  'std-chunked-to-http10': async (s) =>
    (await answersOnSocket(s, '/agents', { version: '1.0' })).finals[0]!.fields.some(
      ([n]) => n === 'transfer-encoding',
    ),
  'std-absolute-form-404': async (s) =>
    (await answersOnSocket(s, '/me', { absoluteForm: true })).finals[0]?.status === 404,
  'std-keep-alive-forced': async (s) => (await answersOnSocket(s, '/me', { askAgainAfterMs: 300 })).finals.length > 1,
};

/** For each server-side fault: does the deviation show? */
const probes: Partial<Record<FaultId, (s: S) => Promise<boolean>>> = {
  ...standardsProbes,
  'me-wrong-status': async (s) => (await api(s, 'GET', '/me', { token: tk(s).all })).status !== 200,
  'me-missing-field': async (s) => !('primaryContactEmail' in json(await api(s, 'GET', '/me', { token: tk(s).all }))),
  'me-scope-required': async (s) => (await api(s, 'GET', '/me', { token: tk(s).none })).status === 401,
  'suspended-not-refused': async (s) => (await api(s, 'GET', '/me', { token: tk(s).suspended })).status === 200,
  'balance-renamed-field': async (s) => !('balance' in json(await api(s, 'GET', '/balance', { token: tk(s).all }))),
  'balance-wrong-type': async (s) =>
    typeof json(await api(s, 'GET', '/balance', { token: tk(s).all })).balance !== 'number',
  'balance-upstream-failure-hidden': async (s) => {
    await control(s, 'PUT', '/switches', { balanceUpstreamFails: true });
    return (await api(s, 'GET', '/balance', { token: tk(s).all })).status === 200;
  },
  'scope-unchecked-balance': async (s) => (await api(s, 'GET', '/balance', { token: tk(s).none })).status === 200,
  'scope-unchecked-cdrs': async (s) => (await api(s, 'GET', '/cdrs', { token: tk(s).none })).status === 200,
  'scope-unchecked-agents': async (s) => (await api(s, 'GET', '/agents', { token: tk(s).none })).status === 200,
  'scope-unchecked-calls': async (s) => (await postJson(s, '/calls', tk(s).none, validCall(s))).status === 200,
  'scope-unchecked-hooks': async (s) =>
    (await postJson(s, '/hooks', tk(s).none, { event: 'call.ended', target_url: TARGET })).status === 200,
  'revoked-token-accepted': async (s) => (await api(s, 'GET', '/me', { token: tk(s).revoked })).status === 200,
  'expired-token-accepted': async (s) => (await api(s, 'GET', '/me', { token: tk(s).expired })).status === 200,
  'auth-any-scheme-accepted': async (s) =>
    (await api(s, 'GET', '/me', { headers: { authorization: `Token ${tk(s).all}` } })).status === 200,
  'oauth-bad-secret-accepted': async (s) =>
    (
      await http('POST', `${s.authUrl}/oauth/token`, {
        body: `grant_type=client_credentials&client_id=${s.fixtures.oauth.clientId}&client_secret=wrong`,
        contentType: 'application/x-www-form-urlencoded',
      })
    ).status === 200,
  'oauth-metadata-token-endpoint-elsewhere': async (s) =>
    json(await http('GET', `${s.authUrl}/.well-known/oauth-authorization-server`)).token_endpoint !==
    `${s.authUrl}/oauth/token`,
  'oauth-metadata-octet-stream': async (s) =>
    !(await http('GET', `${s.authUrl}/.well-known/oauth-authorization-server`)).headers['content-type']?.startsWith(
      'application/json',
    ),
  'oauth-token-answer-no-cache': async (s) =>
    (await oauthGrant(s, 'read:balance')).headers['cache-control'] !== 'no-store',
  // Issued, then half its stated lifetime later on the reference's clock: refused.
  'nm-token-lives-shorter-than-stated': async (s) => {
    const grant = json(await oauthGrant(s, 'read:balance'));
    await control(s, 'POST', '/clock/advance', { ms: ((grant.expires_in as number) * 1000) / 2 });
    return (await api(s, 'GET', '/me', { token: grant.access_token as string })).status === 401;
  },
  'oauth-token-widened': async (s) => (await oauthGrant(s, 'read:balance read:agents')).status === 200,
  'oauth-narrowed-answer-wide-token': async (s) => {
    const grant = json(await oauthGrant(s, 'read:balance read:agents'));
    if (typeof grant.access_token !== 'string') return false;
    return (await api(s, 'GET', '/agents', { token: grant.access_token })).status === 200;
  },
  'cdrs-window-31d-rejected': async (s) =>
    (await api(s, 'GET', `/cdrs${await window(s, CDR_WINDOW_MAX_MS)}`, { token: tk(s).all })).status === 400,
  'cdrs-window-32d-accepted': async (s) =>
    (await api(s, 'GET', `/cdrs${await window(s, CDR_WINDOW_MAX_MS + DAY_MS)}`, { token: tk(s).all })).status === 200,
  'cdrs-limit-unbounded': async (s) =>
    (await cdrList(s, await window(s, CDR_WINDOW_MAX_MS, '&limit=5000'))).calls.length > 1000,
  'cdrs-limit-ignored': async (s) => (await cdrList(s, await window(s, 10 * DAY_MS, '&limit=5'))).calls.length !== 5,
  'cdrs-default-window-48h': async (s) => {
    const t = await now(s);
    return (await cdrList(s, '')).calls.some((c) => Date.parse(c.startTime) < t - DAY_MS - 1000);
  },
  'cdrs-count-mismatch': async (s) => {
    const l = await cdrList(s, '');
    return l.count !== l.calls.length;
  },
  'cdrs-rows-outside-window': async (s) => {
    const q = await window(s, 5 * DAY_MS, '&limit=1000');
    const from = Date.parse(new URLSearchParams(q.slice(1)).get('from')!);
    return (await cdrList(s, q)).calls.some((c) => Date.parse(c.startTime) < from);
  },
  'cdrs-invalid-timestamp-500': async (s) =>
    (await api(s, 'GET', '/cdrs?from=garbage', { token: tk(s).all })).status === 500,
  'cdrs-not-provisioned-200': async (s) => (await api(s, 'GET', '/cdrs', { token: tk(s).noTrunk })).status === 200,
  'agents-credentials-leaked': async (s) =>
    (json(await api(s, 'GET', '/agents', { token: tk(s).all })).agents as object[]).some((a) =>
      Object.keys(a).some((k) => CREDENTIAL_FIELD_PATTERN.test(k)),
    ),
  'agents-count-mismatch': async (s) => {
    const l = json(await api(s, 'GET', '/agents', { token: tk(s).all }));
    return l.count !== (l.agents as unknown[]).length;
  },
  'calls-callid-not-uuid': async (s) =>
    !UUID.test(String(json(await postJson(s, '/calls', tk(s).all, validCall(s))).callId)),
  'calls-e164-not-validated': async (s) =>
    (await postJson(s, '/calls', tk(s).all, { ...validCall(s), toNumber: '5550100' })).status === 200,
  'calls-metadata-rejected': async (s) =>
    (await postJson(s, '/calls', tk(s).all, { ...validCall(s), metadata: { a: 1 } })).status === 400,
  'calls-unprovisioned-wrong-code': async (s) =>
    json(await postJson(s, '/calls', tk(s).all, { ...validCall(s), aiAgentId: s.fixtures.agents.unprovisioned }))
      .error !== 'ai_agent_not_provisioned',
  'calls-dialer-not-checked': async (s) =>
    (await postJson(s, '/calls', tk(s).noDialer, { ...validCall(s), aiAgentId: s.fixtures.agents.provisioned }))
      .status !== 409,
  'calls-foreign-agent-accepted': async (s) =>
    (await postJson(s, '/calls', tk(s).all, { ...validCall(s), aiAgentId: s.fixtures.agents.foreign })).status === 200,
  'calls-correlation-broken': async (s) => {
    const h = await hook(s);
    const { callId } = json(await postJson(s, '/calls', tk(s).all, validCall(s))) as { callId: string };
    await control(s, 'POST', '/clock/advance', { ms: 1000 });
    const d = await deliveries(s, h.id);
    expect(d).toHaveLength(1);
    return d[0]!.payload.callId !== callId;
  },
  'hooks-secret-returned-again': async (s) => {
    const h = await hook(s);
    const first = await api(s, 'DELETE', `/hooks/${h.id}`, { token: tk(s).all });
    const second = await api(s, 'DELETE', `/hooks/${h.id}`, { token: tk(s).all });
    return first.rawBody.includes(h.secret) || second.rawBody.includes(h.secret);
  },
  'hooks-hard-delete': async (s) => {
    const h = await hook(s);
    await api(s, 'DELETE', `/hooks/${h.id}`, { token: tk(s).all });
    return (await control(s, 'GET', `/hooks/${h.id}`)).status === 404;
  },
  'hooks-delete-200': async (s) =>
    (await api(s, 'DELETE', `/hooks/${(await hook(s)).id}`, { token: tk(s).all })).status === 200,
  'hooks-delete-twice-204': async (s) => {
    const h = await hook(s);
    await api(s, 'DELETE', `/hooks/${h.id}`, { token: tk(s).all });
    return (await api(s, 'DELETE', `/hooks/${h.id}`, { token: tk(s).all })).status === 204;
  },
  'hooks-non-uuid-404': async (s) => (await api(s, 'DELETE', '/hooks/123', { token: tk(s).all })).status === 404,
  'hooks-http-target-accepted': async (s) =>
    (await postJson(s, '/hooks', tk(s).all, { event: 'call.ended', target_url: 'http://example.com/x' })).status ===
    200,
  'hooks-long-target-accepted': async (s) =>
    (
      await postJson(s, '/hooks', tk(s).all, {
        event: 'call.ended',
        target_url: `https://example.com/${'a'.repeat(600)}`,
      })
    ).status === 200,
  'hooks-unknown-event-accepted': async (s) =>
    (await postJson(s, '/hooks', tk(s).all, { event: 'call.started', target_url: TARGET })).status === 200,
  'hooks-foreign-deletable': async (s) =>
    (await api(s, 'DELETE', `/hooks/${(await hook(s)).id}`, { token: tk(s).noDialer })).status === 204,
  'hooks-create-emits-event': async (s) => (await deliveries(s, (await hook(s)).id)).length > 0,
  'hooks-wrong-event-delivered': async (s) => {
    const h = await hook(s, 'dnc.added');
    await control(s, 'POST', '/events', { event: 'call.ended' });
    return (await deliveries(s, h.id)).length > 0;
  },
  'event-missing-field': async (s) => {
    const h = await hook(s);
    await control(s, 'POST', '/events', { event: 'call.ended' });
    const [d] = await deliveries(s, h.id);
    return contract.checkEvent('call.ended', d!.payload).length > 0;
  },
  'event-id-reused': async (s) => {
    const a = json(await control(s, 'POST', '/events', { event: 'dnc.added' }));
    const b = json(await control(s, 'POST', '/events', { event: 'dnc.added' }));
    return a.eventId === b.eventId;
  },
  'error-html-body': async (s) =>
    !(await api(s, 'GET', '/nope', { token: tk(s).all })).headers['content-type']!.startsWith('application/json'),
  'openapi-removed-operation': async (s) => {
    const doc = json(await api(s, 'GET', '/openapi.json')) as { paths: Record<string, Record<string, unknown>> };
    return doc.paths['/hooks/{id}']?.delete === undefined;
  },
  'docs-missing': async (s) => (await api(s, 'GET', '/docs')).status === 404,
  // ── Near misses ──
  'me-email-not-validated': async (s) =>
    !String(json(await api(s, 'GET', '/me', { token: tk(s).all })).primaryContactEmail).includes('@'),
  'balance-flags-as-strings': async (s) =>
    typeof json(await api(s, 'GET', '/balance', { token: tk(s).all })).blocked !== 'boolean',
  'agents-id-number': async (s) =>
    (json(await api(s, 'GET', '/agents', { token: tk(s).all })).agents as Array<{ id: unknown }>).some(
      (a) => typeof a.id === 'number',
    ),
  'scope-table-copy-paste': async (s) => (await api(s, 'GET', '/agents', { token: tk(s)['read:cdrs'] })).status === 200,
  'cdrs-default-limit-99': async (s) => (await cdrList(s, await window(s, 10 * DAY_MS))).calls.length === 99,
  'cdrs-limit-1000-capped-999': async (s) =>
    (await cdrList(s, await window(s, CDR_WINDOW_MAX_MS, '&limit=1000'))).calls.length === 999,
  'nm-token-case-insensitive': async (s) => {
    const swapped = [...tk(s).all].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    return (await api(s, 'GET', '/me', { token: swapped })).status === 200;
  },
  'nm-token-prefix-match': async (s) => (await api(s, 'GET', '/me', { token: tk(s).all.slice(0, -1) })).status === 200,
  'nm-cdrs-hidden-cap-count-total': async (s) => {
    const list = await cdrList(s, await window(s, CDR_WINDOW_MAX_MS, '&limit=1000'));
    return list.calls.length === 500 && (list as { count: number }).count > 500;
  },
  'cdrs-from-truncated-to-minute': async (s) => {
    const rows = (await cdrList(s, await window(s, 5 * DAY_MS, '&limit=1000'))).calls.map((c) =>
      Date.parse(c.startTime),
    );
    // A row at least 2 s into its minute and 2 s before its end: the next whole second after it is
    // then still in its minute, which the fault truncates `from` to (a row in the last second of
    // a minute made this check fail about once in 60 seeds).
    const at = rows.find((ms) => ms % 60_000 >= 2_000 && ms % 60_000 < 58_000)!;
    const after = Math.floor(at / 1000) * 1000 + 1000;
    return (await cdrList(s, `?from=${iso(after)}&till=${iso(after + 3_600_000)}&limit=1000`)).calls.some(
      (c) => Date.parse(c.startTime) === at,
    );
  },
  'cdrs-impossible-date-rolls-over': async (s) =>
    (await api(s, 'GET', '/cdrs?from=2026-02-28T10:00:00Z&till=2026-02-30T10:00:00Z', { token: tk(s).all })).status ===
    200,
  'cdrs-window-calendar-month': async (s) =>
    (await api(s, 'GET', '/cdrs?from=2026-02-01T00:00:00Z&till=2026-03-04T00:00:00Z', { token: tk(s).all })).status ===
    400,
  'cdrs-empty-calls-null': async (s) =>
    json(await api(s, 'GET', '/cdrs?from=2001-01-01T00:00:00Z&till=2001-01-01T00:00:01Z', { token: tk(s).all }))
      .calls === null,
  'empty-json-body-framework-error': async (s) =>
    json(await api(s, 'POST', '/hooks', { token: tk(s).all, body: '', contentType: 'application/json' })).error !==
    'invalid_input',
  'calls-agent-id-parseint': async (s) =>
    (await postJson(s, '/calls', tk(s).all, { ...validCall(s), aiAgentId: `${s.fixtures.agents.provisioned}a` }))
      .status === 200,
  'calls-e164-unanchored': async (s) =>
    (await postJson(s, '/calls', tk(s).all, { ...validCall(s), toNumber: '+14155550100123456' })).status === 200,
  'calls-metadata-array-accepted': async (s) =>
    (await postJson(s, '/calls', tk(s).all, { ...validCall(s), metadata: ['a'] })).status === 200,
  'hooks-event-case-insensitive': async (s) =>
    (await postJson(s, '/hooks', tk(s).all, { event: 'CALL.ENDED', target_url: TARGET })).status === 200,
  'hooks-fields-coerced': async (s) =>
    (await postJson(s, '/hooks', tk(s).all, { event: ['call.ended'], target_url: TARGET })).status === 200,
  'hooks-target-scheme-prefix-only': async (s) =>
    (await postJson(s, '/hooks', tk(s).all, { event: 'call.ended', target_url: 'https:example.com' })).status === 200,
  'hooks-target-scheme-case-sensitive': async (s) =>
    (await postJson(s, '/hooks', tk(s).all, { event: 'call.ended', target_url: 'HTTPS://example.com/x' })).status ===
    400,
  'hooks-target-length-off-by-one': async (s) =>
    (
      await postJson(s, '/hooks', tk(s).all, {
        event: 'call.ended',
        target_url: `https://example.com/${'a'.repeat(513 - 'https://example.com/'.length)}`,
      })
    ).status === 200,
  'json-content-type-exact-match': async (s) =>
    (
      await api(s, 'POST', '/hooks', {
        token: tk(s).all,
        body: JSON.stringify({ event: 'call.ended', target_url: TARGET }),
        contentType: 'application/json; charset=utf-8',
      })
    ).status === 400,
  'hooks-delete-uuid-unanchored': async (s) =>
    (await api(s, 'DELETE', `/hooks/{${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}}`, { token: tk(s).all }))
      .status === 404,
  // Run against the server limited to RATE per minute.
  'no-rate-limit': async (s) => {
    const statuses = [];
    for (let i = 0; i < RATE + 2; i++) statuses.push((await api(s, 'GET', '/me', { token: tk(s).all })).status);
    return !statuses.includes(429);
  },
  'rate-limit-half': async (s) => {
    const statuses = [];
    for (let i = 0; i < RATE; i++) statuses.push((await api(s, 'GET', '/me', { token: tk(s).all })).status);
    return statuses.includes(429);
  },
  // The budget of 127.0.0.1 spent with one token: another token from it is served (per token).
  'rate-limit-per-token': async (s) => {
    for (let i = 0; i < RATE; i++) await api(s, 'GET', '/me', { token: tk(s).all });
    return (await api(s, 'GET', '/me', { token: tk(s).none })).status !== 429;
  },
  // The budget of 127.0.0.1 spent: a client on 127.0.0.2 is refused too (one bucket for all).
  'rate-limit-global': async (s) => {
    for (let i = 0; i < RATE; i++) await api(s, 'GET', '/me', { token: tk(s).all });
    const other = new Agent({ localAddress: '127.0.0.2' });
    try {
      const headers = { authorization: `Bearer ${tk(s).all}` };
      const r = await request(`${s.baseUrl}/me`, { headers, dispatcher: other });
      await r.body.dump();
      return r.statusCode === 429;
    } finally {
      await other.close();
    }
  },
  'cdrs-default-till-midnight': async (s) => {
    // From a second ago and no till: till = now is after it.
    const from = Math.floor((await now(s)) / 1000) * 1000 - 1000;
    return (await api(s, 'GET', `/cdrs?from=${iso(from)}`, { token: tk(s).all })).status !== 200;
  },
  'cdrs-default-from-midnight': async (s) => {
    // Till 00:01 UTC three days ago and no from: the 24 hours before it hold records of the day before.
    const till = Math.floor((await now(s)) / DAY_MS) * DAY_MS - 3 * DAY_MS + 60_000;
    const rows = (await cdrList(s, `?till=${iso(till)}&limit=1000`)).calls;
    return !rows.some((c) => Date.parse(c.startTime) < till - 60_000);
  },
  'cdrs-default-limit-50': async (s) => (await cdrList(s, await window(s, 10 * DAY_MS))).calls.length === 50,
  'cdrs-ignores-offset': async (s) => {
    const till = Math.floor((await now(s)) / 1000) * 1000 - 2 * DAY_MS;
    const inZ = (await cdrList(s, `?from=${iso(till - DAY_MS)}&till=${iso(till)}&limit=1000`)).calls;
    // The same instants written +05:30 (from) and -03:30 (till).
    const wall = (ms: number, minutes: number) => new Date(ms + minutes * 60_000).toISOString().slice(0, 19);
    const offsets = `?from=${wall(till - DAY_MS, 330)}%2B05:30&till=${wall(till, -210)}-03:30&limit=1000`;
    return JSON.stringify((await cdrList(s, offsets)).calls) !== JSON.stringify(inZ);
  },
  // ── Near misses of behaviour (operators/) ──
  'nm-delete-not-atomic': async (s) => {
    const h = await hook(s);
    const both = await Promise.all([1, 2].map(() => api(s, 'DELETE', `/hooks/${h.id}`, { token: tk(s).all })));
    return both.every((r) => r.status === 204);
  },
  'nm-secret-given-twice': async (s) => {
    const first = await hook(s, 'dnc.added');
    return (await hook(s, 'dnc.added')).secret === first.secret;
  },
  'nm-204-with-body': async (s) => {
    const h = await hook(s);
    const bytes = await rawExchange({
      method: 'DELETE',
      url: `${s.baseUrl}/hooks/${h.id}`,
      headers: { authorization: `Bearer ${tk(s).all}` },
    });
    return (parseRaw(bytes)?.after.length ?? 0) > 0;
  },
  // A refused subscription that an event still reaches (the control API counts the deliveries it made).
  'nm-refused-hook-kept': async (s) => {
    const reached = async () => json(await control(s, 'POST', '/events', { event: 'lead.completed' })).deliveries;
    const before = await reached();
    const refused = await postJson(s, '/hooks', tk(s).all, { event: 'lead.completed', target_url: `${TARGET}\n` });
    return refused.status === 400 && Number(await reached()) > Number(before);
  },
  // A refused call whose CDR appears once it ended.
  'nm-refused-call-dialled': async (s) => {
    const refused = await postJson(s, '/calls', tk(s).all, { ...validCall(s), toNumber: ' +14155550199' });
    await control(s, 'POST', '/clock/advance', { ms: 60_000 });
    const list = await cdrList(s, await window(s, 10 * 60_000));
    return refused.status === 400 && JSON.stringify(list.calls).includes('+14155550199');
  },
  'nm-metadata-in-cdr': async (s) => {
    await postJson(s, '/calls', tk(s).all, { ...validCall(s), metadata: { marker: 'nm-metadata-marker' } });
    await control(s, 'POST', '/clock/advance', { ms: 60_000 });
    return JSON.stringify((await cdrList(s, await window(s, 10 * 60_000))).calls).includes('nm-metadata-marker');
  },
  'nm-forwarded-for-trusted': async (s) => {
    for (let i = 0; i < RATE; i++) await api(s, 'GET', '/me', { token: tk(s).all });
    const headers = { 'x-forwarded-for': '203.0.113.9' };
    return (await api(s, 'GET', '/me', { token: tk(s).all, headers })).status !== 429;
  },
  'nm-rate-limit-skips-anonymous': async (s) => {
    for (let i = 0; i < RATE; i++) await api(s, 'GET', '/me');
    return (await api(s, 'GET', '/me', { token: tk(s).all })).status !== 429;
  },
  'nm-event-id-per-call': async (s) => {
    const callId = '0b6f1c1e-8f3a-4c55-9d2e-3a1f5e7b9c01';
    const a = json(await control(s, 'POST', '/events', { event: 'call.ended', fields: { callId } }));
    const b = json(await control(s, 'POST', '/events', { event: 'lead.completed', fields: { callId } }));
    return a.eventId === b.eventId;
  },
  'agents-list-leaks-foreign': async (s) => {
    const list = json(await api(s, 'GET', '/agents', { token: tk(s).all })).agents as Array<{ id: string }>;
    return list.some((a) => a.id === s.fixtures.agents.foreign);
  },
  // ── Near misses derived from the contract (operators/) ──
  'nm-undeclared-method-html': async (s) =>
    !(await api(s, 'PUT', '/me', { token: tk(s).all })).headers['content-type']!.startsWith('application/json'),
  'nm-unknown-path-text': async (s) =>
    !(await api(s, 'GET', '/me/nm-unknown', { token: tk(s).all })).headers['content-type']!.startsWith(
      'application/json',
    ),
  'nm-token-in-query': async (s) => (await api(s, 'GET', `/me?access_token=${tk(s).all}`)).status === 200,
  'nm-token-in-cookie': async (s) =>
    (await api(s, 'GET', '/me', { headers: { cookie: `access_token=${tk(s).all}` } })).status === 200,
  'nm-token-x-api-key': async (s) =>
    (await api(s, 'GET', '/me', { headers: { 'x-api-key': tk(s).all } })).status === 200,
  'nm-token-scheme-accepted': async (s) =>
    (await api(s, 'GET', '/me', { headers: { authorization: `Token ${tk(s).all}` } })).status === 200,
  'nm-trailing-newline-accepted': async (s) =>
    (await postJson(s, '/calls', tk(s).all, { ...validCall(s), toNumber: '+14155550100\n' })).status === 200,
  'nm-e164-trimmed': async (s) =>
    (await postJson(s, '/calls', tk(s).all, { ...validCall(s), toNumber: ' +14155550100' })).status === 200,
  'nm-unicode-digits': async (s) =>
    (await postJson(s, '/calls', tk(s).all, { ...validCall(s), toNumber: '+\u0661\u0664\u0661\u0665\u0665\u0665' }))
      .status === 200,
  'nm-nul-truncated': async (s) =>
    (await postJson(s, '/hooks', tk(s).all, { event: 'call.ended\u0000', target_url: TARGET })).status === 200,
  'nm-numeric-id-lenient': async (s) =>
    (await postJson(s, '/calls', tk(s).all, { ...validCall(s), aiAgentId: `+${s.fixtures.agents.provisioned}` }))
      .status === 200,
  'nm-uuid-urn-accepted': async (s) =>
    (await api(s, 'DELETE', `/hooks/urn:uuid:${crypto.randomUUID()}`, { token: tk(s).all })).status === 404,
  'nm-datetime-zero-offset-refused': async (s) =>
    (await api(s, 'GET', `/cdrs?from=${iso((await now(s)) - DAY_MS).replace('Z', '%2B00:00')}`, { token: tk(s).all }))
      .status === 400,
  'nm-limit-lenient': async (s) =>
    (await cdrList(s, await window(s, CDR_WINDOW_MAX_MS, '&limit=1e4'))).calls.length > 1000,
  'nm-limit-int32-wrap': async (s) =>
    (await cdrList(s, await window(s, CDR_WINDOW_MAX_MS, '&limit=4294967295'))).calls.length > 1000,
  'nm-uuid-case-sensitive': async (s) =>
    (await api(s, 'DELETE', `/hooks/${(await hook(s)).id.toUpperCase()}`, { token: tk(s).all })).status === 404,
  'nm-id-prefix-match': async (s) => {
    const id = (await hook(s)).id;
    const changed = id.slice(0, -1) + (id.endsWith('a') ? 'b' : 'a');
    return (await api(s, 'DELETE', `/hooks/${changed}`, { token: tk(s).all })).status === 204;
  },
  'nm-foreign-id-case': async (s) =>
    (await api(s, 'DELETE', `/hooks/${(await hook(s)).id.toUpperCase()}`, { token: tk(s).noDialer })).status === 204,
  'nm-event-first-letter-folded': async (s) =>
    (await postJson(s, '/hooks', tk(s).all, { event: 'Call.ended', target_url: TARGET })).status === 200,
  'nm-caller-id-one-digit': async (s) =>
    (await postJson(s, '/calls', tk(s).all, { ...validCall(s), fromNumber: '+1' })).status === 200,
  // The issued id with a digit appended deletes it; an unknown one is still refused 400.
  'nm-id-char36-truncated': async (s) =>
    (await api(s, 'DELETE', `/hooks/${(await hook(s)).id}0`, { token: tk(s).all })).status === 204 &&
    (await api(s, 'DELETE', `/hooks/${crypto.randomUUID()}0`, { token: tk(s).all })).status === 400,
  // Of two identical subscriptions, the second's id disables the first.
  'nm-delete-by-target': async (s) => {
    const first = await hook(s, 'dnc.added');
    const second = await hook(s, 'dnc.added');
    await api(s, 'DELETE', `/hooks/${second.id}`, { token: tk(s).all });
    return (await api(s, 'DELETE', `/hooks/${first.id}`, { token: tk(s).all })).status === 404;
  },
  // Two identical creations at once both answer 200, and one of them names nothing afterwards.
  'nm-create-lost-update': async (s) => {
    const both = await Promise.all([hook(s, 'dnc.added'), hook(s, 'dnc.added')]);
    const gone = await Promise.all(both.map((h) => api(s, 'DELETE', `/hooks/${h.id}`, { token: tk(s).all })));
    return gone.some((r) => r.status === 404);
  },
  ...relationFaultProbes,
};

const rateFaults = new Set<FaultId>([
  'no-rate-limit',
  'rate-limit-half',
  'rate-limit-per-token',
  'rate-limit-global',
  'nm-forwarded-for-trusted',
  'nm-rate-limit-skips-anonymous',
]);
// The dispatcher's own faults are probed in dispatcher.test.ts.
const dispatcherFaults = new Set<FaultId>(DISPATCHER_FAULT_IDS);

describe('catalogue', () => {
  it('has at least 40 faults, unique ids, real requirement ids, and a probe for every server-side fault', () => {
    expect(faults.length).toBeGreaterThanOrEqual(40);
    expect(new Set(faults.map((f) => f.id)).size).toBe(faults.length);
    for (const f of faults) {
      expect(f.violates.length, f.id).toBeGreaterThan(0);
      for (const id of f.violates) expect(isRequirementId(id), `${f.id} → ${id}`).toBe(true);
      expect(f.id in probes || dispatcherFaults.has(f.id), `no probe for ${f.id}`).toBe(true);
    }
  });

  it('FaultSet refuses unknown ids, the control API names them', async () => {
    expect(() => new FaultSet(['nope'])).toThrow(/nope/);
    const r = await control(server, 'PUT', '/faults', { enable: ['me-wrong-status', 'not-a-fault'] });
    expect(r.status).toBe(400);
    expect(json(r).message).toContain('not-a-fault');
    const list = json(await control(server, 'GET', '/faults')).faults as Array<{ id: string; enabled: boolean }>;
    expect(list.find((f) => f.id === 'me-wrong-status')?.enabled).toBe(false);
  });

  it('faults given at start are on', async () => {
    const s = await startReferenceServer({ rateLimit: false, faults: ['me-wrong-status'] });
    try {
      expect((await api(s, 'GET', '/me', { token: s.fixtures.tokens.all })).status).toBe(201);
    } finally {
      await s.close();
    }
  });
});

describe('each fault changes the behaviour it names', () => {
  itChangesWhatItNames(probes, (id) => (rateFaults.has(id) ? limited : server));
});
