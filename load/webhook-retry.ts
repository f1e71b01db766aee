/**
 * k6 probe of webhook delivery retries (spec, Events › Delivery rules; States › Webhook
 * subscription; Limits; requirements WEBHOOK-*). Run it with `npm run load:webhook-retry`
 * (load/run.ts starts the receiver, and the reference server unless API_BASE_URL is set).
 *
 *   BASE_URL             API base, …/v1             TOKEN          token with write:hooks (and write:calls remotely)
 *   RECEIVER_URL         the receiver, as k6 reaches it (its /_receiver/ query API, on its plain-HTTP
 *                        loopback query port)
 *   RECEIVER_PUBLIC_URL  the receiver, as the target reaches it (target_url prefix; default RECEIVER_URL)
 *   REFERENCE_URL        the embedded reference server's own API (/_reference); unset against a remote target
 *   CONTROL_URL, CONTROL_TOKEN   a remote target's test-control endpoint (control-openapi.json), given only
 *                        when it offers the five capabilities of deliveries in virtual time
 *   TIME_BUDGET_S        remote without the control clock: how long to watch deliveries (default 600)
 *   AGENT_ID, DESTINATION_NUMBER   remote without CONTROL_URL: POST /calls makes the call.ended event happen
 *
 * One subscription per response plan, all for call.ended, so ONE event reaches all of them:
 *   ack        200                        a 2xx ends the retries (WEBHOOK-ACK-2XX)
 *   client4xx  400                        exactly one attempt (WEBHOOK-4XX-NO-RETRY)
 *   server5xx  500 forever                retried (WEBHOOK-5XX-RETRY), growing intervals
 *                                         (WEBHOOK-BACKOFF-EXPONENTIAL), same eventId and a valid
 *                                         signature every time (WEBHOOK-RETRY-SAME-EVENT), disabled
 *                                         after exactly 10 failures: DELETE answers 404
 *                                         (WEBHOOK-AUTO-DISABLE-10), nothing after 24 h
 *                                         (WEBHOOK-RETRY-HORIZON-24H)
 *   timeout    no answer ×2, then 200     retried after timeouts, then delivered (WEBHOOK-TIMEOUT-RETRY)
 *   recover    503 ×9, then 200           delivered on the 10th attempt, subscription still
 *                                         active (WEBHOOK-RECOVERY-BEFORE-10)
 * Three ways to reach the deliveries' end (DRIVE):
 * - reference: the event comes from POST /_reference/events and time is driven with
 *   POST /_reference/clock/advance (the runner freezes the virtual clock: scale 0) straight to the
 *   next scheduled attempt, so hours of backoff take seconds; attempt times are the dispatcher's
 *   virtual ms from GET /_reference/hooks/:id.
 * - control: a remote target's test-control protocol, only what control-openapi.json guarantees:
 *   the event from the `event-emitted` state (deliveries counted only for the eventIds it returns:
 *   the target may deliver other events of the account to the same subscriptions, so each path's
 *   plan runs per event), then `deliveries-idle` (an attempt may still be in flight when an answer
 *   comes), `hook-attempts`, and `clock-advanced` exactly to the earliest `nextAttemptAt` (timers set
 *   within a jump may fire then or at the next advance: an advance of 0 fires what is due). Attempt
 *   times are the target's, on the clock `clock` reports; its signatures may use either clock, so
 *   the receiver takes any timestamp. Every rule is judged, the 24 h horizon and recovery too.
 * - watch: a remote target without them: a real call (POST /calls) makes the event, and the probe
 *   watches the receiver for TIME_BUDGET_S, judging only what it could see (the rest is reported
 *   "not observed within the budget").
 *
 * Pass/fail: every check is tagged {req: <requirement id>} and each id has the threshold
 * `checks{req:<id>}: rate==1`; `probe_completed count==1` fails a run that stopped half-way
 * (an unobserved check would otherwise pass silently). Chart data: each attempt's time after
 * the first, per plan, next to the reference's documented schedule (60 s × 2). The control token
 * travels only in request headers, which neither k6's summary nor this probe's report holds.
 */
