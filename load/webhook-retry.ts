/**
 * k6 probe of webhook delivery retries (spec, Events › Delivery rules; States › Webhook
 * subscription; Limits; requirements WEBHOOK-*). Run it with `npm run load:webhook-retry`
 * (load/run.ts starts the receiver, and the reference server unless API_BASE_URL is set).
 *
 *   BASE_URL             API base, …/v1             TOKEN          token with write:hooks (and write:calls remotely)
 *   RECEIVER_URL         the receiver, as k6 reaches it (its /_receiver/ query API, on its plain-HTTP
 *                        loopback query port)
 *   RECEIVER_PUBLIC_URL  the receiver, as the target reaches it (target_url prefix; default RECEIVER_URL)
 *   CONTROL_URL          the reference server's control API; empty against a remote target
 *   TIME_BUDGET_S        remote only: how long to watch deliveries (default 600)
 *   AGENT_ID, DESTINATION_NUMBER   remote only: POST /calls makes the call.ended event happen
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
 * Against the reference server the event comes from POST /_reference/events and time is driven
 * with POST /_reference/clock/advance (the runner freezes the virtual clock: scale 0) straight to
 * the next scheduled attempt, so hours of backoff take seconds. Attempt times are the
 * dispatcher's virtual ms from GET /_reference/hooks/:id. Against a remote target the event comes
 * from a real call (POST /calls) and the probe watches the receiver for TIME_BUDGET_S, judging
 * only what it could see (the rest is reported "not observed within the budget").
 *
 * Pass/fail: every check is tagged {req: <requirement id>} and each id has the threshold
 * `checks{req:<id>}: rate==1`; `probe_completed count==1` fails a run that stopped half-way
 * (an unobserved check would otherwise pass silently). Chart data: each attempt's time after
 * the first, per plan, next to the reference's documented schedule (60 s × 2).
 */
import http from 'k6/http';
import { check, sleep } from 'k6';
import { Counter, Gauge } from 'k6/metrics';
import type { Options } from 'k6/options';
import { positiveInt, text, trimSlash } from './lib/env.ts';
import type { SummaryData, ThresholdMeta } from './lib/junit.ts';
import { AUTO_DISABLE_AFTER, webhookRetryPlans, type Plan } from './lib/probe-shape.ts';
import { buildSummary, declareSubmetrics, value } from './lib/summary.ts';

const BASE_URL = trimSlash(text('BASE_URL'));
const TOKEN = text('TOKEN');
const RECEIVER_URL = trimSlash(text('RECEIVER_URL'));
const RECEIVER_PUBLIC_URL = trimSlash(text('RECEIVER_PUBLIC_URL', RECEIVER_URL));
const CONTROL_URL = trimSlash(text('CONTROL_URL', '-'));
const REFERENCE = CONTROL_URL !== '-';
const TIME_BUDGET_S = positiveInt('TIME_BUDGET_S', 600);
const EVENT = 'call.ended';

const HOUR_MS = 3_600_000;
const HORIZON_MS = 24 * HOUR_MS;
/** The reference's documented backoff (not the spec's: it shows no values): 60 s × 2. */
const REFERENCE_FIRST_INTERVAL_MS = 60_000;
const MAX_ATTEMPTS_CHARTED = 12;
/** Tolerance on remote arrival intervals (network and scheduling jitter; real backoffs are minutes). */
const ARRIVAL_JITTER_MS = 250;
/** Bounds of the drive loop against the reference (steps and real time). */
const MAX_DRIVE_STEPS = 60;
const DRIVE_BUDGET_MS = 40_000;
/** Remote polling. */
const POLL_INTERVAL_S = 5;

// The plans (and so the request count --dry-run --with-load gives) come from one place.
const plans: Plan[] = webhookRetryPlans(REFERENCE);

