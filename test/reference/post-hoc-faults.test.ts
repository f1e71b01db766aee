/**
 * The post-hoc faults (reference/post-hoc-faults.ts): the list is well formed and apart from the
 * self-proof catalogue, each names a sentence the spec holds, and each changes the behaviour it
 * names: not with it off (the reference as it is), yes with it on (switched through the control
 * API, as `occ reference --faults` and OCC_REFERENCE_FAULTS switch it). Delivery faults are
 * probed against a real HTTPS receiver on a frozen clock, as test/reference/webhooks.test.ts does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../contract/openapi.ts';
import { startReceiver } from '../../harness/webhooks/receiver.ts';
import type { Receiver, ResponsePlan } from '../../harness/webhooks/receiver.ts';
import { faults, FaultSet, unknownFaultIds } from '../../reference/faults.ts';
import { postHocFaults, type PostHocFaultId } from '../../reference/post-hoc-faults.ts';
import { postHocAttemptSlips, uuidV7 } from '../../reference/post-hoc-slips.ts';
import { startReferenceServer } from '../../reference/server.ts';
import type { ReferenceServer } from '../../reference/server.ts';
import type { Subscription } from '../../reference/webhooks/dispatcher.ts';
import { api, control, http, iso, postJson, reset, setFaults } from './helpers.ts';
import { itChangesWhatItNames } from './post-hoc-sets.ts';
import type { Res } from './helpers.ts';

const specPath = resolve(import.meta.dirname, '../..', '../shared/spec/outbound-calling-api-v1.md');

let server: ReferenceServer;
let limited: ReferenceServer;
let receiver: Receiver;
const RATE = 10;

beforeAll(async () => {
  receiver = await startReceiver();
  [server, limited] = await Promise.all([
    startReferenceServer({ rateLimit: false, clockScale: 0, trustedCaPem: [receiver.caCertPem!] }),
    startReferenceServer({ rateLimit: { perWindow: RATE, windowMs: 60_000 } }),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.close(), limited?.close()]);
  await receiver?.close();
});

type S = ReferenceServer;
const tk = (s: S) => s.fixtures.tokens;
const json = (r: Res) => r.json as Record<string, unknown>;
const UNREACHABLE = 'https://127.0.0.1:1/never';
const now = async (s: S) => json(await control(s, 'GET', '/clock')).now as number;
const advance = (s: S, ms: number) => control(s, 'POST', '/clock/advance', { ms });
const idle = (s: S) => control(s, 'POST', '/idle');
const emit = async (s: S, event: string) =>
  json(await control(s, 'POST', '/events', { event })) as { eventId: string; deliveries: number };
const grant = (s: S) =>
  http('POST', `${s.authUrl}/oauth/token`, {
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: s.fixtures.oauth.clientId,
      client_secret: s.fixtures.oauth.clientSecret,
    }).toString(),
    contentType: 'application/x-www-form-urlencoded',
  });
let seq = 0;
/** A hook of `event` at a fresh receiver path answering by `plan`. */
async function subscribe(s: S, event: string, plan: ResponsePlan = [{ status: 200 }]) {
  const path = `/post-hoc/${++seq}`;
  const res = await postJson(s, '/hooks', tk(s).all, { event, target_url: `${receiver.url}${path}` });
  expect(res.status, res.rawBody).toBe(200);
  const hook = res.json as { id: string; secret: string };
  receiver.register(path, { secret: hook.secret, plan });
  return { ...hook, path };
}
/** Places a call to `toNumber` (with `extra` fields), lets it end, and returns the answer. */
async function call(s: S, toNumber: string, extra: Record<string, unknown> = {}) {
  const res = await postJson(s, '/calls', tk(s).all, { aiAgentId: s.fixtures.agents.provisioned, toNumber, ...extra });
  await advance(s, 1_000);
  await idle(s);
  return res;
}
/** The CDRs of the last hour with `dst`. */
async function cdrsTo(s: S, dst: string, query?: string) {
  const t = await now(s);
  const q = query ?? `?from=${iso(t - 3_600_000)}&till=${iso(t + 1_000)}`;
  const list = json(await api(s, 'GET', `/cdrs${q}`, { token: tk(s).all })) as {
    calls: Array<{ dst: string; src: string }>;
  };
  return list.calls.filter((c) => c.dst === dst);
}
/** A delivery of `event` to a fresh hook answering by `plan`, as the receiver got it. */
async function delivered(s: S, plan?: ResponsePlan) {
  const hook = await subscribe(s, 'dnc.added', plan);
  await emit(s, 'dnc.added');
  await idle(s);
  return { hook, got: receiver.deliveries(hook.path) };
}