import http from 'k6/http';
import { check, sleep } from 'k6';
import { Counter, Gauge } from 'k6/metrics';
import type { Options } from 'k6/options';
import { positiveInt, text, trimSlash } from './lib/env.ts';
import type { SummaryData, ThresholdMeta } from './lib/junit.ts';
import {
  AUTO_DISABLE_AFTER,
  CONTROL_DRIVE_BUDGET_MS,
  webhookRetryPlans,
  type Plan,
  type WebhookDrive,
} from './lib/probe-shape.ts';
import { buildSummary, declareSubmetrics, value } from './lib/summary.ts';
import { ARRIVAL_JITTER_MS, intervalsGrow } from '../harness/checks/backoff.ts';
import { consecutiveFailures } from '../harness/seams/delivery-driver.ts';
import type { HookView } from '../harness/seams/control-client.ts';

const BASE_URL = trimSlash(text('BASE_URL'));
const TOKEN = text('TOKEN');
const RECEIVER_URL = trimSlash(text('RECEIVER_URL'));
const RECEIVER_PUBLIC_URL = trimSlash(text('RECEIVER_PUBLIC_URL', RECEIVER_URL));
const REFERENCE_URL = trimSlash(text('REFERENCE_URL', '-'));
const CONTROL_URL = trimSlash(text('CONTROL_URL', '-'));
const CONTROL_TOKEN = text('CONTROL_TOKEN', '');
const DRIVE: WebhookDrive = REFERENCE_URL !== '-' ? 'reference' : CONTROL_URL !== '-' ? 'control' : 'watch';
const REFERENCE = DRIVE === 'reference';
/** Deliveries driven to their end in the target's virtual time (every rule judged, the 24 h horizon too). */
const VIRTUAL = DRIVE !== 'watch';
const TIME_BUDGET_S = positiveInt('TIME_BUDGET_S', 600);
const EVENT = 'call.ended';

const HOUR_MS = 3_600_000;
const HORIZON_MS = 24 * HOUR_MS;
/** The reference's documented backoff (not the spec's: it shows no values): 60 s × 2. */
const REFERENCE_FIRST_INTERVAL_MS = 60_000;
const MAX_ATTEMPTS_CHARTED = 12;
/**
 * Bounds of the drive loop (steps and real time): a step waits for idle deliveries, which a target may
 * hold for up to 10 s while an unanswered attempt runs into its delivery timeout.
 */
const MAX_DRIVE_STEPS = 120;
const DRIVE_BUDGET_MS = REFERENCE ? 40_000 : CONTROL_DRIVE_BUDGET_MS;
/** Remote polling. */
const POLL_INTERVAL_S = 5;

// The plans (and so the request count --dry-run --with-load gives) come from one place.
const plans: Plan[] = webhookRetryPlans(DRIVE);

const REQUIREMENTS: Array<{ id: string; description: string }> = [
  { id: 'WEBHOOK-ACK-2XX', description: 'a 2xx answer ends the retries: exactly one attempt' },
  { id: 'WEBHOOK-4XX-NO-RETRY', description: 'a 4xx answer gets exactly one attempt' },
  { id: 'WEBHOOK-5XX-RETRY', description: 'a 5xx answer is retried, every retry correctly signed' },
  { id: 'WEBHOOK-TIMEOUT-RETRY', description: 'an unanswered delivery is retried, then delivered' },
  {
    id: 'WEBHOOK-BACKOFF-EXPONENTIAL',
    description: 'the intervals grow: the last longer than the first, none shorter than half the one before',
  },
  { id: 'WEBHOOK-RETRY-HORIZON-24H', description: 'no attempt more than 24 h after the first' },
  {
    id: 'WEBHOOK-RETRY-SAME-EVENT',
    description: 'every attempt of one event carries the same eventId and a valid signature',
  },
  {
    id: 'WEBHOOK-AUTO-DISABLE-10',
    description: 'disabled after exactly 10 consecutive failures (DELETE then answers 404)',
  },
  {
    id: 'WEBHOOK-RECOVERY-BEFORE-10',
    description: 'a receiver that recovers before the 10th failure gets the event; the subscription stays active',
  },
  { id: 'probe', description: 'the probe could set up its subscriptions and make the event happen' },
];

