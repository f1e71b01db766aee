/**
 * The reference dispatcher against a REAL HTTPS receiver on 127.0.0.1 (harness/webhooks/
 * receiver.ts), on a scaled clock so that minutes and hours of backoff pass in milliseconds.
 * Signatures are checked with an HMAC computed here, straight from the spec's wording, not with
 * the project's signer.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { limits } from '../../contract/openapi.ts';
import { generateTlsMaterial, startReceiver } from '../../harness/webhooks/receiver.ts';
import type { Delivery, Receiver, ResponsePlan } from '../../harness/webhooks/receiver.ts';
import { createClock } from '../../reference/clock.ts';
import type { Clock } from '../../reference/clock.ts';
import { faults as faultCatalogue, FaultSet } from '../../reference/faults.ts';
import { DISPATCHER_FAULT_IDS } from '../../reference/faults/delivery.ts';
import { faultBends } from '../../reference/faults/index.ts';
import { Points } from '../../reference/points.ts';
import { VariantSet } from '../../reference/variants.ts';
import {
  AUTO_DISABLE_AFTER,
  createDispatcher,
  DEFAULT_BACKOFF,
  DEFAULT_TIMEOUT_MS,
  RETRY_HORIZON_MS,
  runningTimeDeadline,
  USER_AGENT,
} from '../../reference/webhooks/dispatcher.ts';
import type {
  DeliveryRecord,
  Dispatcher,
  DispatcherOptions,
  Subscription,
} from '../../reference/webhooks/dispatcher.ts';
import { freeLoopbackPort } from '../../cli/loopback-port.ts';

const HOUR = 60 * 60 * 1000;
const DISABLE_AFTER = limits.webhookAutoDisableAfterConsecutiveFailures;

let tls: { caCertPem: string; cert: string; key: string };
let receiver: Receiver;
let counter = 0;

const clocks: Clock[] = [];
const dispatchers: Dispatcher[] = [];
const extraReceivers: Receiver[] = [];

beforeAll(async () => {
  tls = await generateTlsMaterial();
  receiver = await startReceiver({ tls: { cert: tls.cert, key: tls.key } });
});
afterAll(async () => {
  await receiver?.close();
});
afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((d) => d.close()));
  for (const c of clocks.splice(0)) c.close();
  await Promise.all(extraReceivers.splice(0).map((r) => r.close()));
});

function setup(
  options: { scale?: number; faults?: string[] } & Partial<Omit<DispatcherOptions, 'clock' | 'points'>> = {},
): { clock: Clock; dispatcher: Dispatcher } {
  const { scale, faults, ...rest } = options;
  const clock = createClock({ scale: scale ?? 1000 });
  clocks.push(clock);
  const dispatcher = createDispatcher({
    clock,
    points: new Points(faultBends, new FaultSet(faults), new VariantSet()),
    trustedCaPem: [tls.caCertPem],
    ...rest,
  });
  dispatchers.push(dispatcher);
  return { clock, dispatcher };
}

/** A registered receiver path and a subscription pointing at it. */
function hook(plan: ResponsePlan, target: Receiver = receiver): { path: string; sub: Subscription } {
  const path = `/hooks/d${++counter}`;
  const secret = `whsec_${randomUUID().replaceAll('-', '')}`;
  target.register(path, { secret, plan });
  const sub: Subscription = {
    id: randomUUID(),
    accountId: 'acct-1',
    event: 'call.ended',
    targetUrl: `${target.url}${path}`,
    secret,
    status: 'active',
    consecutiveFailures: 0,
    createdAt: Date.now(),
  };
  return { path, sub };
}

function event(): Record<string, unknown> {
  return {
    eventId: randomUUID(),
    event: 'call.ended',
    callId: randomUUID(),
    contactId: 'c-1',
    phone: '+15555550100',
    dispositionCode: 'ANSWERED',
    actor: 'ai',
    durationSec: 42,
    hangupReason: 'normal',
    sentimentLabel: 'positive',
    transferInitiated: false,
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Holds the event loop for `ms`, as a host that deschedules the process would. */
function pauseTheEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* paused */
  }
}