/** For each post-hoc fault: does the deviation show? */
const probes: Record<PostHocFaultId, (s: S) => Promise<boolean>> = {
  'ph-cdrs-zero-window-accepted': async (s) => {
    const t = iso(Math.floor((await now(s)) / 1000) * 1000 - 60_000);
    return (await api(s, 'GET', `/cdrs?from=${t}&till=${t}`, { token: tk(s).all })).status === 200;
  },
  'ph-cdrs-window-unchecked-with-default-till': async (s) =>
    (await api(s, 'GET', `/cdrs?from=${iso((await now(s)) - 40 * DAY_MS)}`, { token: tk(s).all })).status === 200,
  'ph-cdrs-now-cached': async (s) => {
    await call(s, '+14155550171');
    expect(await cdrsTo(s, '+14155550171')).toHaveLength(1);
    return (await cdrsTo(s, '+14155550171', '')).length === 0;
  },
  'ph-agents-created-at-naive': async (s) =>
    (json(await api(s, 'GET', '/agents', { token: tk(s).all })).agents as Array<{ createdAt: string }>).some(
      (a) => !/(Z|[+-][0-9]{2}:[0-9]{2})$/.test(a.createdAt),
    ),
  'ph-hooks-validation-422': async (s) =>
    (await postJson(s, '/hooks', tk(s).all, { event: 'call.nope', target_url: UNREACHABLE })).status === 422,
  'ph-expired-token-code': async (s) =>
    json(await api(s, 'GET', '/me', { token: tk(s).expired })).error !== 'unauthorized',
  'ph-scope-403': async (s) => (await api(s, 'GET', '/balance', { token: tk(s).none })).status === 403,
  'ph-hook-id-uuid-v7': async (s) => {
    const id = String(json(await postJson(s, '/hooks', tk(s).all, { event: 'dnc.added', target_url: UNREACHABLE })).id);
    expect((await api(s, 'DELETE', `/hooks/${id}`, { token: tk(s).all })).status).toBe(204);
    return id[14] !== '4';
  },
  'ph-hook-saved-before-length-check': async (s) => {
    const target = `${UNREACHABLE}?${'a'.repeat(600)}`;
    expect((await postJson(s, '/hooks', tk(s).all, { event: 'lead.completed', target_url: target })).status).toBe(400);
    return (await emit(s, 'lead.completed')).deliveries > 0;
  },
  'ph-delete-auto-disabled-204': async (s) => {
    const hook = await subscribe(s, 'dnc.added', [{ status: 500 }]);
    for (let i = 0; i < 10; i++) await emit(s, 'dnc.added');
    await idle(s);
    expect(json(await control(s, 'GET', `/hooks/${hook.id}`)).disabledReason).toBe('auto_disabled');
    return (await api(s, 'DELETE', `/hooks/${hook.id}`, { token: tk(s).all })).status === 204;
  },
  'ph-calls-placed-despite-bad-from-number': async (s) => {
    expect((await call(s, '+14155550172', { fromNumber: 'private' })).status).toBe(400);
    return (await cdrsTo(s, '+14155550172')).length > 0;
  },
  'ph-calls-from-number-forwarded': async (s) => {
    expect((await call(s, '+14155550173', { fromNumber: '+14155550999' })).status).toBe(200);
    return (await cdrsTo(s, '+14155550173'))[0]?.src === '+14155550999';
  },
  'ph-signature-ms-timestamp': async (s) =>
    (await delivered(s)).got[0]!.signature.reason === 'timestamp_outside_tolerance',
  'ph-signature-reserialized-body': async (s) => (await delivered(s)).got[0]!.signature.ok === false,
  'ph-delivery-text-plain': async (s) => !(await delivered(s)).got[0]!.headers['content-type']!.includes('json'),
  'ph-event-contact-id-number': async (s) =>
    typeof ((await delivered(s)).got[0]!.json as { contactId?: unknown }).contactId !== 'string',
  'ph-ack-only-200': async (s) => {
    const { hook } = await delivered(s, [{ status: 204 }]);
    return json(await control(s, 'GET', `/hooks/${hook.id}`)).consecutiveFailures !== 0;
  },
  'ph-4xx-not-counted': async (s) => {
    const { hook } = await delivered(s, [{ status: 410 }]);
    return json(await control(s, 'GET', `/hooks/${hook.id}`)).consecutiveFailures === 0;
  },
  'ph-oauth-no-store-missing': async (s) => (await grant(s)).headers['cache-control'] !== 'no-store',
  'ph-oauth-expiry-seconds-as-ms': async (s) => {
    const token = String(json(await grant(s)).access_token);
    await advance(s, 10_000);
    return (await api(s, 'GET', '/balance', { token })).status === 401;
  },
  'ph-rate-limit-after-auth': async (s) => {
    const statuses: number[] = [];
    for (let i = 0; i < RATE + 5; i++) statuses.push((await api(s, 'GET', '/me', { token: 'unknown' })).status);
    return !statuses.includes(429);
  },
  'ph-openapi-3-0': async (s) => !String(json(await api(s, 'GET', '/openapi.json')).openapi).startsWith('3.1'),
};

