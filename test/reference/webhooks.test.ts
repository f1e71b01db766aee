/**
 * Webhooks end to end: the reference server delivering to a real HTTPS receiver
 * (harness/webhooks/receiver.ts) whose CA the dispatcher trusts. Payloads of every event kind
 * validate against openapi.json `webhooks`; call.ended correlates with POST /calls; a hook that
 * fails 10 times is auto-disabled (clock scaled ×10,000 so the backoff runs in seconds); and
 * each dispatcher fault changes what the receiver sees (frozen clock, moved by the control API).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventTypes, limits } from '../../contract/openapi.ts';
import { startReceiver } from '../../harness/webhooks/receiver.ts';
import type { Receiver, ResponsePlan } from '../../harness/webhooks/receiver.ts';
import type { FaultId } from '../../reference/faults.ts';
import { startReferenceServer } from '../../reference/server.ts';
import type { ReferenceServer } from '../../reference/server.ts';
import { api, contract, control, postJson, reset, setFaults } from './helpers.ts';

let receiver: Receiver;
let frozen: ReferenceServer;
let scaled: ReferenceServer;
let seq = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  const trustedCaPem = [receiver.caCertPem!];
  [frozen, scaled] = await Promise.all([
    startReferenceServer({ rateLimit: false, clockScale: 0, trustedCaPem, deliveryTimeoutMs: 2000 }),
    startReferenceServer({ rateLimit: false, clockScale: 10_000, trustedCaPem, deliveryTimeoutMs: 2000 }),
  ]);
});
afterAll(async () => {
  await Promise.all([frozen?.close(), scaled?.close()]);
  await receiver?.close();
});
beforeEach(async () => {
  await Promise.all([reset(frozen), reset(scaled)]);
});

interface HookView {
  status: string;
  disabledReason: string | null;
  consecutiveFailures: number;
  deliveries: Array<{ state: string; attempts: Array<{ at: number }> }>;
}

/** A hook of `event` on `s` pointing at a fresh receiver path with `plan`. */
async function subscribe(s: ReferenceServer, event: string, plan: ResponsePlan = [{ status: 200 }]) {
  const path = `/hooks/t${++seq}`;
  const res = await postJson(s, '/hooks', s.fixtures.tokens.all, { event, target_url: `${receiver.url}${path}` });
  expect(res.status, res.rawBody).toBe(200);
  const hook = res.json as { id: string; secret: string };
  receiver.register(path, { secret: hook.secret, plan });
  return { ...hook, path };
}

const idle = (s: ReferenceServer) => control(s, 'POST', '/idle');
const view = async (s: ReferenceServer, id: string) => (await control(s, 'GET', `/hooks/${id}`)).json as HookView;
const emit = (s: ReferenceServer, event: string, fields: Record<string, unknown> = {}) =>
  control(s, 'POST', '/events', { event, fields });

/** Moves the frozen clock in steps until the hook's delivery is finished or `attempts` are made. */
async function drive(s: ReferenceServer, hookId: string, attempts = 100, stepMs = 30 * 60_000): Promise<HookView> {
  await idle(s);
  for (let round = 0; round < 80; round++) {
    const v = await view(s, hookId);
    const d = v.deliveries[0];
    if (d && (d.state !== 'pending' || d.attempts.length >= attempts)) return v;
    await control(s, 'POST', '/clock/advance', { ms: stepMs });
    await idle(s);
  }
  return view(s, hookId);
}