const completed = new Counter('probe_completed');
const attemptsSeen = new Counter('wh_attempts');
const attemptAt = new Gauge('wh_attempt_at_s');
const expectedAt = new Gauge('wh_expected_at_s');

const meta: ThresholdMeta[] = [
  {
    key: 'probe_completed',
    requirement: 'probe',
    description: 'the probe ran to its end (a check never made would pass silently)',
  },
  ...REQUIREMENTS.map((r) => ({ key: `checks{req:${r.id}}`, requirement: r.id, description: r.description })),
];
const thresholds: Record<string, string[]> = {
  probe_completed: ['count==1'],
  ...Object.fromEntries(REQUIREMENTS.map((r) => [`checks{req:${r.id}}`, ['rate==1']])),
};
declareSubmetrics(
  thresholds,
  plans.map((p) => `wh_attempts{plan:${p.name}}`),
);
for (let n = 1; n <= MAX_ATTEMPTS_CHARTED; n++) {
  declareSubmetrics(thresholds, [
    `wh_expected_at_s{attempt:${n}}`,
    ...plans.map((p) => `wh_attempt_at_s{plan:${p.name},attempt:${n}}`),
  ]);
}

export const options: Options = {
  summaryTrendStats: ['avg', 'min', 'med', 'max'],
  scenarios: {
    retries: {
      executor: 'shared-iterations',
      vus: 1,
      iterations: 1,
      maxDuration: REFERENCE
        ? '90s'
        : `${(DRIVE === 'control' ? CONTROL_DRIVE_BUDGET_MS / 1000 : TIME_BUDGET_S) + 120}s`,
      gracefulStop: '10s',
    },
  },
  thresholds,
};

const auth = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json' };
const json = { 'Content-Type': 'application/json' };

function req(id: string, name: string, ok: boolean): boolean {
  return check(null, { [`${id}: ${name}`]: () => ok }, { req: id });
}

function parse<T>(body: unknown): T | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    return JSON.parse(body) as T;
  } catch {
    return undefined;
  }
}

interface ReceiverDelivery {
  seq: number;
  path: string;
  receivedAt: number;
  json?: unknown;
  eventId?: string;
  signature: { ok: boolean; reason?: string };
  answeredStatus: number | 'no-answer';
}

type Delivery = HookView['deliveries'][number];

interface Hook {
  plan: Plan;
  id: string;
  path: string;
}

/**
 * What reached `path`; remotely only the call.ended of the probe's call (`callId`): another call of
 * the account may end meanwhile and its call.ended reach these subscriptions too.
 */
function receiverDeliveries(path: string, callId?: string): ReceiverDelivery[] {
  const res = http.get(`${RECEIVER_URL}/_receiver/deliveries?path=${encodeURIComponent(path)}`, {
    tags: { name: 'receiver deliveries' },
  });
  const all = parse<{ deliveries: ReceiverDelivery[] }>(res.body)?.deliveries ?? [];
  return callId === undefined ? all : all.filter((d) => (d.json as { callId?: unknown } | null)?.callId === callId);
}

/** The embedded reference's own API (/_reference): reference only. */
function control<T>(method: 'GET' | 'POST', path: string, body?: unknown): T | undefined {
  const res = http.request(method, `${REFERENCE_URL}${path}`, body === undefined ? null : JSON.stringify(body), {
    headers: json,
    tags: { name: `reference ${path.replace(/[0-9a-f-]{36}/, ':id')}` },
    timeout: '15s',
  });
  return res.status === 200 ? parse<T>(res.body) : undefined;
}

const protocolHeaders = {
  Authorization: `Bearer ${CONTROL_TOKEN}`,
  'Content-Type': 'application/json',
  Accept: 'application/json',
};

