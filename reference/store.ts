/**
 * The reference server's mutable world: the seeded state, webhook subscriptions, simulated
 * calls, control switches, and event emission through the webhook dispatcher. Routes
 * (./routes/, ./control.ts, ./control-protocol.ts) read and change it; nothing here speaks HTTP.
 *
 * Time is the virtual clock (./clock.ts) everywhere except the rate limiter: CDR windows'
 * "now", token expiry, last-used stamps, call progress and event timestamps. The variant
 * control-real-time-stamps (./variants.ts) puts token expiry, last-used stamps and call progress
 * on real time instead, as control-openapi.json allows.
 *
 * Event payloads (spec, Events): the base fields callId, contactId, phone, dispositionCode,
 * actor; `eventId` (a UUID, unique per event; one event fanned out to several subscriptions
 * keeps one eventId, since it IS one event); `event` (the kind); and the timestamp, whose name
 * the spec does not show: OUR CHOICE is `occurredAt`, an ISO 8601 UTC date-time (requirement
 * EVENT-TIMESTAMP-FIELD is an OBSERVE). Per kind: call.ended durationSec, hangupReason,
 * sentimentLabel, transferInitiated; call.transferred transferTarget; disposition.set
 * terminal, triggersDnc; dnc.added and lead.completed the base fields only.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { EventType } from '../contract/openapi.ts';
import type { Clock } from './clock.ts';
import type { FaultSet } from './faults.ts';
import { conformant, site, type Points } from './points.ts';
import { VariantSet } from './variants.ts';
import { createDispatcher } from './webhooks/dispatcher.ts';
import type { AttemptSlips, Dispatcher, Subscription } from './webhooks/dispatcher.ts';
import { API_TOKEN_PREFIX, OAUTH_TOKEN_PREFIX, countryOf, createSeededState } from './seed.ts';
import type { AccountName, AgentRecord, CdrRecord, SeededState, TokenRecord } from './seed.ts';

export interface Switches {
  balanceUpstreamFails: boolean;
  originateFails: boolean;
  engineNotConfigured: boolean;
}

export type CallStatus = 'queued' | 'ringing' | 'answered' | 'ended';

export interface CallRecord {
  callId: string;
  account: AccountName;
  agentId: string;
  toNumber: string;
  status: CallStatus;
  /** Virtual ms of each status reached. */
  timeline: Array<{ status: CallStatus; at: string }>;
  cdrId?: string;
}

export interface StoreOptions {
  seed: number;
  clock: Clock;
  faults: FaultSet;
  /** Conformant variants (./variants.ts); none by default. */
  variants?: VariantSet;
  /** The points of ./calls and events as the faults bend them (./points.ts); conformant by default. */
  points?: Pick<Points, 'of'>;
  callDurationMs: number;
  trustedCaPem?: string[];
  deliveryTimeoutMs?: number;
  /** The post-hoc faults' changes to delivery attempts (./post-hoc-slips.ts). */
  attemptSlips?: AttemptSlips;
}

/** Where faults bend the simulated calls and the events: ./faults/events.ts. */
export const events = site('calls and events', {
  /** A new call's id: a UUID. */
  callId: (): string => randomUUID(),
  /** The callId of a call's call.ended: the one POST /calls returned. */
  endedCallId: (callId: string): string => callId,
  /** A new event's id: a UUID of its own. */
  eventId: (store: ReferenceStore): string => randomUUID(),
  /** An event's payload as built: the base fields, the kind's own, the fields given. */
  payload: (payload: Record<string, unknown>): Record<string, unknown> => payload,
  /** A subscription receives the events of its own kind. */
  subscribed: ({ hook, event }: { hook: Subscription; event: EventType }): boolean => hook.event === event,
  /** Only an active subscription receives anything. */
  live: (hook: Subscription): boolean => hook.status === 'active',
  /** The call detail record a call leaves when it ends. */
  cdrRow: ({ row }: { row: CdrRecord['row']; callId: string }): CdrRecord['row'] => row,
});