describe('the post-hoc catalogue', () => {
  it('has 15 faults or more, unique ph- ids, none of the self-proof catalogue, each a sentence of the spec', () => {
    if (!existsSync(specPath)) throw new Error(`the spec is missing at ${specPath}: put shared/ beside the clone`);
    const spec = readFileSync(specPath, 'utf8');
    const selfProof = new Set<string>(faults.map((f) => f.id));
    expect(postHocFaults.length).toBeGreaterThanOrEqual(15);
    expect(new Set(postHocFaults.map((f) => f.id)).size).toBe(postHocFaults.length);
    for (const fault of postHocFaults) {
      expect(fault.id, fault.id).toMatch(/^ph-[a-z0-9-]+$/);
      expect(selfProof.has(fault.id), `${fault.id} is in the self-proof catalogue`).toBe(false);
      expect(spec.includes(fault.breaks), `${fault.id}: "${fault.breaks}" is not in the spec`).toBe(true);
      for (const text of [fault.class, fault.description, fault.nearest])
        expect(text.length, fault.id).toBeGreaterThan(8);
    }
  });

  it('the fault switches take them; the self-proof list is the same', () => {
    expect(unknownFaultIds(postHocFaults.map((f) => f.id))).toEqual([]);
    expect(faults.some((f) => f.id.startsWith('ph-'))).toBe(false);
    const set = new FaultSet(['ph-scope-403', 'me-wrong-status']);
    expect(set.list()).toEqual(['me-wrong-status', 'ph-scope-403']);
  });

  it('a reference started with one is on at once', async () => {
    const s = await startReferenceServer({ rateLimit: false, faults: ['ph-scope-403'] });
    try {
      expect((await api(s, 'GET', '/balance', { token: s.fixtures.tokens.none })).status).toBe(403);
    } finally {
      await s.close();
    }
  });
});

describe('with none of them on, the reference is unchanged', () => {
  it('the attempt hook sends what the dispatcher signed and reads what the receiver answered', () => {
    const slips = postHocAttemptSlips(new FaultSet(faults.map((f) => f.id)));
    const sent = { headers: { 'content-type': 'application/json' }, body: '{"a":1}', secret: 'whsec_x', signedAtMs: 1 };
    expect(slips.request(sent)).toEqual({ headers: sent.headers, body: sent.body });
    const sub = { consecutiveFailures: 3 } as Subscription;
    for (const status of [200, 202, 204, 410, 500])
      expect(slips.outcome({ kind: 'status', status }, sub)).toEqual({ kind: 'status', status });
    expect(sub.consecutiveFailures).toBe(3);
  });

  it('the answers of a reference that never had one on equal those of one that had them all on and off', async () => {
    const fresh = await startReferenceServer({ rateLimit: false, clockScale: 0 });
    try {
      await reset(server);
      await setFaults(
        server,
        postHocFaults.map((f) => f.id),
      );
      await reset(server, []);
      const t = iso(Math.floor((await now(server)) / 1000) * 1000);
      const asks: Array<(s: S) => Promise<Res>> = [
        (s) => api(s, 'GET', '/agents', { token: tk(s).all }),
        (s) => api(s, 'GET', '/balance', { token: tk(s).none }),
        (s) => api(s, 'GET', '/me', { token: tk(s).expired }),
        (s) => api(s, 'GET', `/cdrs?from=${t}&till=${t}`, { token: tk(s).all }),
        (s) => postJson(s, '/hooks', tk(s).all, { event: 'call.nope', target_url: UNREACHABLE }),
        (s) => postJson(s, '/calls', tk(s).all, { aiAgentId: s.fixtures.agents.provisioned, toNumber: 'x' }),
      ];
      // The seeded createdAt stamps count back from each server's start: only their form is compared.
      const seen = (r: Res) => [r.status, r.headers['content-type'], r.rawBody.replace(/"[0-9T:.-]+Z"/g, '"<Z>"')];
      for (const ask of asks) expect(seen(await ask(server))).toEqual(seen(await ask(fresh)));
    } finally {
      await fresh.close();
    }
  });
});

describe('each post-hoc fault changes the behaviour it names', () => {
  itChangesWhatItNames(probes, (id) => (id === 'ph-rate-limit-after-auth' ? limited : server));

  it('uuidV7 writes version 7 and variant 10 around the time', () => {
    const id = uuidV7(0x0190_1234_5678, new Uint8Array(10).fill(0xff));
    expect(id).toMatch(/^01901234-5678-7fff-bfff-ffffffffffff$/);
  });
});