/** One request of the test-control protocol (control-openapi.json): a state's setup or teardown, or an inspection. */
function protocol<T>(
  kind: 'states' | 'inspections',
  name: string,
  params: Record<string, unknown>,
  action?: 'setup' | 'teardown',
): T | undefined {
  const body = kind === 'states' ? { state: name, params, action } : { inspection: name, params };
  const res = http.post(`${CONTROL_URL}/${kind}`, JSON.stringify(body), {
    headers: protocolHeaders,
    tags: { name: `control ${name}` },
    timeout: '15s',
  });
  return res.status === 200 ? parse<T>(res.body) : undefined;
}

/** What the target recorded of a hook's deliveries: the reference's own view, or the hook-attempts inspection. */
function hookRecord(hookId: string): HookView | undefined {
  if (REFERENCE) return control<HookView>('GET', `/hooks/${hookId}`);
  return protocol<HookView>('inspections', 'hook-attempts', { hookId });
}

/** The hook's delivery of one of the events the probe made happen. */
function ourDelivery(record: HookView | undefined, eventIds: readonly string[]): Delivery | undefined {
  return record?.deliveries.find((d) => eventIds.includes(d.eventId));
}

/** PUT of a receiver path's registration (plan, or secret: each field given replaces the one registered). */
function registerPath(path: string, setup: Record<string, unknown>): boolean {
  const put = http.put(`${RECEIVER_URL}/_receiver/paths?path=${encodeURIComponent(path)}`, JSON.stringify(setup), {
    headers: json,
    tags: { name: 'receiver paths' },
  });
  return put.status === 200;
}

/**
 * One hook per plan, each in the order that leaves the target no unknown path to meet: the
 * receiver learns the path and its plan, then POST /hooks sends it, then the receiver gets the
 * secret (a delivery that arrives in between is kept and judged once the secret is given).
 */
function createHooks(runId: string): Hook[] {
  const hooks: Hook[] = [];
  for (const plan of plans) {
    const path = `/k6/${runId}/${plan.name}`;
    // Remotely another event of the account may reach the path too: each event runs the plan on its own,
    // but for recovery, where the receiver fails nine arrivals whichever events they carry, then recovers.
    const planned = registerPath(path, { plan: plan.steps, perEvent: DRIVE === 'control' && plan.name !== 'recover' });
    req('probe', `the receiver takes ${plan.name}'s plan`, planned);
    const res = http.post(
      `${BASE_URL}/hooks`,
      JSON.stringify({ event: EVENT, target_url: `${RECEIVER_PUBLIC_URL}${path}` }),
      { headers: auth, tags: { name: 'POST /hooks' } },
    );
    const created = parse<{ id: string; secret: string }>(res.body);
    if (
      !req(
        'probe',
        `POST /hooks for ${plan.name} answers 200 with id and secret`,
        res.status === 200 && created !== undefined,
      )
    )
      continue;
    req('probe', `the receiver takes ${plan.name}'s secret`, registerPath(path, { secret: created!.secret }));
    hooks.push({ plan, id: created!.id, path });
  }
  return hooks;
}

/** The target's virtual clock and the wait for idle deliveries, through the reference's API or the protocol. */
interface VirtualClock {
  idle(): void;
  now(): number | undefined;
  advance(ms: number): void;
}

const virtualClock: VirtualClock = REFERENCE
  ? {
      idle: () => control('POST', '/idle'),
      now: () => control<{ now: number }>('GET', '/clock')?.now,
      advance: (ms) => control('POST', '/clock/advance', { ms }),
    }
  : {
      idle: () => protocol('inspections', 'deliveries-idle', {}),
      now: () => {
        const now = protocol<{ now?: unknown }>('inspections', 'clock', {})?.now;
        return typeof now === 'number' ? now : undefined;
      },
      advance: (ms) => protocol('states', 'clock-advanced', { ms }, 'setup'),
    };

/**
 * Virtual time: every delivery of the probe's event to its hooks, driven to its end by jumping the
 * target's clock exactly to the earliest scheduled attempt; then a day and more passes, after which
 * nothing that has ended may be attempted again. Bounded in steps and real time.
 */