/** The backoff of the variant webhook-backoff-slow-start (./variants.ts): 12 min, then × 1.5. */
const SLOW_START_BACKOFF = { firstIntervalMs: 12 * 60_000, factor: 1.5 };

/** Bounds so a long load run can't grow memory without end. */
const MAX_CALLS_KEPT = 10_000;
const MAX_OAUTH_TOKENS = 50_000;

export class ReferenceStore {
  readonly options: StoreOptions;
  readonly clock: Clock;
  readonly faults: FaultSet;
  readonly variants: VariantSet;
  readonly points: Pick<Points, 'of'>;
  state: SeededState;
  hooks = new Map<string, Subscription>();
  calls = new Map<string, CallRecord>();
  switches: Switches = { balanceUpstreamFails: false, originateFails: false, engineNotConfigured: false };
  /** A switch that holds for one account only (control-account-states-apart); absent: every account. */
  switchAccounts: Partial<Record<keyof Switches, AccountName>> = {};
  dispatcher: Dispatcher;
  readonly #timers = new Set<symbol>();
  readonly #realTimers = new Set<ReturnType<typeof setTimeout>>();
  /** When each call in progress ends: on the virtual clock, or (control-real-time-stamps) real time. */
  readonly #callEnds = new Map<string, { real: boolean; at: number }>();

  constructor(options: StoreOptions) {
    this.options = options;
    this.clock = options.clock;
    this.faults = options.faults;
    this.variants = options.variants ?? new VariantSet();
    this.points = options.points ?? conformant;
    this.state = createSeededState(options.seed, this.clock.now());
    this.dispatcher = this.#newDispatcher();
  }

