/**
 * Webhook delivery of the reference server (spec, Events › Delivery rules; States › Webhook
 * subscription; Limits).
 *
 * The spec fixes: POST + JSON body, `X-Service-Signature: t=<unix>,v1=<hex>` over `t.` + raw
 * body keyed with the subscription secret, any 2xx acknowledges, 4xx is permanent, 5xx or
 * timeout is retried with exponential backoff for up to 24 hours, 10 consecutive failures
 * disable the endpoint. It leaves open the timeout and the backoff intervals; the reference
 * chooses (these are the numbers docs/decisions.md documents):
 *
 *   Timeout            DEFAULT_TIMEOUT_MS = 5000 REAL ms per attempt, covering connect + TLS +
 *                      request + response headers + body (an overall deadline, with undici's
 *                      connect/headers/body timeouts as backstops at BACKSTOP_FACTOR times it).
 *                      It is real time, not virtual: the network doesn't run on the scaled clock.
 *                      It counts the time this process was running, not time it was paused (a
 *                      busy host that descheduled it, an event loop held by other work): the
 *                      receiver often lives in this same process (the embedded run's), and a
 *                      pause that delays its answer delays the deadline alike, so an ordinary
 *                      delivery never times out for the machine's sake (runningTimeDeadline).
 *   Backoff            DEFAULT_BACKOFF = 60 s × 2, in VIRTUAL ms. Interval k (between attempt k
 *                      and k+1) = firstIntervalMs × factor^(k−1). Attempt n+1 is scheduled at
 *                      first-attempt time + the sum of the first n intervals (scheduled times, so
 *                      timer jitter doesn't accumulate). Default schedule, from the first attempt:
 *                      0, 1 min, 3 min, 7 min, 15 min, 31 min, 63 min, ~2.1 h, ~4.3 h, ~8.5 h,
 *                      ~17 h (11 attempts); the 12th would be at ~34 h.
 *   Horizon            limits.webhookRetryHorizonHours (24 h, virtual). A retry whose scheduled
 *                      time is more than 24 h after the first attempt is not scheduled (state
 *                      gave_up); a retry whose timer fires more than 24 h after the first
 *                      attempt (a huge clock jump) is not made either. Exactly 24 h is allowed.
 *                      With the default schedule, auto-disable (10th failure, at ~8.5 h) comes
 *                      before the horizon for a single failing delivery.
 *   Failures           Every failed attempt counts toward auto-disable: 5xx, timeout, connection
 *                      error, other non-2xx statuses (1xx/3xx — redirects are not followed), AND
 *                      a 4xx (a permanent failure of that delivery, one failure of the endpoint).
 *                      At limits.webhookAutoDisableAfterConsecutiveFailures (10) the subscription
 *                      becomes disabled / auto_disabled and every pending retry of its deliveries
 *                      stops (abandoned_disabled). Any 2xx resets the counter to 0.
 *   Retried outcomes   5xx, timeout, connection error (refused, reset, TLS failure), 1xx/3xx.
 *                      A receiver that is down loses nothing: a refused connection is a retried
 *                      failure like a 5xx.
 *   Disabled           Checked before every attempt: a disabled subscription (deleted or auto-
 *                      disabled) gets no attempt; the delivery ends abandoned_disabled. An attempt
 *                      already in flight when the subscription is disabled completes; if it
 *                      fails it is not retried.
 *   Targets            https only (the API refuses others at creation; the dispatcher refuses
 *                      too: the delivery ends failed_permanent with no attempt and `error` set).
 *                      Trusted CAs: exactly `trustedCaPem` — the platform's root store is NOT
 *                      used, so with no CA configured no https target is trusted.
 *   Request            POST, `content-type: application/json`, `user-agent: USER_AGENT`,
 *                      `x-service-signature` signed with the WALL clock (unix seconds at sending,
 *                      so receivers can check freshness; the virtual clock under the variant
 *                      control-virtual-clock-signing), a fresh signature per attempt, the same
 *                      body (same eventId) on every attempt. Response bodies are read and
 *                      discarded (at most 64 KiB, then the connection is dropped).
 *   Bounds             At most one attempt in flight per delivery; at most MAX_ATTEMPTS_PER_DELIVERY
 *                      (100) attempts per delivery (then gave_up — unreachable with the default
 *                      schedule, which stops at 11); at most `maxRecords` (default
 *                      DEFAULT_MAX_RECORDS = 10,000) finished records kept, oldest finished ones
 *                      dropped first (pending ones are never dropped).
 *   close()            Cancels every timer, aborts in-flight requests (an aborted attempt is not
 *                      recorded and doesn't count as a failure; its delivery stays `pending` with
 *                      no nextAttemptAt) and destroys the undici Agent. dispatch() after close()
 *                      throws.
 *
 * The Subscription objects passed to dispatch() are the server's own records and are mutated in
 * place (consecutiveFailures, status, disabledReason); the server's DELETE sets status
 * `disabled` on the same object and the dispatcher sees it before the next attempt. Records
 * returned by dispatch() and deliveries() are live views: read them, don't write them.
 *
 * Faults (reference/faults.ts lists them; each is checked at its point of deviation):
 *   signature-without-timestamp  HMAC over the raw body only, still formatted t=…,v1=…
 *   signature-wrong-key          HMAC keyed with the secret minus its `whsec_` prefix
 *   retry-after-4xx              a 4xx is retried like a 5xx
 *   no-retry-after-5xx           a 5xx or a timeout is a permanent failure (connection errors
 *                                are still retried)
 *   no-auto-disable              the subscription is never disabled
 *   auto-disable-early           disabled after half the limit (5) consecutive failures
 *   backoff-constant             every interval is firstIntervalMs
 *   retries-new-event-id         every retry carries a fresh eventId (body differs per attempt)
 *   delivery-after-delete        disabled subscriptions still get attempts and retries
 *   nm-failure-counter-not-reset a 2xx leaves the consecutive-failure count where it was
 */