function driveVirtual(hooks: Hook[], eventIds: readonly string[]): { steps: number; finished: boolean } {
  const deadline = Date.now() + DRIVE_BUDGET_MS;
  let steps = 0;
  let finished = false;
  while (steps < MAX_DRIVE_STEPS && Date.now() < deadline) {
    steps++;
    virtualClock.idle();
    const ours = hooks.map((h) => ourDelivery(hookRecord(h.id), eventIds));
    const pending = ours.filter((d): d is Delivery => d?.state === 'pending');
    if (ours.every((d) => d !== undefined) && pending.length === 0) {
      finished = true;
      break;
    }
    const due = pending.map((d) => d.nextAttemptAt).filter((t): t is number => typeof t === 'number');
    // An attempt in flight (an unanswered one runs into the delivery timeout) or not queued yet: look again.
    if (due.length < pending.length || due.length === 0) {
      sleep(0.05);
      continue;
    }
    const now = virtualClock.now();
    if (now === undefined) break; // no clock to jump from: the deliveries stay as they are, judged as seen
    virtualClock.advance(Math.max(0, Math.min(...due) - now));
  }
  virtualClock.advance(HORIZON_MS + HOUR_MS);
  virtualClock.idle();
  return { steps, finished };
}

/** Remote: watch the receiver until the budget is spent or the 5xx subscription is disabled. */
function watchRemote(hooks: Hook[], callId: string | undefined): { polls: number } {
  const deadline = Date.now() + TIME_BUDGET_S * 1000;
  const maxPolls = Math.ceil(TIME_BUDGET_S / POLL_INTERVAL_S) + 1;
  const server5xx = hooks.find((h) => h.plan.name === 'server5xx');
  let polls = 0;
  while (polls < maxPolls && Date.now() < deadline) {
    polls++;
    if (server5xx !== undefined && receiverDeliveries(server5xx.path, callId).length >= AUTO_DISABLE_AFTER) break;
    sleep(Math.min(POLL_INTERVAL_S, Math.max(0, (deadline - Date.now()) / 1000)));
  }
  return { polls };
}

/**
 * Makes the event happen: its eventIds (reference, event-emitted: a target may emit a call-shaped set,
 * listing every event), or the callId of the call whose call.ended it is (watch).
 */
function trigger(): { eventIds: string[]; callId?: string } {
  if (REFERENCE) {
    const emitted = control<{ eventId: string; deliveries: number }>('POST', '/events', { event: EVENT });
    req(
      'probe',
      `POST /_reference/events reaches every subscription (${plans.length})`,
      emitted?.deliveries === plans.length,
    );
    return { eventIds: emitted === undefined ? [] : [emitted.eventId] };
  }
  if (DRIVE === 'control') {
    const emitted = protocol<{ eventId?: unknown; eventIds?: unknown }>(
      'states',
      'event-emitted',
      { event: EVENT },
      'setup',
    );
    const eventId = typeof emitted?.eventId === 'string' ? emitted.eventId : undefined;
    req('probe', 'the event-emitted setup answers 200 with an eventId', eventId !== undefined);
    const listed = Array.isArray(emitted?.eventIds)
      ? (emitted.eventIds as unknown[]).filter((id): id is string => typeof id === 'string')
      : [];
    // Its teardown never cancels the event's deliveries (control-openapi.json); the probe deletes its hooks.
    if (emitted !== undefined) protocol('states', 'event-emitted', { event: EVENT, values: emitted }, 'teardown');
    return { eventIds: eventId === undefined ? [] : [...new Set([eventId, ...listed])] };
  }
  const res = http.post(
    `${BASE_URL}/calls`,
    JSON.stringify({ aiAgentId: text('AGENT_ID'), toNumber: text('DESTINATION_NUMBER') }),
    { headers: auth, tags: { name: 'POST /calls' } },
  );
  req('probe', 'POST /calls queues the call that makes the event happen', res.status === 200);
  const callId = parse<{ callId?: unknown }>(res.body)?.callId;
  return typeof callId === 'string' ? { eventIds: [], callId } : { eventIds: [] };
}