describe('runningTimeDeadline', () => {
  it('expires after its running time: a pause counts at most two ticks', async () => {
    const started = performance.now();
    let expiredAt: number | undefined;
    runningTimeDeadline(100, () => {
      expiredAt = performance.now() - started;
    });
    pauseTheEventLoop(300);
    await sleep(30);
    expect(expiredAt, 'a 300 ms pause counted as running time').toBeUndefined();
    await until(() => expiredAt !== undefined, 'the deadline to expire', 2_000);
    // At most two ticks of the pause count: 100 ms of running time come after about 260 ms more.
    expect(expiredAt).toBeGreaterThanOrEqual(300 + 100 - 40);
  });

  it('never expires once cancelled, and expires on time with a free event loop', async () => {
    let cancelledFired = false;
    const cancel = runningTimeDeadline(50, () => {
      cancelledFired = true;
    });
    cancel();
    const started = performance.now();
    let expiredAt: number | undefined;
    runningTimeDeadline(50, () => {
      expiredAt = performance.now() - started;
    });
    await until(() => expiredAt !== undefined, 'the deadline to expire', 2_000);
    await sleep(80);
    expect(cancelledFired).toBe(false);
    expect(expiredAt).toBeGreaterThanOrEqual(50);
  });
});

/** Bounded poll: resolves once `pred` holds, fails the test after `timeoutMs` real ms. */
async function until(pred: () => boolean, what: string, timeoutMs = 1500): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!pred()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(2);
  }
}

const settled = (r: DeliveryRecord) => () => r.state !== 'pending';

/** On a frozen clock: jump straight to each scheduled retry until the delivery ends. */
async function drive(clock: Clock, dispatcher: Dispatcher, r: DeliveryRecord, maxSteps = 50): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    await dispatcher.idle();
    if (r.state !== 'pending' || r.nextAttemptAt === undefined) return;
    clock.advance(Math.max(0, r.nextAttemptAt - clock.now()));
  }
  throw new Error('drive(): the delivery did not settle');
}

/** `t=<t>,v1=<hex>` parsed, and the HMAC-SHA256 the spec prescribes, computed independently. */
function parseSig(header: string | undefined): { t: number; v1: string } {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  expect(m, `signature header ${header}`).not.toBeNull();
  return { t: Number((m as RegExpExecArray)[1]), v1: (m as RegExpExecArray)[2] as string };
}
const hmac = (key: string, input: string) => createHmac('sha256', key).update(input, 'utf8').digest('hex');

const intervals = (r: DeliveryRecord) => r.attempts.slice(1).map((a, i) => a.at - (r.attempts[i] as { at: number }).at);

describe('defaults', () => {
  it('reads the horizon and the auto-disable threshold from openapi.json and documents its own numbers', () => {
    expect(RETRY_HORIZON_MS).toBe(limits.webhookRetryHorizonHours * HOUR);
    expect(AUTO_DISABLE_AFTER).toBe(limits.webhookAutoDisableAfterConsecutiveFailures);
    expect(DEFAULT_TIMEOUT_MS).toBe(5000);
    expect(DEFAULT_BACKOFF).toEqual({ firstIntervalMs: 60_000, factor: 2 });
  });

  it('implements exactly the webhook faults the catalogue attributes to it', () => {
    const catalogued = new Set<string>(faultCatalogue.map((f) => f.id));
    for (const id of DISPATCHER_FAULT_IDS) expect(catalogued.has(id), id).toBe(true);
  });
});