import { createHmac, randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import packageJson from '../../package.json' with { type: 'json' };
import { limits } from '../../contract/openapi.ts';
import type { EventType } from '../../contract/openapi.ts';
import { SIGNATURE_HEADER, signPayload } from '../../contract/signature.ts';
import type { Clock } from '../clock.ts';

export interface Subscription {
  id: string;
  accountId: string;
  event: EventType;
  targetUrl: string;
  secret: string;
  status: 'active' | 'disabled';
  disabledReason?: 'deleted' | 'auto_disabled';
  consecutiveFailures: number;
  createdAt: number;
}

export type AttemptOutcome =
  | { kind: 'status'; status: number }
  | { kind: 'timeout' }
  | { kind: 'connection_error'; message: string };

export interface DeliveryAttempt {
  /** 1-based. */
  attempt: number;
  /** Virtual ms at which the attempt started. */
  at: number;
  /** Date.now() at which the attempt started (its signature timestamp is this, in seconds). */
  wallAt: number;
  outcome: AttemptOutcome;
  /** Real ms from start to the response status (or the failure). */
  durationMs: number;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed_permanent' | 'gave_up' | 'abandoned_disabled';

export interface DeliveryRecord {
  id: string;
  hookId: string;
  event: EventType;
  eventId: string;
  payload: Record<string, unknown>;
  /** Virtual ms of dispatch(). */
  createdAt: number;
  attempts: DeliveryAttempt[];
  state: DeliveryState;
  /** Virtual ms of the scheduled retry, while one is scheduled. */
  nextAttemptAt?: number;
  /** Why the delivery ended without any attempt (a non-https or unparseable target). */
  error?: string;
}

export interface Dispatcher {
  dispatch(subscription: Subscription, payload: Record<string, unknown>): DeliveryRecord;
  deliveries(hookId?: string): DeliveryRecord[];
  /** Resolves when no attempt is in flight and none is due at the current virtual time. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface BackoffOptions {
  /** Interval between the first and second attempt, virtual ms (>= 1). */
  firstIntervalMs: number;
  /** Growth factor of each next interval (>= 1). */
  factor: number;
}

export interface DispatcherOptions {
  clock: Clock;
  faults: { has(id: string): boolean };
  /** Conformant variants (../variants.ts): control-virtual-clock-signing signs with the virtual clock. */
  variants?: { has(id: string): boolean };
  /** PEM CA certificates trusted for https targets; nothing else is trusted. */
  trustedCaPem?: string[];
  /** Real ms per attempt; default DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Virtual ms; default DEFAULT_BACKOFF. */
  backoff?: BackoffOptions;
  /** Finished records kept; default DEFAULT_MAX_RECORDS. */
  maxRecords?: number;
  /** What the post-hoc faults change in an attempt (../post-hoc-slips.ts); the identity when none is on. */
  attempt?: AttemptSlips;
}

/** The request of one attempt as it goes out, and its outcome as the dispatcher reads it. */
export interface AttemptSlips {
  request(sent: AttemptRequest): Pick<AttemptRequest, 'headers' | 'body'>;
  outcome(outcome: AttemptOutcome, subscription: Subscription): AttemptOutcome;
}

export interface AttemptRequest {
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly secret: string;
  /** The ms the signature's timestamp was taken from. */
  readonly signedAtMs: number;
}

export const DEFAULT_TIMEOUT_MS = 5_000;
/** undici's own timeouts, in wall time, only stop an attempt the deadline somehow let run on. */
const BACKSTOP_FACTOR = 10;
/** How often the deadline looks at the clock; a gap longer than two ticks is a pause, not running time. */
const DEADLINE_TICK_MS = 20;

/**
 * Calls `onExpire` once `timeoutMs` of running time has passed: each tick credits the real time
 * since the last one, at most two ticks' worth, so time the process spent paused does not count.
 * `onExpire` runs one turn of the event loop later, after pending I/O: an answer that arrived
 * during a pause is read before the attempt is given up. Returns a function that cancels it.
 */
export function runningTimeDeadline(timeoutMs: number, onExpire: () => void): () => void {
  let credited = 0;
  let last = performance.now();
  let expiring: ReturnType<typeof setImmediate> | undefined;
  const ticker = setInterval(
    () => {
      const now = performance.now();
      credited += Math.min(now - last, 2 * DEADLINE_TICK_MS);
      last = now;
      if (credited < timeoutMs) return;
      clearInterval(ticker);
      expiring = setImmediate(onExpire);
    },
    Math.min(DEADLINE_TICK_MS, timeoutMs),
  );
  return () => {
    clearInterval(ticker);
    if (expiring !== undefined) clearImmediate(expiring);
  };
}
export const DEFAULT_BACKOFF: Readonly<BackoffOptions> = Object.freeze({ firstIntervalMs: 60_000, factor: 2 });
export const DEFAULT_MAX_RECORDS = 10_000;
export const MAX_ATTEMPTS_PER_DELIVERY = 100;
export const RETRY_HORIZON_MS = limits.webhookRetryHorizonHours * 60 * 60 * 1000;
export const AUTO_DISABLE_AFTER = limits.webhookAutoDisableAfterConsecutiveFailures;
export const USER_AGENT = `outbound-calling-reference-server/${packageJson.version} (webhook dispatcher)`;
/** Response bodies are discarded; past this many bytes the connection is dropped. */
const RESPONSE_DUMP_LIMIT = 64 * 1024;
/** Bound on idle()'s waiting rounds (each waits for in-flight attempts or a due timer). */
const IDLE_MAX_ROUNDS = 10_000;

/** The fault ids this module implements (reference/faults.ts describes them). */
export const DISPATCHER_FAULT_IDS = [
  'signature-without-timestamp',
  'signature-wrong-key',
  'retry-after-4xx',
  'no-retry-after-5xx',
  'no-auto-disable',
  'auto-disable-early',
  'backoff-constant',
  'retries-new-event-id',
  'delivery-after-delete',
  'nm-failure-counter-not-reset',
] as const;
export type DispatcherFaultId = (typeof DISPATCHER_FAULT_IDS)[number];

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

interface Internal {
  record: DeliveryRecord;
  subscription: Subscription;
  /** The JSON body sent on every attempt (except under retries-new-event-id). */
  body: string;
  firstAttemptAt: number | undefined;
  timer: symbol | undefined;
  inFlight: { promise: Promise<void>; abort: AbortController } | undefined;
}

/** One attempt's request, signed, as the post-hoc slips send it (as signed when none is on). */
function attemptRequest(slips: AttemptSlips | undefined, unsigned: Omit<AttemptRequest, 'headers'>, signature: string) {
  const headers = { 'content-type': 'application/json', 'user-agent': USER_AGENT, [SIGNATURE_HEADER]: signature };
  const signed = { ...unsigned, headers };
  return slips?.request(signed) ?? signed;
}

function isTerminal(state: DeliveryState): boolean {
  return state !== 'pending';
}

function validateBackoff(b: BackoffOptions): BackoffOptions {
  if (!Number.isFinite(b.firstIntervalMs) || b.firstIntervalMs < 1)
    throw new RangeError('backoff.firstIntervalMs must be a finite number >= 1 (virtual ms)');
  if (!Number.isFinite(b.factor) || b.factor < 1) throw new RangeError('backoff.factor must be a finite number >= 1');
  return { firstIntervalMs: b.firstIntervalMs, factor: b.factor };
}

function httpsTargetError(targetUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(targetUrl);
  } catch {
    return 'target_url is not a valid URL; nothing was sent';
  }
  if (url.protocol !== 'https:') {
    const scheme = url.protocol.replace(/:$/, '');
    return `target_url uses ${scheme}, not https; the dispatcher only delivers to https targets`;
  }
  return undefined;
}

function describeError(e: unknown): { timeout: boolean; message: string } {
  const err = e as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  const code = typeof err?.code === 'string' ? err.code : undefined;
  if (code !== undefined && TIMEOUT_CODES.has(code)) return { timeout: true, message: code };
  // Prefer the socket-level cause (ECONNREFUSED, ECONNRESET, a TLS verification error).
  const cause = err?.cause as { code?: unknown; message?: unknown } | undefined;
  const causeCode = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = [code, causeCode, typeof err?.message === 'string' ? err.message : String(e)]
    .filter(Boolean)
    .join(': ');
  return { timeout: false, message };
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { clock, faults } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs < 1)
    throw new RangeError('timeoutMs must be a finite number >= 1 (real ms)');
  const backoff = validateBackoff(options.backoff ?? DEFAULT_BACKOFF);
  const maxRecords = options.maxRecords ?? DEFAULT_MAX_RECORDS;
  if (!Number.isSafeInteger(maxRecords) || maxRecords < 1) throw new RangeError('maxRecords must be an integer >= 1');

  const agent = new Agent({
    // `ca` replaces the platform root store: exactly these CAs are trusted, no others.
    connect: { ca: [...(options.trustedCaPem ?? [])], timeout: timeoutMs * BACKSTOP_FACTOR },
    headersTimeout: timeoutMs * BACKSTOP_FACTOR,
    bodyTimeout: timeoutMs * BACKSTOP_FACTOR,
  });

  /** Insertion order = dispatch order; used for eviction of finished records. */
  const records = new Map<string, Internal>();
  let finishedCount = 0;
  let closed = false;

  function disableAfter(): number {
    return faults.has('auto-disable-early') ? Math.floor(AUTO_DISABLE_AFTER / 2) : AUTO_DISABLE_AFTER;
  }

  /** Interval k (1-based) between attempt k and k+1. */
  function interval(k: number): number {
    if (faults.has('backoff-constant')) return backoff.firstIntervalMs;
    return backoff.firstIntervalMs * backoff.factor ** (k - 1);
  }

  function finish(d: Internal, state: Exclude<DeliveryState, 'pending'>): void {
    if (d.timer !== undefined) clock.clearTimer(d.timer);
    d.timer = undefined;
    delete d.record.nextAttemptAt;
    if (isTerminal(d.record.state)) return;
    d.record.state = state;
    finishedCount++;
    evict();
  }

  function evict(): void {
    if (finishedCount <= maxRecords) return;
    for (const [id, d] of records) {
      if (finishedCount <= maxRecords) break;
      if (isTerminal(d.record.state)) {
        records.delete(id);
        finishedCount--;
      }
    }
  }

  /** A disabled subscription gets nothing, unless the delivery-after-delete fault is on. */
  function blockedByStatus(sub: Subscription): boolean {
    return sub.status === 'disabled' && !faults.has('delivery-after-delete');
  }

  /** Ends the waiting retries of `sub`'s other deliveries; `current` decides for itself. */
  function abandonPendingOf(sub: Subscription, current: Internal): void {
    if (!blockedByStatus(sub)) return;
    for (const d of records.values()) {
      // In-flight attempts complete; their outcome handler sees the status.
      if (d !== current && d.subscription === sub && d.record.state === 'pending' && d.inFlight === undefined)
        finish(d, 'abandoned_disabled');
    }
  }

  function recordFailure(d: Internal): void {
    const sub = d.subscription;
    sub.consecutiveFailures++;
    if (sub.status === 'active' && !faults.has('no-auto-disable') && sub.consecutiveFailures >= disableAfter()) {
      sub.status = 'disabled';
      sub.disabledReason = 'auto_disabled';
      abandonPendingOf(sub, d);
    }
  }

  function signatureFor(secret: string, wallSeconds: number, body: string): string {
    if (faults.has('signature-without-timestamp')) {
      // Deliberate deviation: the signed input lacks `t.`; the header still looks right.
      return `t=${wallSeconds},v1=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
    }
    const key = faults.has('signature-wrong-key') ? secret.replace(/^whsec_/, '') : secret;
    return signPayload(key, wallSeconds, body);
  }

  function bodyForAttempt(d: Internal, attempt: number): string {
    if (attempt > 1 && faults.has('retries-new-event-id')) {
      return JSON.stringify({ ...d.record.payload, eventId: randomUUID() });
    }
    return d.body;
  }

  function runAttempt(d: Internal): void {
    d.timer = undefined;
    delete d.record.nextAttemptAt;
    if (closed || isTerminal(d.record.state) || d.inFlight !== undefined) return;
    const sub = d.subscription;
    if (blockedByStatus(sub)) {
      finish(d, 'abandoned_disabled');
      return;
    }
    const at = clock.now();
    if (d.firstAttemptAt !== undefined && at - d.firstAttemptAt > RETRY_HORIZON_MS) {
      finish(d, 'gave_up');
      return;
    }
    if (d.record.attempts.length >= MAX_ATTEMPTS_PER_DELIVERY) {
      finish(d, 'gave_up');
      return;
    }
    d.firstAttemptAt ??= at;

    const attempt = d.record.attempts.length + 1;
    const wallAt = Date.now();
    const body = bodyForAttempt(d, attempt);
    const signedAt = options.variants?.has('control-virtual-clock-signing') === true ? at : wallAt;
    const signature = signatureFor(sub.secret, Math.floor(signedAt / 1000), body);
    const sent = attemptRequest(options.attempt, { body, secret: sub.secret, signedAtMs: signedAt }, signature);
    const abort = new AbortController();
    const started = performance.now();
    const promise = send(d.subscription.targetUrl, sent.headers, sent.body, abort).then((answer) => {
      d.inFlight = undefined;
      if (answer === undefined) return; // aborted by close(): not an attempt that happened
      const outcome = options.attempt?.outcome(answer, sub) ?? answer;
      d.record.attempts.push({ attempt, at, wallAt, outcome, durationMs: Math.round(performance.now() - started) });
      settle(d, outcome);
    });
    d.inFlight = { promise, abort };
  }

  /** One HTTP attempt; never rejects. undefined when aborted by close(). */
  async function send(
    url: string,
    headers: Record<string, string>,
    body: string,
    abort: AbortController,
  ): Promise<AttemptOutcome | undefined> {
    let timedOut = false;
    const cancelDeadline = runningTimeDeadline(timeoutMs, () => {
      timedOut = true;
      abort.abort(new Error('attempt deadline'));
    });
    try {
      const res = await request(url, { dispatcher: agent, method: 'POST', headers, body, signal: abort.signal });
      // Read and discard the answer so the connection can be reused; its errors don't matter.
      await res.body.dump({ limit: RESPONSE_DUMP_LIMIT }).catch(() => undefined);
      return { kind: 'status', status: res.statusCode };
    } catch (e) {
      if (timedOut) return { kind: 'timeout' };
      if (closed) return undefined;
      const { timeout, message } = describeError(e);
      return timeout ? { kind: 'timeout' } : { kind: 'connection_error', message };
    } finally {
      cancelDeadline();
    }
  }

  function settle(d: Internal, outcome: AttemptOutcome): void {
    const sub = d.subscription;
    if (outcome.kind === 'status' && outcome.status >= 200 && outcome.status < 300) {
      if (!faults.has('nm-failure-counter-not-reset')) sub.consecutiveFailures = 0;
      finish(d, 'delivered');
      return;
    }
    let retry: boolean;
    if (outcome.kind === 'status' && outcome.status >= 400 && outcome.status < 500) {
      retry = faults.has('retry-after-4xx');
    } else if ((outcome.kind === 'status' && outcome.status >= 500) || outcome.kind === 'timeout') {
      retry = !faults.has('no-retry-after-5xx');
    } else {
      retry = true; // connection error, 1xx, 3xx
    }
    recordFailure(d);
    if (isTerminal(d.record.state)) return;
    if (!retry) {
      finish(d, 'failed_permanent');
      return;
    }
    if (blockedByStatus(sub)) {
      finish(d, 'abandoned_disabled');
      return;
    }
    if (d.record.attempts.length >= MAX_ATTEMPTS_PER_DELIVERY) {
      finish(d, 'gave_up');
      return;
    }
    const first = d.firstAttemptAt as number;
    let nextAt = first;
    for (let k = 1; k <= d.record.attempts.length; k++) nextAt += interval(k);
    if (nextAt - first > RETRY_HORIZON_MS) {
      finish(d, 'gave_up');
      return;
    }
    if (closed) return;
    d.record.nextAttemptAt = nextAt;
    d.timer = clock.setTimer(nextAt, () => runAttempt(d));
  }

  function dispatch(subscription: Subscription, payload: Record<string, unknown>): DeliveryRecord {
    if (closed) throw new Error('dispatch() after close(): the dispatcher is closed');
    const eventId = payload.eventId;
    if (typeof eventId !== 'string' || eventId === '')
      throw new TypeError('payload.eventId must be a non-empty string');
    const record: DeliveryRecord = {
      id: randomUUID(),
      hookId: subscription.id,
      event: subscription.event,
      eventId,
      payload,
      createdAt: clock.now(),
      attempts: [],
      state: 'pending',
    };
    const d: Internal = {
      record,
      subscription,
      body: JSON.stringify(payload),
      firstAttemptAt: undefined,
      timer: undefined,
      inFlight: undefined,
    };
    records.set(record.id, d);
    const refused = httpsTargetError(subscription.targetUrl);
    if (refused !== undefined) {
      record.error = refused;
      finish(d, 'failed_permanent');
      return record;
    }
    runAttempt(d);
    return record;
  }

  function deliveries(hookId?: string): DeliveryRecord[] {
    const out: DeliveryRecord[] = [];
    for (const d of records.values()) if (hookId === undefined || d.record.hookId === hookId) out.push(d.record);
    return out;
  }

  async function idle(): Promise<void> {
    for (let round = 0; round < IDLE_MAX_ROUNDS; round++) {
      const flying: Promise<void>[] = [];
      let due = false;
      const now = clock.now();
      for (const d of records.values()) {
        if (d.inFlight) flying.push(d.inFlight.promise);
        else if (d.record.state === 'pending' && d.record.nextAttemptAt !== undefined && d.record.nextAttemptAt <= now)
          due = true;
      }
      if (flying.length > 0) await Promise.all(flying);
      else if (due) await new Promise<void>((resolve) => setTimeout(resolve, 1));
      else return;
    }
    throw new Error(`idle(): the dispatcher was still busy after ${IDLE_MAX_ROUNDS} rounds`);
  }

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    closing ??= (async () => {
      closed = true;
      const flying: Promise<void>[] = [];
      for (const d of records.values()) {
        if (d.timer !== undefined) clock.clearTimer(d.timer);
        d.timer = undefined;
        delete d.record.nextAttemptAt;
        if (d.inFlight) {
          flying.push(d.inFlight.promise);
          d.inFlight.abort.abort(new Error('dispatcher closed'));
        }
      }
      await Promise.all(flying);
      await agent.destroy().catch(() => undefined);
    })();
    return closing;
  }

  return { dispatch, deliveries, idle, close };
}