function intervalsOf(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - (times[i] as number));
}

/** eventId of a delivery as the receiver saw it. */
const eventIdOf = (d: ReceiverDelivery): string => d.eventId ?? '(none)';

/** What the probe saw of one hook's deliveries of its event, and what DELETE then answered. */
interface Seen {
  /** The plan's name: ack, client4xx, server5xx, timeout or recover. */
  name: string;
  /** The target's record of the hook (virtual time only). */
  record: HookView | undefined;
  /** The hook's delivery of the probe's event in that record. */
  delivery: Delivery | undefined;
  /** The other events the target lists deliveries of for the hook. */
  others: Set<string>;
  /** What reached the hook's path of the probe's event. */
  received: ReceiverDelivery[];
  /** Attempt times: the target's virtual ms, or the receiver's arrival times. */
  times: number[];
  attempts: number;
  /** Every attempt that reached the receiver carried a valid signature (and there was one). */
  signed: boolean;
  /** What DELETE /hooks/:id answered once the deliveries were over. */
  deleteStatus: number;
}

/** The hook's deliveries of the probe's event: the target's record (virtual time) and the receiver's. */
function observe(hook: Hook, ours: readonly string[], callId: string | undefined): Omit<Seen, 'deleteStatus'> {
  const record = VIRTUAL ? hookRecord(hook.id) : undefined;
  const delivery = ourDelivery(record, ours);
  // What reached the path of the probe's event: the target may list other events' deliveries of the hook.
  const others = new Set((record?.deliveries ?? []).map((d) => d.eventId).filter((id) => !ours.includes(id)));
  const received = receiverDeliveries(hook.path, callId).filter((d) => !others.has(eventIdOf(d)));
  const times = VIRTUAL ? (delivery?.attempts ?? []).map((a) => a.at) : received.map((d) => d.receivedAt);
  const signed = received.length > 0 && received.every((d) => d.signature.ok);
  return { name: hook.plan.name, record, delivery, others, received, times, attempts: times.length, signed };
}

/** Chart data: how many attempts the plan got, and each one's time after the first. */
function chartAttempts({ name, times, attempts }: Omit<Seen, 'deleteStatus'>): void {
  attemptsSeen.add(attempts, { plan: name });
  for (const [i, t] of times.slice(0, MAX_ATTEMPTS_CHARTED).entries()) {
    attemptAt.add((t - (times[0] as number)) / 1000, { plan: name, attempt: String(i + 1) });
  }
}

/** Every plan: the attempts stay within 24 h of the first, and carry one eventId (ours), validly signed. */
function judgeEveryPlan(seen: Omit<Seen, 'deleteStatus'>, ours: readonly string[]): void {
  const { name, received, times, attempts, signed } = seen;
  const eventIds = new Set(received.map(eventIdOf));
  const sameEvent =
    received.length > 0 && eventIds.size === 1 && (ours.length === 0 || ours.includes([...eventIds][0]!));
  const withinHorizon = attempts === 0 || (times[attempts - 1] as number) - (times[0] as number) <= HORIZON_MS;
  // No watch of TIME_BUDGET_S sees an attempt 24 h later: that proves nothing (reported "not
  // observed"), so the verdict is virtual time's alone (REFERENCE_ONLY_PROBE_REQUIREMENTS remotely).
  if (attempts > 0 && VIRTUAL)
    req('WEBHOOK-RETRY-HORIZON-24H', `${name}: last attempt within 24 h of the first`, withinHorizon);
  if (VIRTUAL || attempts > 1)
    req(
      'WEBHOOK-RETRY-SAME-EVENT',
      `${name}: ${received.length} attempts, one eventId, all signatures valid`,
      sameEvent && signed,
    );
}

/** ack (200): exactly one attempt, delivered. */
function judgeAck({ attempts, received, delivery }: Seen): void {
  req(
    'WEBHOOK-ACK-2XX',
    'ack: exactly one attempt, answered 2xx',
    attempts === 1 && received.length === 1 && (!VIRTUAL || delivery?.state === 'delivered'),
  );
}