  #newDispatcher(): Dispatcher {
    return createDispatcher({
      clock: this.clock,
      points: this.points,
      ...(this.variants.has('webhook-backoff-slow-start') ? { backoff: SLOW_START_BACKOFF } : {}),
      ...(this.options.trustedCaPem !== undefined ? { trustedCaPem: this.options.trustedCaPem } : {}),
      ...(this.options.deliveryTimeoutMs !== undefined ? { timeoutMs: this.options.deliveryTimeoutMs } : {}),
      ...(this.options.attemptSlips !== undefined ? { attempt: this.options.attemptSlips } : {}),
    });
  }

  /** Back to the seeded state: hooks, calls, minted tokens and switches are forgotten. */
  async reset(): Promise<void> {
    this.#clearTimers();
    await this.dispatcher.close();
    this.state = createSeededState(this.options.seed, this.clock.now());
    this.hooks = new Map();
    this.calls = new Map();
    this.switches = { balanceUpstreamFails: false, originateFails: false, engineNotConfigured: false };
    this.switchAccounts = {};
    this.dispatcher = this.#newDispatcher();
  }

  /** Whether the switch holds for `account`. */
  failing(name: keyof Switches, account: AccountName): boolean {
    const only = this.switchAccounts[name];
    return this.switches[name] && (only === undefined || only === account);
  }

  /** The now of token expiry and last-used stamps. */
  tokenNow(): number {
    return this.variants.has('control-real-time-stamps') ? Date.now() : this.clock.now();
  }

  /** Real ms until the next call in progress ends (Infinity when none will without an advance). */
  realMsUntilNextCallEnd(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const end of this.#callEnds.values()) {
      const ms = end.real
        ? end.at - Date.now()
        : this.clock.scale === 0
          ? Number.POSITIVE_INFINITY
          : (end.at - this.clock.now()) / this.clock.scale;
      next = Math.min(next, Math.max(0, ms));
    }
    return next;
  }

  async close(): Promise<void> {
    this.#clearTimers();
    await this.dispatcher.close();
  }

  #clearTimers(): void {
    for (const t of this.#timers) this.clock.clearTimer(t);
    this.#timers.clear();
    for (const t of this.#realTimers) clearTimeout(t);
    this.#realTimers.clear();
    this.#callEnds.clear();
  }

  #at(atVirtualMs: number, fn: () => void): void {
    const handle = this.clock.setTimer(atVirtualMs, () => {
      this.#timers.delete(handle);
      try {
        fn();
      } catch {
        // A simulation step must never crash the server; the call simply stops progressing.
      }
    });
    this.#timers.add(handle);
  }

  /** `fn` after `ms` of real time (control-real-time-stamps' call progress). */
  #afterReal(ms: number, fn: () => void): void {
    const handle = setTimeout(() => {
      this.#realTimers.delete(handle);
      try {
        fn();
      } catch {
        // As #at: the call stops progressing.
      }
    }, ms);
    this.#realTimers.add(handle);
  }

  nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }

  // ── Tokens ──

  mintToken(
    account: AccountName,
    tokenScopes: readonly string[],
    kind: TokenRecord['kind'],
    label: string,
    expiresAt?: number,
  ): string {
    const prefix = kind === 'api' ? API_TOKEN_PREFIX : OAUTH_TOKEN_PREFIX;
    const token = `${prefix}${randomBytes(24).toString('base64url')}`;
    if (kind === 'oauth' && this.state.tokens.size > MAX_OAUTH_TOKENS) this.#sweepExpiredTokens();
    this.state.tokens.set(token, {
      token,
      account,
      scopes: new Set(tokenScopes),
      kind,
      label,
      expiresAt,
      revoked: false,
      lastUsedAt: undefined,
    });
    return token;
  }

  #sweepExpiredTokens(): void {
    const now = this.clock.now();
    for (const [token, record] of this.state.tokens) {
      if (record.kind === 'oauth' && record.expiresAt !== undefined && record.expiresAt <= now)
        this.state.tokens.delete(token);
    }
  }

  // ── CDRs ──

  #addCdr(account: AccountName, record: CdrRecord): void {
    const rows = this.state.cdrs.get(account)!;
    const at = lowerBound(rows, record.startMs + 1);
    rows.splice(at, 0, record);
  }

  // ── Calls ──

  /** Starts the simulated call: ringing, answered, ended after callDurationMs, then a CDR and call.ended. */
  originate(account: AccountName, agent: AgentRecord, toNumber: string): CallRecord {
    const at = this.points.of(events);
    const callId = at.callId();
    const t0 = this.clock.now();
    const call: CallRecord = {
      callId,
      account,
      agentId: agent.id,
      toNumber,
      status: 'queued',
      timeline: [{ status: 'queued', at: new Date(t0).toISOString() }],
    };
    if (this.calls.size >= MAX_CALLS_KEPT) {
      const oldest = this.calls.keys().next().value;
      if (oldest !== undefined) this.calls.delete(oldest);
    }
    this.calls.set(callId, call);
    const d = this.options.callDurationMs;
    const real = this.variants.has('control-real-time-stamps');
    const step = (status: CallStatus) => {
      call.status = status;
      call.timeline.push({ status, at: real ? new Date().toISOString() : this.nowIso() });
    };
    const after = (ms: number, fn: () => void) => (real ? this.#afterReal(ms, fn) : this.#at(t0 + ms, fn));
    this.#callEnds.set(callId, real ? { real, at: Date.now() + d } : { real, at: t0 + d });
    after(Math.floor(d * 0.1), () => step('ringing'));
    after(Math.floor(d * 0.3), () => step('answered'));
    after(d, () => {
      this.#callEnds.delete(callId);
      step('ended');
      const acct = this.state.accounts.get(account)!;
      const billsec = Math.round((d * 0.7) / 1000);
      const durationSec = Math.round(d / 1000);
      const cents = billsec > 0 ? Math.max(1, Math.ceil(billsec / 60)) : 0;
      const cdrId = String(this.state.nextCdrId++);
      call.cdrId = cdrId;
      this.#addCdr(account, {
        startMs: t0,
        row: at.cdrRow({
          callId,
          row: {
            id: cdrId,
            startTime: new Date(t0).toISOString(),
            duration: durationSec,
            billsec,
            src: acct.cli,
            dst: toNumber,
            disposition: 'ANSWERED',
            sipUsername: agent.sipUsername ?? '',
            sellPriceCents: cents,
            currency: acct.currency,
            country: countryOf(toNumber),
            did: null,
          },
        }),
      });
      acct.balance = Math.round((acct.balance - cents / 100) * 100) / 100;
      this.emit(account, 'call.ended', {
        callId: this.points.of(events).endedCallId(callId),
        phone: toNumber,
        dispositionCode: 'ANSWERED',
        actor: 'ai',
        durationSec,
        hangupReason: 'normal_clearing',
        sentimentLabel: 'neutral',
        transferInitiated: false,
      });
    });
    return call;
  }

  // ── Hooks and events ──

  createHook(account: AccountName, event: string, targetUrl: string): Subscription {
    const hook: Subscription = {
      id: randomUUID(),
      accountId: account,
      event: event as EventType,
      targetUrl,
      secret: `whsec_${randomBytes(24).toString('base64url')}`,
      status: 'active',
      consecutiveFailures: 0,
      createdAt: this.clock.now(),
    };
    this.hooks.set(hook.id, hook);
    return hook;
  }

  /** A full payload of `event`, defaults overridden by `fields`. */
  buildPayload(event: EventType, fields: Record<string, unknown>): Record<string, unknown> {
    const at = this.points.of(events);
    const base: Record<string, unknown> = {
      event,
      eventId: at.eventId(this),
      occurredAt: this.nowIso(),
      callId: randomUUID(),
      contactId: `ct_${randomBytes(6).toString('hex')}`,
      phone: '+14155550100',
      dispositionCode: 'ANSWERED',
      actor: 'ai',
    };
    const extra: Record<string, unknown> =
      event === 'call.ended'
        ? { durationSec: 42, hangupReason: 'normal_clearing', sentimentLabel: 'neutral', transferInitiated: false }
        : event === 'call.transferred'
          ? { transferTarget: '+14155550199' }
          : event === 'disposition.set'
            ? { terminal: true, triggersDnc: false }
            : {};
    return at.payload({ ...base, ...extra, ...fields, event });
  }

  /**
   * Emits one event to the account's active subscriptions of that kind; returns its eventId and the
   * deliveries started.
   */
  emit(
    account: AccountName,
    event: EventType,
    fields: Record<string, unknown>,
  ): { eventId: string; deliveries: number } {
    return this.#deliver(account, this.buildPayload(event, fields));
  }

  /**
   * The control-event-sets variant (./variants.ts): the requested event, then the rest of a call's
   * set (call.ended, disposition.set, lead.completed; one of each kind), all with its base fields.
   */
  emitSet(account: AccountName, event: EventType, fields: Record<string, unknown>): { eventIds: string[] } {
    const first = this.buildPayload(event, fields);
    const base = Object.fromEntries(
      ['callId', 'contactId', 'phone', 'dispositionCode', 'actor'].map((key) => [key, first[key]]),
    );
    const rest = (['call.ended', 'disposition.set', 'lead.completed'] as const).filter((kind) => kind !== event);
    const payloads = [first, ...rest.map((kind) => this.buildPayload(kind, base))];
    return { eventIds: payloads.map((payload) => this.#deliver(account, payload).eventId) };
  }

  #deliver(account: AccountName, payload: Record<string, unknown>): { eventId: string; deliveries: number } {
    const event = payload.event as EventType;
    const at = this.points.of(events);
    let deliveries = 0;
    // control-emitted-call-records: the call an emitted event speaks of gets a record (an ended call).
    const callId = payload.callId;
    if (this.variants.has('control-emitted-call-records') && typeof callId === 'string' && !this.calls.has(callId)) {
      const at = this.nowIso();
      this.calls.set(callId, {
        callId,
        account,
        agentId: '',
        toNumber: String(payload.phone),
        status: 'ended',
        timeline: [
          { status: 'queued', at },
          { status: 'ended', at },
        ],
      });
    }
    for (const hook of this.hooks.values()) {
      if (hook.accountId !== account) continue;
      if (!at.subscribed({ hook, event }) || !at.live(hook)) continue;
      this.dispatcher.dispatch(hook, payload);
      deliveries++;
    }
    return { eventId: String(payload.eventId), deliveries };
  }
}

/** Index of the first row with startMs ≥ ms. */
function lowerBound(rows: readonly CdrRecord[], ms: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid]!.startMs < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
