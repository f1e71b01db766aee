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
 * Faults (reference/faults.ts describes them) override the points of `delivery` below, in
 * reference/faults/delivery.ts: the signature, the retry decision, the auto-disable threshold, the
 * backoff, the body of a retry, whether a disabled subscription is blocked, and the counter reset.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import packageJson from '../../package.json' with { type: 'json' };
import { limits } from '../../contract/openapi.ts';
import type { EventType } from '../../contract/openapi.ts';
import { SIGNATURE_HEADER, signPayload } from '../../contract/signature.ts';
import type { Clock } from '../clock.ts';
import { conformant, site, type Points } from '../points.ts';

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
  /** The points of `delivery` as faults and variants bend them (../points.ts); conformant by default. */
  points?: Pick<Points, 'of'>;
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
  /** The subscription's target URL the attempt goes to. */
  readonly url?: string;
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

const is4xx = (outcome: AttemptOutcome): boolean =>
  outcome.kind === 'status' && outcome.status >= 400 && outcome.status < 500;

/** Where faults and variants bend webhook delivery (reference/faults/delivery.ts). */
export const delivery = site('webhook delivery', {
  /** X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of `t.` + raw body, keyed with the secret>. */
  signature: ({ secret, seconds, body }: { secret: string; seconds: number; body: string }): string =>
    signPayload(secret, seconds, body),
  /** The fields of an attempt: JSON, our user agent, the signature (never the secret it is made with). */
  headers: ({ signature }: { signature: string; secret: string }): Record<string, string> => ({
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    [SIGNATURE_HEADER]: signature,
  }),
  /** The instant whose unix seconds sign an attempt: the wall clock at sending. */
  signedAt: ({ wall }: { virtual: number; wall: number }): number => wall,
  /** The body of an attempt: the same on every attempt (one event, one eventId). */
  body: ({ body }: { attempt: number; payload: Record<string, unknown>; body: string }): string => body,
  /** Whether a failed attempt is retried: a 4xx is permanent; 5xx, timeout, connection error, 1xx/3xx are not. */
  retried: (outcome: AttemptOutcome): boolean => !is4xx(outcome),
  /** The consecutive failures that disable a subscription. */
  disableAfter: (): number => AUTO_DISABLE_AFTER,
  /** Interval k (1-based) between attempt k and k+1: exponential. */
  interval: ({ k, backoff }: { k: number; backoff: BackoffOptions }): number =>
    backoff.firstIntervalMs * backoff.factor ** (k - 1),
  /** A disabled subscription gets nothing. */
  blocked: (subscription: Subscription): boolean => subscription.status === 'disabled',
  /** A 2xx resets the consecutive-failure counter. */
  successResets: (): boolean => true,
  /** The consecutive-failure count after a failed attempt, of whatever kind (4xx, 5xx, timeout): one more. */
  failuresAfter: ({ count }: { count: number; outcome: AttemptOutcome }): number => count + 1,
});

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
function attemptRequest(
  slips: AttemptSlips | undefined,
  unsigned: Omit<AttemptRequest, 'headers'>,
  headers: Record<string, string>,
) {
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
  return new WebhookDispatcher(options);
}