/** client4xx (400): exactly one attempt. */
function judgeClient4xx({ attempts }: Seen): void {
  req('WEBHOOK-4XX-NO-RETRY', `client4xx: exactly one attempt (saw ${attempts})`, attempts === 1);
}

/** server5xx (500 forever): retried, signed, at growing intervals, then disabled after exactly 10 failures. */
function judgeServer5xx({ record, times, attempts, signed, deleteStatus }: Seen): void {
  const intervals = intervalsOf(times);
  if (VIRTUAL || attempts > 1)
    req(
      'WEBHOOK-5XX-RETRY',
      `server5xx: retried (saw ${attempts} attempts), every attempt signed`,
      attempts >= 2 && signed,
    );
  // The suite's one reading of exponential backoff (harness/checks/backoff.ts). Arrival times have jitter, and
  // so do the target's own (VIRTUAL) on a clock that also runs in real time: the same tolerance for both.
  if (intervals.length >= 2)
    req(
      'WEBHOOK-BACKOFF-EXPONENTIAL',
      `server5xx: intervals ${intervals.map((i) => Math.round(i / 1000)).join(', ')} s grow ` +
        '(the last longer than the first, none shorter than half the one before)',
      intervalsGrow(intervals, ARRIVAL_JITTER_MS),
    );
  else if (VIRTUAL)
    req('WEBHOOK-BACKOFF-EXPONENTIAL', `server5xx: at least 3 attempts to see intervals (saw ${attempts})`, false);
  if (VIRTUAL) {
    // Auto-disable counts the failures in a row of every delivery to the hook (another event of the
    // account may fail there too), and the subscription is then gone for DELETE.
    const inARow = consecutiveFailures(record);
    req(
      'WEBHOOK-AUTO-DISABLE-10',
      `server5xx: disabled after exactly ${AUTO_DISABLE_AFTER} failures in a row (saw ${inARow}, ` +
        `${attempts} of the probe's event)`,
      inARow === AUTO_DISABLE_AFTER && attempts >= 1,
    );
    req(
      'WEBHOOK-AUTO-DISABLE-10',
      `server5xx: DELETE after ${AUTO_DISABLE_AFTER} failures answers 404 (got ${deleteStatus})`,
      deleteStatus === 404,
    );
  } else if (attempts >= AUTO_DISABLE_AFTER) {
    req(
      'WEBHOOK-AUTO-DISABLE-10',
      `server5xx: no attempt after the ${AUTO_DISABLE_AFTER}th (saw ${attempts}), ` +
        `DELETE answers 404 (got ${deleteStatus})`,
      attempts === AUTO_DISABLE_AFTER && deleteStatus === 404,
    );
  }
}

/** timeout (no answer ×2, then 200): retried after no answer, then delivered. */
function judgeTimeout({ received, attempts }: Seen): void {
  const delivered = received.some((d) => d.answeredStatus === 200);
  const timedOut = received.length > 0 && received[0]?.answeredStatus === 'no-answer';
  if (VIRTUAL || attempts > 1)
    req(
      'WEBHOOK-TIMEOUT-RETRY',
      `timeout: retried after no answer and delivered (saw ${attempts} attempts)`,
      timedOut && attempts >= 3 && delivered,
    );
}

/** recover (503 ×9, then 200): delivered by the 10th attempt, the subscription still active. */
function judgeRecover({ record, delivery, others, attempts, deleteStatus }: Seen): void {
  // Other events' failures there count toward the nine: the probe's event may then get its 2xx sooner.
  req(
    'WEBHOOK-RECOVERY-BEFORE-10',
    `recover: delivered on attempt ${attempts} (${others.size === 0 ? '10' : 'at most 10'} expected)`,
    (others.size === 0 ? attempts === AUTO_DISABLE_AFTER : attempts <= AUTO_DISABLE_AFTER) &&
      delivery?.state === 'delivered',
  );
  req(
    'WEBHOOK-RECOVERY-BEFORE-10',
    `recover: subscription still active (status ${record?.status}, DELETE ${deleteStatus})`,
    record?.status === 'active' && deleteStatus === 204,
  );
}