describe('deliveries', () => {
  it('every event kind is delivered signed, and its payload validates against openapi.json', async () => {
    const hooks = await Promise.all(eventTypes.map((e) => subscribe(frozen, e)));
    for (const event of eventTypes) {
      const r = (await emit(frozen, event)).json as { eventId: string; deliveries: number };
      expect(r.deliveries).toBe(1);
    }
    await idle(frozen);
    for (const [i, event] of eventTypes.entries()) {
      const [d] = receiver.deliveries(hooks[i]!.path);
      expect(d?.signature.ok, event).toBe(true);
      expect(d?.answeredStatus).toBe(200);
      expect(contract.checkEvent(event, d!.json)).toEqual([]);
      expect(d!.json).toMatchObject({ event, occurredAt: expect.stringMatching(/Z$/) });
    }
  });

  it('call.ended carries the callId of POST /calls once the call ends; hook create/delete emits nothing', async () => {
    const hook = await subscribe(frozen, 'call.ended');
    const other = await subscribe(frozen, 'dnc.added');
    const res = await postJson(frozen, '/calls', frozen.fixtures.tokens.all, {
      aiAgentId: frozen.fixtures.agents.provisioned,
      toNumber: '+14155550100',
    });
    const { callId } = res.json as { callId: string };
    await idle(frozen);
    expect(receiver.deliveries(hook.path)).toHaveLength(0);
    await control(frozen, 'POST', '/clock/advance', { ms: 1000 });
    await idle(frozen);
    const [d] = receiver.deliveries(hook.path);
    expect(d?.json).toMatchObject({ event: 'call.ended', callId, phone: '+14155550100' });
    expect(contract.checkEvent('call.ended', d!.json)).toEqual([]);
    expect(receiver.deliveries(other.path)).toHaveLength(0);
    await api(frozen, 'DELETE', `/hooks/${other.id}`, { token: frozen.fixtures.tokens.all });
    await idle(frozen);
    expect(receiver.deliveries(other.path)).toHaveLength(0);
  });

  it('no delivery to a deleted hook; its history is kept', async () => {
    const hook = await subscribe(frozen, 'lead.completed');
    await emit(frozen, 'lead.completed');
    await idle(frozen);
    expect((await api(frozen, 'DELETE', `/hooks/${hook.id}`, { token: frozen.fixtures.tokens.all })).status).toBe(204);
    expect(((await emit(frozen, 'lead.completed')).json as { deliveries: number }).deliveries).toBe(0);
    await idle(frozen);
    expect(receiver.deliveries(hook.path)).toHaveLength(1);
    expect((await view(frozen, hook.id)).deliveries).toHaveLength(1);
  });

  it('a hook failing 10 times in a row is auto-disabled (scaled clock), then DELETE answers 404', async () => {
    const hook = await subscribe(scaled, 'call.ended', [{ status: 503 }]);
    const { eventId } = (await emit(scaled, 'call.ended')).json as { eventId: string };
    let v = await view(scaled, hook.id);
    const deadline = Date.now() + 12_000;
    while (v.status === 'active' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      v = await view(scaled, hook.id);
    }
    expect(v.status).toBe('disabled');
    expect(v.disabledReason).toBe('auto_disabled');
    expect(v.consecutiveFailures).toBe(limits.webhookAutoDisableAfterConsecutiveFailures);
    const got = receiver.deliveries(hook.path);
    expect(got).toHaveLength(10);
    expect(new Set(got.map((d) => d.eventId))).toEqual(new Set([eventId]));
    expect((await api(scaled, 'DELETE', `/hooks/${hook.id}`, { token: scaled.fixtures.tokens.all })).status).toBe(404);
  }, 20_000);
});

/** Dispatcher faults: each probe says whether the receiver sees the deviation. */
const probes: Partial<Record<FaultId, () => Promise<boolean>>> = {
  'signature-without-timestamp': async () => {
    const h = await subscribe(frozen, 'dnc.added');
    await emit(frozen, 'dnc.added');
    await idle(frozen);
    return receiver.deliveries(h.path)[0]!.signature.ok === false;
  },
  'signature-wrong-key': async () => {
    const h = await subscribe(frozen, 'dnc.added');
    await emit(frozen, 'dnc.added');
    await idle(frozen);
    return receiver.deliveries(h.path)[0]!.signature.ok === false;
  },
  'retry-after-4xx': async () => {
    const h = await subscribe(frozen, 'dnc.added', [{ status: 400 }]);
    await emit(frozen, 'dnc.added');
    await drive(frozen, h.id, 2);
    return receiver.deliveries(h.path).length > 1;
  },
  'no-retry-after-5xx': async () => {
    const h = await subscribe(frozen, 'dnc.added', [{ status: 500 }]);
    await emit(frozen, 'dnc.added');
    await drive(frozen, h.id, 2);
    return receiver.deliveries(h.path).length === 1;
  },
  'no-auto-disable': async () => {
    const h = await subscribe(frozen, 'dnc.added', [{ status: 500 }]);
    await emit(frozen, 'dnc.added');
    const v = await drive(frozen, h.id);
    expect(receiver.deliveries(h.path).length).toBeGreaterThanOrEqual(10);
    return v.status === 'active';
  },
  'auto-disable-early': async () => {
    const h = await subscribe(frozen, 'dnc.added', [{ status: 500 }]);
    await emit(frozen, 'dnc.added');
    const v = await drive(frozen, h.id);
    return v.status === 'disabled' && receiver.deliveries(h.path).length < 10;
  },
  'backoff-constant': async () => {
    const h = await subscribe(frozen, 'dnc.added', [{ status: 500 }]);
    await emit(frozen, 'dnc.added');
    const v = await drive(frozen, h.id, 4, 60_000);
    const at = v.deliveries[0]!.attempts.map((a) => a.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    return gaps.every((g) => g === gaps[0]);
  },
  'retries-new-event-id': async () => {
    const h = await subscribe(frozen, 'dnc.added', [{ status: 500 }]);
    await emit(frozen, 'dnc.added');
    await drive(frozen, h.id, 3);
    return new Set(receiver.deliveries(h.path).map((d) => d.eventId)).size > 1;
  },
  'delivery-after-delete': async () => {
    const h = await subscribe(frozen, 'dnc.added');
    await api(frozen, 'DELETE', `/hooks/${h.id}`, { token: frozen.fixtures.tokens.all });
    await emit(frozen, 'dnc.added');
    await idle(frozen);
    return receiver.deliveries(h.path).length > 0;
  },
};

describe('each dispatcher fault changes what the receiver sees', () => {
  for (const [id, probe] of Object.entries(probes) as Array<[FaultId, () => Promise<boolean>]>) {
    it(id, async () => {
      expect(await probe(), `${id}: deviation seen with the fault off`).toBe(false);
      await reset(frozen);
      await setFaults(frozen, [id]);
      expect(await probe(), `${id}: no deviation with the fault on`).toBe(true);
    });
  }
});