const REQUIREMENTS: Array<{ id: string; description: string }> = [
  { id: 'WEBHOOK-ACK-2XX', description: 'a 2xx answer ends the retries: exactly one attempt' },
  { id: 'WEBHOOK-4XX-NO-RETRY', description: 'a 4xx answer gets exactly one attempt' },
  { id: 'WEBHOOK-5XX-RETRY', description: 'a 5xx answer is retried, every retry correctly signed' },
  { id: 'WEBHOOK-TIMEOUT-RETRY', description: 'an unanswered delivery is retried, then delivered' },
  { id: 'WEBHOOK-BACKOFF-EXPONENTIAL', description: 'each interval at least as long as the one before, and growing' },
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
      maxDuration: REFERENCE ? '90s' : `${TIME_BUDGET_S + 120}s`,
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

interface ControlAttempt {
  attempt: number;
  at: number;
  outcome: { kind: string; status?: number };
}

interface ControlDelivery {
  hookId: string;
  eventId: string;
  state: string;
  attempts: ControlAttempt[];
  nextAttemptAt?: number;
}

interface ControlHook {
  status: string;
  disabledReason: string | null;
  consecutiveFailures: number;
  deliveries: ControlDelivery[];
}

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

function control<T>(method: 'GET' | 'POST', path: string, body?: unknown): T | undefined {
  const res = http.request(method, `${CONTROL_URL}${path}`, body === undefined ? null : JSON.stringify(body), {
    headers: json,
    tags: { name: `control ${path.replace(/[0-9a-f-]{36}/, ':id')}` },
    timeout: '15s',
  });
  return res.status === 200 ? parse<T>(res.body) : undefined;
}

function createHooks(runId: string): Hook[] {
  const hooks: Hook[] = [];
  for (const plan of plans) {
    const path = `/k6/${runId}/${plan.name}`;
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
    const put = http.put(
      `${RECEIVER_URL}/_receiver/paths?path=${encodeURIComponent(path)}`,
      JSON.stringify({ secret: created!.secret, plan: plan.steps }),
      { headers: json, tags: { name: 'receiver paths' } },
    );
    req('probe', `the receiver takes ${plan.name}'s secret and plan`, put.status === 200);
    hooks.push({ plan, id: created!.id, path });
  }
  return hooks;
}

/** Reference: every delivery of our hooks, driven to its end by jumping the virtual clock. */
function driveReference(hooks: Hook[]): { steps: number; finished: boolean } {
  const ids = new Set(hooks.map((h) => h.id));
  const deadline = Date.now() + DRIVE_BUDGET_MS;
  let steps = 0;
  let finished = false;
  while (steps < MAX_DRIVE_STEPS && Date.now() < deadline) {
    steps++;
    control('POST', '/idle');
    const all = control<{ deliveries: ControlDelivery[] }>('GET', '/deliveries')?.deliveries ?? [];
    const ours = all.filter((d) => ids.has(d.hookId));
    const pending = ours.filter((d) => d.state === 'pending');
    if (ours.length >= hooks.length && pending.length === 0) {
      finished = true;
      break;
    }
    const due = pending.map((d) => d.nextAttemptAt).filter((t): t is number => typeof t === 'number');
    if (due.length === 0) {
      sleep(0.05); // attempts in flight (a hanging receiver waits for the delivery timeout)
      continue;
    }
    const now = control<{ now: number }>('GET', '/clock')?.now ?? 0;
    control('POST', '/clock/advance', { ms: Math.max(0, Math.min(...due) - now) });
  }
  // Then a day and more passes: nothing that has ended may be attempted again.
  control('POST', '/clock/advance', { ms: HORIZON_MS + HOUR_MS });
  control('POST', '/idle');
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

/** Makes the event happen: its eventId (reference), or the callId of the call whose call.ended it is (remote). */
function trigger(): { eventId?: string; callId?: string } {
  if (REFERENCE) {
    const emitted = control<{ eventId: string; deliveries: number }>('POST', '/events', { event: EVENT });
    req(
      'probe',
      `POST /_reference/events reaches every subscription (${plans.length})`,
      emitted?.deliveries === plans.length,
    );
    return emitted === undefined ? {} : { eventId: emitted.eventId };
  }
  const res = http.post(
    `${BASE_URL}/calls`,
    JSON.stringify({ aiAgentId: text('AGENT_ID'), toNumber: text('DESTINATION_NUMBER') }),
    { headers: auth, tags: { name: 'POST /calls' } },
  );
  req('probe', 'POST /calls queues the call that makes the event happen', res.status === 200);
  const callId = parse<{ callId?: unknown }>(res.body)?.callId;
  return typeof callId === 'string' ? { callId } : {};
}

function intervalsOf(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - (times[i] as number));
}

export default function (): void {
  completed.add(0);
  const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;
  const hooks = createHooks(runId);
  if (hooks.length !== plans.length) return;
  const { eventId, callId } = trigger();
  if (REFERENCE) driveReference(hooks);
  else watchRemote(hooks, callId);

  for (const hook of hooks) {
    const name = hook.plan.name;
    const received = receiverDeliveries(hook.path, callId);
    const record = REFERENCE ? control<ControlHook>('GET', `/hooks/${hook.id}`) : undefined;
    const delivery = record?.deliveries[0];
    // Attempt times: the dispatcher's virtual ms (reference) or the receiver's arrival times.
    const times = REFERENCE ? (delivery?.attempts ?? []).map((a) => a.at) : received.map((d) => d.receivedAt);
    const attempts = times.length;
    attemptsSeen.add(attempts, { plan: name });
    for (const [i, t] of times.slice(0, MAX_ATTEMPTS_CHARTED).entries()) {
      attemptAt.add((t - (times[0] as number)) / 1000, { plan: name, attempt: String(i + 1) });
    }
    const intervals = intervalsOf(times);
    const eventIds = new Set(received.map((d) => d.eventId ?? '(none)'));
    const signed = received.length > 0 && received.every((d) => d.signature.ok);
    const sameEvent = received.length > 0 && eventIds.size === 1 && (eventId === undefined || eventIds.has(eventId));
    const withinHorizon = attempts === 0 || (times[attempts - 1] as number) - (times[0] as number) <= HORIZON_MS;
    // Remotely no watch of TIME_BUDGET_S sees an attempt 24 h later: that proves nothing (reported
    // "not observed"), so the verdict is the reference's virtual day alone (REFERENCE_ONLY_PROBE_REQUIREMENTS).
    if (attempts > 0 && REFERENCE)
      req('WEBHOOK-RETRY-HORIZON-24H', `${name}: last attempt within 24 h of the first`, withinHorizon);
    if (REFERENCE || attempts > 1)
      req(
        'WEBHOOK-RETRY-SAME-EVENT',
        `${name}: ${received.length} attempts, one eventId, all signatures valid`,
        sameEvent && signed,
      );

    const del = http.del(`${BASE_URL}/hooks/${hook.id}`, null, { headers: auth, tags: { name: 'DELETE /hooks/:id' } });
    switch (name) {
      case 'ack':
        req(
          'WEBHOOK-ACK-2XX',
          'ack: exactly one attempt, answered 2xx',
          attempts === 1 && received.length === 1 && (!REFERENCE || delivery?.state === 'delivered'),
        );
        break;
      case 'client4xx':
        req('WEBHOOK-4XX-NO-RETRY', `client4xx: exactly one attempt (saw ${attempts})`, attempts === 1);
        break;
      case 'server5xx': {
        if (REFERENCE || attempts > 1)
          req(
            'WEBHOOK-5XX-RETRY',
            `server5xx: retried (saw ${attempts} attempts), every attempt signed`,
            attempts >= 2 && signed,
          );
        if (intervals.length >= 2) {
          // Remote times are arrivals at the receiver, with network and scheduling jitter: an
          // interval counts as shrinking only when shorter than the one before by more than that.
          const jitterMs = REFERENCE ? 0 : ARRIVAL_JITTER_MS;
          const nonDecreasing = intervals.every((iv, i) => i === 0 || iv >= (intervals[i - 1] as number) - jitterMs);
          const growing = (intervals[intervals.length - 1] as number) > (intervals[0] as number);
          req(
            'WEBHOOK-BACKOFF-EXPONENTIAL',
            `server5xx: intervals ${intervals.map((i) => Math.round(i / 1000)).join(', ')} s never shrink and grow`,
            nonDecreasing && growing,
          );
        } else if (REFERENCE) {
          req(
            'WEBHOOK-BACKOFF-EXPONENTIAL',
            `server5xx: at least 3 attempts to see intervals (saw ${attempts})`,
            false,
          );
        }
        if (REFERENCE) {
          req(
            'WEBHOOK-AUTO-DISABLE-10',
            `server5xx: exactly ${AUTO_DISABLE_AFTER} attempts (saw ${attempts})`,
            attempts === AUTO_DISABLE_AFTER,
          );
          req(
            'WEBHOOK-AUTO-DISABLE-10',
            `server5xx: DELETE after ${AUTO_DISABLE_AFTER} failures answers 404 (got ${del.status})`,
            del.status === 404,
          );
        } else if (attempts >= AUTO_DISABLE_AFTER) {
          req(
            'WEBHOOK-AUTO-DISABLE-10',
            `server5xx: no attempt after the ${AUTO_DISABLE_AFTER}th (saw ${attempts}), ` +
              `DELETE answers 404 (got ${del.status})`,
            attempts === AUTO_DISABLE_AFTER && del.status === 404,
          );
        }
        break;
      }
      case 'timeout': {
        const delivered = received.some((d) => d.answeredStatus === 200);
        const timedOut = received.length > 0 && received[0]?.answeredStatus === 'no-answer';
        if (REFERENCE || attempts > 1)
          req(
            'WEBHOOK-TIMEOUT-RETRY',
            `timeout: retried after no answer and delivered (saw ${attempts} attempts)`,
            timedOut && attempts >= 3 && delivered,
          );
        break;
      }
      case 'recover':
        req(
          'WEBHOOK-RECOVERY-BEFORE-10',
          `recover: delivered on attempt ${attempts} (10 expected)`,
          attempts === AUTO_DISABLE_AFTER && delivery?.state === 'delivered',
        );
        req(
          'WEBHOOK-RECOVERY-BEFORE-10',
          `recover: subscription still active (status ${record?.status}, DELETE ${del.status})`,
          record?.status === 'active' && del.status === 204,
        );
        break;
      default:
        break;
    }
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
    target: REFERENCE
      ? 'reference (virtual clock driven by /_reference/clock/advance)'
      : `remote (watched for ${TIME_BUDGET_S} s)`,
    timeBase: REFERENCE ? 'virtual ms of the dispatcher' : 'real arrival time at the receiver',
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