/** Each plan's own verdicts, by its name. */
const PLAN_VERDICTS: Readonly<Record<string, (seen: Seen) => void>> = {
  ack: judgeAck,
  client4xx: judgeClient4xx,
  server5xx: judgeServer5xx,
  timeout: judgeTimeout,
  recover: judgeRecover,
};

export default function (): void {
  completed.add(0);
  const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;
  const hooks = createHooks(runId);
  if (hooks.length !== plans.length) return;
  const { eventIds: ours, callId } = trigger();
  if (VIRTUAL && ours.length === 0) return; // no event: nothing to drive (the probe check above failed)
  if (VIRTUAL) driveVirtual(hooks, ours);
  else watchRemote(hooks, callId);

  for (const hook of hooks) {
    const seen = observe(hook, ours, callId);
    chartAttempts(seen);
    judgeEveryPlan(seen, ours);
    const del = http.del(`${BASE_URL}/hooks/${hook.id}`, null, { headers: auth, tags: { name: 'DELETE /hooks/:id' } });
    PLAN_VERDICTS[seen.name]?.({ ...seen, deleteStatus: del.status });
  }
  for (let n = 1; n <= MAX_ATTEMPTS_CHARTED; n++)
    expectedAt.add((REFERENCE_FIRST_INTERVAL_MS * (2 ** (n - 1) - 1)) / 1000, { attempt: String(n) });
  completed.add(1);
}

export function handleSummary(data: SummaryData): Record<string, string> {
  const perPlan = plans.map((p) => {
    const attempts = value(data, `wh_attempts{plan:${p.name}}`);
    const atS = Array.from({ length: Math.min(attempts, MAX_ATTEMPTS_CHARTED) }, (_, i) =>
      value(data, `wh_attempt_at_s{plan:${p.name},attempt:${i + 1}}`, 'value'),
    );
    return { plan: p.name, responses: p.steps, attempts, attemptAtS: atS, intervalsS: intervalsOf(atS) };
  });
  const expected = Array.from({ length: MAX_ATTEMPTS_CHARTED }, (_, i) =>
    value(data, `wh_expected_at_s{attempt:${i + 1}}`, 'value'),
  );
  const notObserved = REQUIREMENTS.filter((r) => {
    const m = data.metrics[`checks{req:${r.id}}`];
    return m === undefined || (m.values.passes ?? 0) + (m.values.fails ?? 0) === 0;
  }).map((r) => r.id);
  const observations = {
    target: {
      reference: 'reference (virtual clock driven by /_reference/clock/advance)',
      control: "remote, deliveries driven in the target's virtual time (test-control protocol)",
      watch: `remote (watched for ${TIME_BUDGET_S} s)`,
    }[DRIVE],
    timeBase: VIRTUAL ? "the target's virtual ms (its attempt records)" : 'real arrival time at the receiver',
    plans: perPlan,
    'WEBHOOK-TIMEOUT-AND-BACKOFF-VALUES': { intervalsS: perPlan.find((p) => p.plan === 'server5xx')?.intervalsS ?? [] },
    notObserved,
  };
  const chart = {
    title: 'attempt times of each retried delivery vs the expected backoff',
    unit: 's after the first attempt',
    expected: { label: 'reference schedule: 60 s × 2', attemptAtS: expected },
    series: perPlan.filter((p) => p.attempts > 1).map((p) => ({ plan: p.plan, attemptAtS: p.attemptAtS })),
  };
  const lines = [
    ...perPlan.map(
      (p) =>
        `${p.plan.padEnd(9)} ${p.attempts} attempt(s)` +
        `${p.intervalsS.length ? `, intervals ${p.intervalsS.map((s) => Math.round(s)).join(', ')} s` : ''}`,
    ),
    ...(notObserved.length ? [`not observed: ${notObserved.join(', ')}`] : []),
  ];
  return buildSummary('webhook-retry', data, meta, { observations, chart, lines });
}