class WebhookDispatcher implements Dispatcher {
  readonly #clock: Clock;
  readonly #points: Pick<Points, 'of'>;
  readonly #timeoutMs: number;
  readonly #backoff: BackoffOptions;
  readonly #maxRecords: number;
  readonly #agent: Agent;
  /** What the post-hoc faults change in an attempt (../post-hoc-slips.ts); undefined: nothing. */
  readonly #attempt: AttemptSlips | undefined;
  /** Insertion order = dispatch order; used for eviction of finished records. */
  readonly #records = new Map<string, Internal>();
  #finishedCount = 0;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(options: DispatcherOptions) {
    this.#clock = options.clock;
    this.#points = options.points ?? conformant;
    this.#attempt = options.attempt;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 1)
      throw new RangeError('timeoutMs must be a finite number >= 1 (real ms)');
    this.#timeoutMs = timeoutMs;
    this.#backoff = validateBackoff(options.backoff ?? DEFAULT_BACKOFF);
    const maxRecords = options.maxRecords ?? DEFAULT_MAX_RECORDS;
    if (!Number.isSafeInteger(maxRecords) || maxRecords < 1) throw new RangeError('maxRecords must be an integer >= 1');
    this.#maxRecords = maxRecords;
    this.#agent = new Agent({
      // `ca` replaces the platform root store: exactly these CAs are trusted, no others.
      connect: { ca: [...(options.trustedCaPem ?? [])], timeout: timeoutMs * BACKSTOP_FACTOR },
      headersTimeout: timeoutMs * BACKSTOP_FACTOR,
      bodyTimeout: timeoutMs * BACKSTOP_FACTOR,
    });
  }

  /** The points of delivery as the faults and variants on now bend them. */
  get #at() {
    return this.#points.of(delivery);
  }

  #finish(d: Internal, state: Exclude<DeliveryState, 'pending'>): void {
    if (d.timer !== undefined) this.#clock.clearTimer(d.timer);
    d.timer = undefined;
    delete d.record.nextAttemptAt;
    if (isTerminal(d.record.state)) return;
    d.record.state = state;
    this.#finishedCount++;
    this.#evict();
  }

  #evict(): void {
    if (this.#finishedCount <= this.#maxRecords) return;
    for (const [id, d] of this.#records) {
      if (this.#finishedCount <= this.#maxRecords) break;
      if (isTerminal(d.record.state)) {
        this.#records.delete(id);
        this.#finishedCount--;
      }
    }
  }

  /** Ends the waiting retries of `sub`'s other deliveries; `current` decides for itself. */
  #abandonPendingOf(sub: Subscription, current: Internal): void {
    if (!this.#at.blocked(sub)) return;
    for (const d of this.#records.values()) {
      // In-flight attempts complete; their outcome handler sees the status.
      if (d !== current && d.subscription === sub && d.record.state === 'pending' && d.inFlight === undefined)
        this.#finish(d, 'abandoned_disabled');
    }
  }

  #recordFailure(d: Internal, outcome: AttemptOutcome): void {
    const sub = d.subscription;
    sub.consecutiveFailures = this.#at.failuresAfter({ count: sub.consecutiveFailures, outcome });
    if (sub.status === 'active' && sub.consecutiveFailures >= this.#at.disableAfter()) {
      sub.status = 'disabled';
      sub.disabledReason = 'auto_disabled';
      this.#abandonPendingOf(sub, d);
    }
  }

  #runAttempt(d: Internal): void {
    d.timer = undefined;
    delete d.record.nextAttemptAt;
    if (this.#closed || isTerminal(d.record.state) || d.inFlight !== undefined) return;
    const sub = d.subscription;
    const point = this.#at;
    if (point.blocked(sub)) {
      this.#finish(d, 'abandoned_disabled');
      return;
    }
    const at = this.#clock.now();
    if (d.firstAttemptAt !== undefined && at - d.firstAttemptAt > RETRY_HORIZON_MS) {
      this.#finish(d, 'gave_up');
      return;
    }
    if (d.record.attempts.length >= MAX_ATTEMPTS_PER_DELIVERY) {
      this.#finish(d, 'gave_up');
      return;
    }
    d.firstAttemptAt ??= at;

    const attempt = d.record.attempts.length + 1;
    const wallAt = Date.now();
    const body = point.body({ attempt, payload: d.record.payload, body: d.body });
    const signedAtMs = point.signedAt({ virtual: at, wall: wallAt });
    const signature = point.signature({ secret: sub.secret, seconds: Math.floor(signedAtMs / 1000), body });
    const headers = point.headers({ signature, secret: sub.secret });
    const sent = attemptRequest(this.#attempt, { body, secret: sub.secret, signedAtMs, url: sub.targetUrl }, headers);
    const abort = new AbortController();
    const started = performance.now();
    const promise = this.#send(d.subscription.targetUrl, sent.headers, sent.body, abort).then((answer) => {
      d.inFlight = undefined;
      if (answer === undefined) return; // aborted by close(): not an attempt that happened
      const outcome = this.#attempt?.outcome(answer, sub) ?? answer;
      d.record.attempts.push({ attempt, at, wallAt, outcome, durationMs: Math.round(performance.now() - started) });
      this.#settle(d, outcome);
    });
    d.inFlight = { promise, abort };
  }

  /** One HTTP attempt; never rejects. undefined when aborted by close(). */
  async #send(
    url: string,
    headers: Record<string, string>,
    body: string,
    abort: AbortController,
  ): Promise<AttemptOutcome | undefined> {
    let timedOut = false;
    const cancelDeadline = runningTimeDeadline(this.#timeoutMs, () => {
      timedOut = true;
      abort.abort(new Error('attempt deadline'));
    });
    try {
      const res = await request(url, { dispatcher: this.#agent, method: 'POST', headers, body, signal: abort.signal });
      // Read and discard the answer so the connection can be reused; its errors don't matter.
      await res.body.dump({ limit: RESPONSE_DUMP_LIMIT }).catch(() => undefined);
      return { kind: 'status', status: res.statusCode };
    } catch (e) {
      if (timedOut) return { kind: 'timeout' };
      if (this.#closed) return undefined;
      const { timeout, message } = describeError(e);
      return timeout ? { kind: 'timeout' } : { kind: 'connection_error', message };
    } finally {
      cancelDeadline();
    }
  }

  #settle(d: Internal, outcome: AttemptOutcome): void {
    const sub = d.subscription;
    if (outcome.kind === 'status' && outcome.status >= 200 && outcome.status < 300) {
      if (this.#at.successResets()) sub.consecutiveFailures = 0;
      this.#finish(d, 'delivered');
      return;
    }
    const retry = this.#at.retried(outcome);
    this.#recordFailure(d, outcome);
    if (isTerminal(d.record.state)) return;
    if (!retry) {
      this.#finish(d, 'failed_permanent');
      return;
    }
    if (this.#at.blocked(sub)) {
      this.#finish(d, 'abandoned_disabled');
      return;
    }
    if (d.record.attempts.length >= MAX_ATTEMPTS_PER_DELIVERY) {
      this.#finish(d, 'gave_up');
      return;
    }
    const first = d.firstAttemptAt as number;
    let nextAt = first;
    for (let k = 1; k <= d.record.attempts.length; k++) nextAt += this.#at.interval({ k, backoff: this.#backoff });
    if (nextAt - first > RETRY_HORIZON_MS) {
      this.#finish(d, 'gave_up');
      return;
    }
    if (this.#closed) return;
    d.record.nextAttemptAt = nextAt;
    d.timer = this.#clock.setTimer(nextAt, () => this.#runAttempt(d));
  }

  dispatch(subscription: Subscription, payload: Record<string, unknown>): DeliveryRecord {
    if (this.#closed) throw new Error('dispatch() after close(): the dispatcher is closed');
    const eventId = payload.eventId;
    if (typeof eventId !== 'string' || eventId === '')
      throw new TypeError('payload.eventId must be a non-empty string');
    const record: DeliveryRecord = {
      id: randomUUID(),
      hookId: subscription.id,
      event: subscription.event,
      eventId,
      payload,
      createdAt: this.#clock.now(),
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
    this.#records.set(record.id, d);
    const refused = httpsTargetError(subscription.targetUrl);
    if (refused !== undefined) {
      record.error = refused;
      this.#finish(d, 'failed_permanent');
      return record;
    }
    this.#runAttempt(d);
    return record;
  }

  deliveries(hookId?: string): DeliveryRecord[] {
    const out: DeliveryRecord[] = [];
    for (const d of this.#records.values()) if (hookId === undefined || d.record.hookId === hookId) out.push(d.record);
    return out;
  }

  async idle(): Promise<void> {
    for (let round = 0; round < IDLE_MAX_ROUNDS; round++) {
      const flying: Promise<void>[] = [];
      let due = false;
      const now = this.#clock.now();
      for (const d of this.#records.values()) {
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

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      const flying: Promise<void>[] = [];
      for (const d of this.#records.values()) {
        if (d.timer !== undefined) this.#clock.clearTimer(d.timer);
        d.timer = undefined;
        delete d.record.nextAttemptAt;
        if (d.inFlight) {
          flying.push(d.inFlight.promise);
          d.inFlight.abort.abort(new Error('dispatcher closed'));
        }
      }
      await Promise.all(flying);
      await this.#agent.destroy().catch(() => undefined);
    })();
    return this.#closing;
  }
}