describe('delivery over HTTPS', () => {
  it('a 2xx ends the attempts: one signed JSON POST, delivered, failure counter reset', async () => {
    const { clock, dispatcher } = setup();
    const { path, sub } = hook([{ status: 202 }]);
    sub.consecutiveFailures = 3;
    const payload = event();
    const r = dispatcher.dispatch(sub, payload);
    expect(r.state).toBe('pending');
    await until(settled(r), 'delivered');
    expect(r.state).toBe('delivered');
    expect(sub.consecutiveFailures).toBe(0);
    expect(sub.status).toBe('active');
    // Let several default backoff intervals of virtual time pass: nothing more is sent.
    clock.advance(2 * HOUR);
    await dispatcher.idle();
    await sleep(20);
    const got = receiver.deliveries(path);
    expect(got).toHaveLength(1);
    const d = got[0] as Delivery;
    expect(d.method).toBe('POST');
    expect(d.headers['content-type']).toBe('application/json');
    expect(d.headers['user-agent']).toBe(USER_AGENT);
    expect(d.signature.ok).toBe(true);
    expect(d.json).toEqual(payload);
    const sig = parseSig(d.headers['x-service-signature']);
    expect(sig.v1).toBe(hmac(sub.secret, `${sig.t}.${d.rawBody}`));
    expect(Math.abs(sig.t - d.receivedAt / 1000)).toBeLessThan(5); // wall clock, not virtual
    expect(r.attempts).toHaveLength(1);
    expect(r.attempts[0]?.outcome).toEqual({ kind: 'status', status: 202 });
    expect(dispatcher.deliveries(sub.id)).toEqual([r]);
  });

  it('a 4xx is permanent: exactly one attempt, counted as one failure', async () => {
    const { clock, dispatcher } = setup();
    const { path, sub } = hook([{ status: 410 }, { status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'failed_permanent');
    expect(r.state).toBe('failed_permanent');
    clock.advance(3 * HOUR);
    await dispatcher.idle();
    await sleep(20);
    expect(receiver.deliveries(path)).toHaveLength(1);
    expect(r.attempts).toHaveLength(1);
    expect(sub.consecutiveFailures).toBe(1);
    expect(sub.status).toBe('active');
  });

  it('500 ×3 then 200: four attempts at growing intervals, same eventId and body, every signature valid', async () => {
    // A frozen clock moved from one retry to the next: on a clock running 500× (60 virtual s = 120
    // real ms), a busy machine's timer lateness of 150 ms made one interval shorter than the one
    // before it (red in .ci/run). Here the schedule itself is what the test sees.
    const { clock, dispatcher } = setup({ scale: 0 });
    const { path, sub } = hook([{ status: 500, times: 3 }, { status: 200 }]);
    const payload = event();
    const r = dispatcher.dispatch(sub, payload);
    await drive(clock, dispatcher, r);
    expect(r.state).toBe('delivered');
    expect(r.attempts.map((a) => a.outcome)).toEqual([
      { kind: 'status', status: 500 },
      { kind: 'status', status: 500 },
      { kind: 'status', status: 500 },
      { kind: 'status', status: 200 },
    ]);
    // Scheduled at first + 60 s, + 180 s, + 420 s: growing intervals, 60 s doubling.
    expect(intervals(r)).toEqual([60_000, 120_000, 240_000]);
    const got = receiver.deliveries(path);
    expect(got).toHaveLength(4);
    for (const d of got) {
      expect(d.eventId).toBe(payload.eventId);
      expect(d.rawBody).toBe((got[0] as Delivery).rawBody);
      const sig = parseSig(d.headers['x-service-signature']);
      expect(sig.v1).toBe(hmac(sub.secret, `${sig.t}.${d.rawBody}`));
      expect(d.signature.ok).toBe(true);
    }
    expect(sub.consecutiveFailures).toBe(0);
  });

  it('a process pause longer than the timeout during an attempt is not a timeout: the answer is read', async () => {
    // The embedded run's receiver shares the reference's process: a busy host that pauses it
    // delays the answer and the deadline alike. A wall-clock deadline gave up here. 1 s, as below: the
    // TLS handshake and answer after the pause need running time of their own, over 100 ms on a busy host.
    const { dispatcher } = setup({ scale: 0, timeoutMs: 1_000 });
    const { path, sub } = hook([{ status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    pauseTheEventLoop(1_500);
    await until(settled(r), 'delivered after the pause', 5_000);
    expect(r.attempts.map((a) => a.outcome.kind)).toEqual(['status']);
    expect(r.state).toBe('delivered');
    expect(receiver.deliveries(path)).toHaveLength(1);
  });

  it('a receiver that hangs times out and the attempt is retried', async () => {
    // 1 s, not less: the timeout applies to the answering attempt too, whose TLS handshake alone
    // took over 150 ms on a busy machine (the test failed with a second timeout then).
    const { dispatcher } = setup({ scale: 100, timeoutMs: 1_000, backoff: { firstIntervalMs: 1000, factor: 2 } });
    const { path, sub } = hook([{ hang: true, times: 1 }, { status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'delivered after a timeout', 15_000);
    expect(r.state).toBe('delivered');
    expect(r.attempts.map((a) => a.outcome.kind)).toEqual(['timeout', 'status']);
    expect(r.attempts[0]?.durationMs).toBeGreaterThanOrEqual(990);
    expect(r.attempts[0]?.durationMs).toBeLessThan(10_000);
    expect(receiver.deliveries(path)).toHaveLength(2);
  });

  it('a refused connection is retried, and the event arrives once the receiver comes up', async () => {
    const port = await freeLoopbackPort();
    const { dispatcher } = setup({ scale: 100, backoff: { firstIntervalMs: 5000, factor: 1 } }); // 50 real ms apart
    const path = `/hooks/d${++counter}`;
    const secret = `whsec_${randomUUID().replaceAll('-', '')}`;
    const sub: Subscription = {
      id: randomUUID(),
      accountId: 'acct-1',
      event: 'call.ended',
      targetUrl: `https://127.0.0.1:${port}${path}`,
      secret,
      status: 'active',
      consecutiveFailures: 0,
      createdAt: Date.now(),
    };
    const payload = event();
    const r = dispatcher.dispatch(sub, payload);
    await until(() => r.attempts.length >= 2, 'two refused attempts');
    expect(r.state).toBe('pending');
    for (const a of r.attempts) {
      expect(a.outcome.kind).toBe('connection_error');
      expect(a.outcome.kind === 'connection_error' && a.outcome.message).toMatch(/ECONNREFUSED/);
    }
    const late = await startReceiver({ port, tls: { cert: tls.cert, key: tls.key } });
    extraReceivers.push(late);
    late.register(path, { secret, plan: [{ status: 200 }] });
    await until(settled(r), 'delivered after the receiver came up');
    expect(r.state).toBe('delivered');
    const got = late.deliveries(path);
    expect(got).toHaveLength(1);
    expect(got[0]?.eventId).toBe(payload.eventId);
    expect(got[0]?.signature.ok).toBe(true);
    expect(sub.consecutiveFailures).toBe(0);
  });
});

describe('auto-disable and horizon', () => {
  it(`${DISABLE_AFTER} consecutive failures disable the subscription (auto_disabled); no 11th attempt`, async () => {
    const { clock, dispatcher } = setup({ scale: 100, backoff: { firstIntervalMs: 1000, factor: 1 } });
    const { path, sub } = hook([{ status: 503 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'abandoned after auto-disable');
    expect(r.state).toBe('abandoned_disabled');
    expect(r.attempts).toHaveLength(limits.webhookAutoDisableAfterConsecutiveFailures);
    expect(sub.status).toBe('disabled');
    expect(sub.disabledReason).toBe('auto_disabled');
    expect(sub.consecutiveFailures).toBe(limits.webhookAutoDisableAfterConsecutiveFailures);
    clock.advance(RETRY_HORIZON_MS);
    await dispatcher.idle();
    await sleep(30);
    expect(receiver.deliveries(path)).toHaveLength(limits.webhookAutoDisableAfterConsecutiveFailures);
    // A later event for the disabled subscription is not sent at all.
    const later = dispatcher.dispatch(sub, event());
    expect(later.state).toBe('abandoned_disabled');
    expect(later.attempts).toHaveLength(0);
  });

  it("auto-disable also stops the waiting retries of the subscription's other deliveries", async () => {
    const { clock, dispatcher } = setup({ scale: 0, backoff: { firstIntervalMs: 1000, factor: 1 } });
    const { path, sub } = hook([{ status: 500 }]);
    const a = dispatcher.dispatch(sub, event());
    const b = dispatcher.dispatch(sub, event());
    await dispatcher.idle();
    for (let i = 0; i < 10 && sub.status === 'active'; i++) {
      clock.advance(1000);
      await dispatcher.idle();
    }
    // No further clock movement: both ended the moment the subscription was disabled.
    expect(sub.status).toBe('disabled');
    expect(a.state).toBe('abandoned_disabled');
    expect(b.state).toBe('abandoned_disabled');
    expect(a.attempts.length + b.attempts.length).toBe(limits.webhookAutoDisableAfterConsecutiveFailures);
    expect(receiver.deliveries(path)).toHaveLength(limits.webhookAutoDisableAfterConsecutiveFailures);
  });

  it('a receiver recovering before the 10th failure gets the event; counter reset, still active', async () => {
    // A frozen clock moved from one retry to the next: on a running one, the 10th attempt could come
    // before a busy test looked at the counter after the 9th.
    const { clock, dispatcher } = setup({ scale: 0, backoff: { firstIntervalMs: 1000, factor: 1 } });
    const failures = limits.webhookAutoDisableAfterConsecutiveFailures - 1;
    const { path, sub } = hook([{ status: 500, times: failures }, { status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    for (let i = 0; i < 2 * failures && r.attempts.length < failures; i++) {
      await dispatcher.idle();
      if (r.attempts.length < failures) clock.advance(Math.max(0, (r.nextAttemptAt ?? clock.now()) - clock.now()));
    }
    await dispatcher.idle();
    expect(r.attempts).toHaveLength(failures);
    expect(sub.consecutiveFailures).toBe(failures);
    await drive(clock, dispatcher, r);
    expect(r.state).toBe('delivered');
    expect(r.attempts).toHaveLength(failures + 1);
    expect(sub.consecutiveFailures).toBe(0);
    expect(sub.status).toBe('active');
    expect(receiver.deliveries(path).at(-1)?.answeredStatus).toBe(200);
  });

  it('the 24 h horizon stops retries before 10 failures (5 h apart: 0, 5, 10, 15, 20 h, then gave_up)', async () => {
    // A frozen clock moved from one retry to the next: on a running clock scaled so that 5 h took
    // 50 real ms, every real millisecond an attempt took on a busy machine added 6 virtual minutes,
    // and a few slow attempts pushed the fifth past the 24 h horizon (4 attempts, red).
    const { clock, dispatcher } = setup({ scale: 0, backoff: { firstIntervalMs: 5 * HOUR, factor: 1 } });
    const { path, sub } = hook([{ status: 500 }]);
    const r = dispatcher.dispatch(sub, event());
    await drive(clock, dispatcher, r);
    expect(r.state).toBe('gave_up');
    expect(r.attempts).toHaveLength(5);
    const first = (r.attempts[0] as { at: number }).at;
    for (const a of r.attempts) expect(a.at - first).toBeLessThanOrEqual(RETRY_HORIZON_MS);
    expect(r.nextAttemptAt).toBeUndefined();
    expect(sub.status).toBe('active');
    expect(receiver.deliveries(path)).toHaveLength(5);
  });

  it('an attempt exactly 24 h after the first is still made; the next one is not (frozen clock)', async () => {
    const { clock, dispatcher } = setup({ scale: 0, backoff: { firstIntervalMs: 6 * HOUR, factor: 1 } });
    const { sub } = hook([{ status: 500 }]);
    const r = dispatcher.dispatch(sub, event());
    await drive(clock, dispatcher, r);
    expect(r.state).toBe('gave_up');
    expect(intervals(r)).toEqual([6 * HOUR, 6 * HOUR, 6 * HOUR, 6 * HOUR]);
    expect((r.attempts.at(-1) as { at: number }).at - (r.attempts[0] as { at: number }).at).toBe(RETRY_HORIZON_MS);
    // Decided when the 5th attempt failed, not by waiting for a 30 h timer.
    expect(clock.now() - (r.attempts[0] as { at: number }).at).toBe(RETRY_HORIZON_MS);
  });

  it('a clock jump past the horizon while an attempt is in flight: the overdue retry is not made', async () => {
    // A delivery timeout of 1 s, not 100 ms: on a busy machine the TLS handshake alone took longer,
    // so the attempt timed out before it reached the receiver and the test never saw it in flight.
    const { clock, dispatcher } = setup({ scale: 0, timeoutMs: 1_000 });
    const { path, sub } = hook([{ hang: true, times: 1 }, { status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(() => receiver.deliveries(path).length === 1, 'first attempt reached the receiver');
    clock.advance(RETRY_HORIZON_MS + HOUR);
    await until(settled(r), 'settled', 5_000);
    expect(r.state).toBe('gave_up');
    expect(r.attempts.map((a) => a.outcome.kind)).toEqual(['timeout']);
    await sleep(20);
    expect(receiver.deliveries(path)).toHaveLength(1);
  });
});

describe('disabled subscriptions, targets, close', () => {
  it('a deleted subscription gets nothing: not a new event, not a waiting retry', async () => {
    const { clock, dispatcher } = setup({ scale: 0 });
    const { path, sub } = hook([{ status: 500 }, { status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await dispatcher.idle();
    expect(r.attempts).toHaveLength(1);
    expect(r.nextAttemptAt).toBe((r.attempts[0] as { at: number }).at + DEFAULT_BACKOFF.firstIntervalMs);
    sub.status = 'disabled';
    sub.disabledReason = 'deleted';
    clock.advance(DEFAULT_BACKOFF.firstIntervalMs);
    await dispatcher.idle();
    expect(r.state).toBe('abandoned_disabled');
    expect(r.attempts).toHaveLength(1);
    const fresh = dispatcher.dispatch(sub, event());
    expect(fresh.state).toBe('abandoned_disabled');
    await sleep(20);
    expect(receiver.deliveries(path)).toHaveLength(1);
  });

  it('refuses non-https targets without sending anything', () => {
    const { dispatcher } = setup();
    const { sub } = hook([{ status: 200 }]);
    sub.targetUrl = sub.targetUrl.replace(/^https:/, 'http:');
    const r = dispatcher.dispatch(sub, event());
    expect(r.state).toBe('failed_permanent');
    expect(r.attempts).toHaveLength(0);
    expect(r.error).toMatch(/https/);
  });

  it('trusts only the configured CAs: without them the TLS handshake fails (a retried connection error)', async () => {
    const { dispatcher } = setup({ trustedCaPem: [] });
    const { path, sub } = hook([{ status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(() => r.attempts.length === 1, 'one attempt');
    const outcome = r.attempts[0]?.outcome;
    expect(outcome?.kind).toBe('connection_error');
    expect(outcome?.kind === 'connection_error' && outcome.message).toMatch(/certificate|CERT|self.signed|issuer/i);
    expect(r.state).toBe('pending');
    expect(receiver.deliveries(path)).toHaveLength(0);
  });

  it('close() aborts a hanging attempt and cancels timers promptly; dispatch after close throws', async () => {
    const { dispatcher } = setup({ scale: 1, timeoutMs: 10_000 });
    const { path, sub } = hook([{ hang: true }]);
    const r = dispatcher.dispatch(sub, event());
    await until(() => receiver.deliveries(path).length === 1, 'the request reached the receiver');
    const t0 = performance.now();
    await dispatcher.close();
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(r.attempts).toHaveLength(0); // aborted by close: not an attempt, not a failure
    expect(sub.consecutiveFailures).toBe(0);
    expect(() => dispatcher.dispatch(sub, event())).toThrow(/closed/);
  });
});

describe('faults change the behaviour they name', () => {
  it('signature-without-timestamp: v1 is the HMAC of the body alone, and the receiver refuses it', async () => {
    const { dispatcher } = setup({ faults: ['signature-without-timestamp'] });
    const { path, sub } = hook([{ status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'settled');
    const d = receiver.deliveries(path)[0] as Delivery;
    const sig = parseSig(d.headers['x-service-signature']);
    expect(sig.v1).toBe(hmac(sub.secret, d.rawBody));
    expect(sig.v1).not.toBe(hmac(sub.secret, `${sig.t}.${d.rawBody}`));
    expect(d.answeredStatus).toBe(401);
  });

  it('signature-wrong-key: v1 is keyed with the secret minus whsec_', async () => {
    const { dispatcher } = setup({ faults: ['signature-wrong-key'] });
    const { path, sub } = hook([{ status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'settled');
    const d = receiver.deliveries(path)[0] as Delivery;
    const sig = parseSig(d.headers['x-service-signature']);
    expect(sig.v1).toBe(hmac(sub.secret.replace(/^whsec_/, ''), `${sig.t}.${d.rawBody}`));
    expect(d.signature).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('retry-after-4xx: a 4xx is retried', async () => {
    const { dispatcher } = setup({ faults: ['retry-after-4xx'] });
    const { sub } = hook([{ status: 400, times: 1 }, { status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'settled');
    expect(r.attempts.map((a) => a.outcome)).toEqual([
      { kind: 'status', status: 400 },
      { kind: 'status', status: 200 },
    ]);
  });

  it('no-retry-after-5xx: a 5xx is final', async () => {
    const { dispatcher } = setup({ faults: ['no-retry-after-5xx'] });
    const { sub } = hook([{ status: 500, times: 1 }, { status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'settled');
    expect([r.state, r.attempts.length]).toEqual(['failed_permanent', 1]);
  });

  it('no-auto-disable: still active after more than 10 consecutive failures', async () => {
    const { dispatcher } = setup({
      scale: 100,
      faults: ['no-auto-disable'],
      backoff: { firstIntervalMs: 1000, factor: 1 },
    });
    const { sub } = hook([{ status: 500 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(() => r.attempts.length >= limits.webhookAutoDisableAfterConsecutiveFailures + 2, '12 attempts');
    expect([sub.status, r.state]).toEqual(['active', 'pending']);
    expect(sub.consecutiveFailures).toBeGreaterThan(limits.webhookAutoDisableAfterConsecutiveFailures);
  });

  it('nm-4xx-restarts-failure-count: a 4xx starts the count again', async () => {
    const { dispatcher } = setup({ faults: ['nm-4xx-restarts-failure-count'] });
    const { sub } = hook([{ status: 410 }]);
    sub.consecutiveFailures = 9;
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'failed_permanent');
    expect([r.state, sub.consecutiveFailures, sub.status]).toEqual(['failed_permanent', 0, 'active']);
  });

  it('auto-disable-early: disabled after 5 consecutive failures', async () => {
    const { dispatcher } = setup({
      scale: 100,
      faults: ['auto-disable-early'],
      backoff: { firstIntervalMs: 1000, factor: 1 },
    });
    const { sub } = hook([{ status: 500 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'settled');
    expect([sub.status, sub.disabledReason, r.attempts.length]).toEqual(['disabled', 'auto_disabled', 5]);
  });

  it('backoff-constant: every interval equals the first', async () => {
    const { clock, dispatcher } = setup({ scale: 0, faults: ['backoff-constant'] });
    const { sub } = hook([{ status: 500, times: 3 }, { status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await drive(clock, dispatcher, r);
    expect(intervals(r)).toEqual([60_000, 60_000, 60_000]);
  });

  it('(control for backoff-constant) without the fault the frozen-clock schedule is 60 s, 120 s, 240 s', async () => {
    const { clock, dispatcher } = setup({ scale: 0 });
    const { sub } = hook([{ status: 500, times: 3 }, { status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await drive(clock, dispatcher, r);
    expect(intervals(r)).toEqual([60_000, 120_000, 240_000]);
  });

  it("hook-secret-in-delivery-header: the subscription's secret travels in a header", async () => {
    const { dispatcher } = setup({ faults: ['hook-secret-in-delivery-header'] });
    const { path, sub } = hook([{ status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'settled');
    expect((receiver.deliveries(path)[0] as Delivery).headers['x-service-webhook-secret']).toBe(sub.secret);
  });

  it('std-delivery-bom: the body begins with a byte order mark, signed as sent', async () => {
    const { dispatcher } = setup({ faults: ['std-delivery-bom'] });
    const { path, sub } = hook([{ status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'settled');
    const d = receiver.deliveries(path)[0] as Delivery;
    expect([...Buffer.from(d.bodyBase64, 'base64').subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const sig = parseSig(d.headers['x-service-signature']);
    expect(sig.v1).toBe(hmac(sub.secret, `${sig.t}.${d.rawBody}`));
  });

  it('std-delivery-te-alone: the delivery carries TE and no Connection naming it', async () => {
    const { dispatcher } = setup({ faults: ['std-delivery-te-alone'] });
    const { path, sub } = hook([{ status: 200 }]);
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'settled');
    const headers = (receiver.deliveries(path)[0] as Delivery).headers;
    expect(headers.te).toBe('trailers');
    expect(headers.connection ?? '').not.toMatch(/\bte\b/i);
  });

  it('retries-new-event-id: the retry carries a different eventId', async () => {
    const { dispatcher } = setup({ faults: ['retries-new-event-id'] });
    const { path, sub } = hook([{ status: 500, times: 1 }, { status: 200 }]);
    const payload = event();
    const r = dispatcher.dispatch(sub, payload);
    await until(settled(r), 'settled');
    const ids = receiver.deliveries(path).map((d) => d.eventId);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(payload.eventId);
    expect(ids[1]).not.toBe(payload.eventId);
  });

  it('delivery-after-delete: a deleted subscription still receives the event', async () => {
    const { dispatcher } = setup({ faults: ['delivery-after-delete'] });
    const { path, sub } = hook([{ status: 200 }]);
    sub.status = 'disabled';
    sub.disabledReason = 'deleted';
    const r = dispatcher.dispatch(sub, event());
    await until(settled(r), 'settled');
    expect(r.state).toBe('delivered');
    expect(receiver.deliveries(path)).toHaveLength(1);
  });
});
