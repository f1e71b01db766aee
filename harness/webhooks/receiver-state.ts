/**
 * What the webhook receiver remembers: the registered paths (secret, response plan and where each
 * arrival is in it), the deliveries that arrived, and the eventIds already seen. No I/O; the
 * request handlers (./receiver-handlers.ts) read and write it, ./receiver.ts composes the two.
 *
 * Each Delivery keeps the request as received: `bodyBase64` (the exact bytes), `rawHeaders`
 * (names and values in arrival order, as Node reads them) beside the convenient `rawBody` (UTF-8)
 * and lower-cased `headers`, so a signature can be verified later, elsewhere, on the raw bytes.
 *
 * A path may be registered before its secret is known (reserved: the suite tells the receiver a
 * path before its URL goes out in POST /hooks, and the secret once POST /hooks answers). What
 * arrives meanwhile is kept with `beforeSecret` and `signature.reason` `secret_pending`;
 * `settleBeforeSecret` replaces those records with their verdicts once the secret comes.
 *
 * Memory: deliveries are kept in a ring buffer of `maxDeliveries` (default 10,000) so a load
 * test can't exhaust memory; older ones are dropped (seq keeps counting, so a gap is visible).
 * With `maxAgeMs`, deliveries and registrations older than that are forgotten too.
 * Registrations are capped at `maxPaths` (default 10,000; the oldest goes first).
 * Duplicate detection remembers the last `maxTrackedEventIds` (default 100,000) eventIds.
 */
import { DEFAULT_PLAN, type PlanCursor, type ResponsePlan, validatePath, validatePlan } from './receiver-plan.ts';

export interface Delivery {
  seq: number;
  path: string;
  method: string;
  receivedAt: number;
  headers: Record<string, string>;
  /** Header names and values in arrival order, as received (Node's rawHeaders, flattened pairs). */
  rawHeaders: string[];
  /** The body decoded as UTF-8, for reading; `bodyBase64` holds the exact bytes. */
  rawBody: string;
  bodyBase64: string;
  json: unknown;
  jsonError?: string;
  /**
   * `not_verified`: a store-only receiver (the suite verifies); `not_checked`: refused before;
   * `secret_pending`: arrived before its path's secret, not judged yet (`beforeSecret`).
   */
  signature: { ok: boolean; reason?: string; detail?: string; timestamp?: number };
  eventId?: string;
  duplicate: boolean;
  answeredStatus: number | 'no-answer';
  /** The `error` code of a refusal, absent when the plan answered. */
  error?: string;
  /**
   * It arrived on a reserved path before the path's secret: answered by the plan, and its
   * signature (then `json`, `eventId`, `duplicate`) judged once the secret came, against the time
   * it arrived, as if it had arrived after.
   */
  beforeSecret?: true;
}

/** Fixed-capacity log: O(1) append, oldest entries overwritten. */
class RingLog<T> {
  readonly capacity: number;
  private items: Array<T | undefined>;
  private head = 0;
  private size = 0;
  constructor(capacity: number) {
    this.capacity = capacity;
    this.items = new Array<T | undefined>(capacity);
  }
  push(item: T): void {
    this.items[(this.head + this.size) % this.capacity] = item;
    if (this.size < this.capacity) this.size++;
    else this.head = (this.head + 1) % this.capacity;
  }
  /** Drops entries from the oldest end while `stale` holds (entries are in arrival order). */
  dropWhile(stale: (item: T) => boolean): void {
    while (this.size > 0 && stale(this.items[this.head] as T)) {
      this.items[this.head] = undefined;
      this.head = (this.head + 1) % this.capacity;
      this.size--;
    }
  }
  /** Replaces, oldest first, each entry `pick` holds for with what `update` makes of it. */
  replace(pick: (item: T) => boolean, update: (item: T) => T): void {
    for (let i = 0; i < this.size; i++) {
      const at = (this.head + i) % this.capacity;
      const item = this.items[at] as T;
      if (pick(item)) this.items[at] = update(item);
    }
  }
  toArray(filter?: (item: T) => boolean): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.size; i++) {
      const item = this.items[(this.head + i) % this.capacity] as T;
      if (!filter || filter(item)) out.push(item);
    }
    return out;
  }
  clear(): void {
    this.items = new Array<T | undefined>(this.capacity);
    this.head = 0;
    this.size = 0;
  }
}

/** Insertion-ordered set that forgets its oldest member past capacity. */
class BoundedSet {
  private readonly capacity: number;
  private readonly set = new Set<string>();
  constructor(capacity: number) {
    this.capacity = capacity;
  }
  /** Adds the key; returns true when it was already there. */
  seen(key: string): boolean {
    if (this.set.has(key)) return true;
    this.set.add(key);
    if (this.set.size > this.capacity) this.set.delete(this.set.values().next().value as string);
    return false;
  }
  clear(): void {
    this.set.clear();
  }
}

export interface Registration {
  secret: string | undefined;
  cursor: PlanCursor;
  /** The plan per eventId (perEvent), oldest first; bounded by MAX_EVENT_CURSORS. */
  byEvent: Map<string, PlanCursor> | undefined;
  registeredAt: number;
  /** Deliveries kept before the secret and not settled yet (none: nothing to look for in the log). */
  awaiting: number;
}

/** Events a perEvent registration keeps a plan position for; the oldest is forgotten first. */
const MAX_EVENT_CURSORS = 1_000;

/** The plan position an arrival takes its answer from: its event's own under perEvent, else the path's. */
export function cursorFor(reg: Registration, eventId: string | undefined): PlanCursor {
  if (reg.byEvent === undefined || eventId === undefined) return reg.cursor;
  let cursor = reg.byEvent.get(eventId);
  if (cursor === undefined) {
    cursor = { plan: reg.cursor.plan, index: 0, usedInStep: 0 };
    reg.byEvent.set(eventId, cursor);
    if (reg.byEvent.size > MAX_EVENT_CURSORS) reg.byEvent.delete(reg.byEvent.keys().next().value as string);
  }
  return cursor;
}

/** A delivery as the handler knows it: the body as bytes; the log keeps its wire form. */
export type Stored = Omit<Delivery, 'rawBody' | 'bodyBase64'> & { body: Buffer };

function toDelivery(stored: Stored): Delivery {
  const { body, ...rest } = stored;
  return { ...rest, rawBody: body.toString('utf8'), bodyBase64: body.toString('base64') };
}

/** A path's registration as given: each field replaces the one registered, absent ones stay. */
export interface PathSetup {
  secret?: string;
  plan?: ResponsePlan;
  /** Each eventId takes the plan from its first step (default: one plan for the path's arrivals). */
  perEvent?: boolean;
}

/** A registration as the query API shows it: never the secret, only whether there is one. */
export interface PathView {
  path: string;
  hasSecret: boolean;
  plan: ResponsePlan;
  perEvent: boolean;
}

/** The bounds of the state, resolved (./receiver.ts gives the defaults), and whether it takes secrets. */
export interface StateSettings {
  readonly maxDeliveries: number;
  readonly maxTrackedEventIds: number;
  readonly maxPaths: number;
  /** Forget deliveries and registrations older than this; undefined: never. */
  readonly maxAgeMs: number | undefined;
  readonly storeOnly: boolean;
}

export interface ReceiverState {
  /** The registered paths in (re)registration order; read after `expire()`. */
  readonly registrations: ReadonlyMap<string, Registration>;
  /** Registers `path` or updates the fields `setup` gives; throws TypeError on invalid input. */
  register(path: string, setup: PathSetup): void;
  /** A new plan for a registered path, from its first step; throws TypeError on an unregistered one. */
  setPlan(path: string, plan: ResponsePlan): void;
  /** A registered path as the query API shows it. */
  describe(path: string): PathView;
  /** Whether `eventId` already arrived at `path` (among the last maxTrackedEventIds); remembers it. */
  seen(path: string, eventId: string): boolean;
  /** Logs a delivery under the next seq. */
  record(d: Omit<Stored, 'seq'>): void;
  /**
   * Once `path` has a secret: each delivery kept before it, oldest first, becomes `judge`'s
   * verdict on it (deliveries the ring buffer or maxAgeMs already dropped are gone).
   */
  settleBeforeSecret(path: string, judge: (d: Delivery) => Delivery): void;
  /** The deliveries kept, in seq order: of `path` if given, after seq `since`. */
  deliveries(path?: string, since?: number): Delivery[];
  /** Forgets the deliveries and the eventIds seen; registrations stay. */
  clear(): void;
  /** Age-based expiry, applied lazily on every write and read: nothing runs in the background. */
  expire(): void;
}

export function createReceiverState(settings: StateSettings): ReceiverState {
  const { maxPaths, maxAgeMs, storeOnly } = settings;
  const registrations = new Map<string, Registration>();
  const log = new RingLog<Delivery>(settings.maxDeliveries);
  const seenEvents = new BoundedSet(settings.maxTrackedEventIds);
  let seq = 0;

  function expire(): void {
    if (maxAgeMs === undefined) return;
    const cutoff = Date.now() - maxAgeMs;
    log.dropWhile((d) => d.receivedAt < cutoff);
    for (const [path, r] of registrations) {
      if (r.registeredAt >= cutoff) break; // Map order is (re)registration order
      registrations.delete(path);
    }
  }

  function register(path: string, setup: PathSetup): void {
    const p = validatePath(path);
    if (!p.ok) throw new TypeError(p.message);
    if (setup.secret !== undefined && (typeof setup.secret !== 'string' || setup.secret === '')) {
      throw new TypeError('secret must be a non-empty string');
    }
    if (setup.secret !== undefined && storeOnly)
      throw new TypeError('this receiver is store-only: it never takes a secret (the suite verifies signatures)');
    const plan = setup.plan === undefined ? undefined : validatePlan(setup.plan);
    if (plan && !plan.ok) throw new TypeError(plan.message);
    expire();
    const existing = registrations.get(path);
    const secret = setup.secret ?? existing?.secret;
    const cursor = plan
      ? { plan: plan.value, index: 0, usedInStep: 0 }
      : (existing?.cursor ?? { plan: DEFAULT_PLAN, index: 0, usedInStep: 0 });
    // A new plan is for the path unless it says perEvent; without a plan, perEvent keeps its setting.
    const perEvent = plan ? setup.perEvent === true : (setup.perEvent ?? existing?.byEvent !== undefined);
    const byEvent = !perEvent ? undefined : plan || existing?.byEvent === undefined ? new Map() : existing.byEvent;
    registrations.delete(path); // re-insert: the Map stays in registration order for expiry
    const awaiting = existing?.awaiting ?? 0;
    registrations.set(path, { secret, cursor, byEvent, registeredAt: Date.now(), awaiting });
    if (registrations.size > maxPaths) registrations.delete(registrations.keys().next().value as string);
  }

  function setPlan(path: string, plan: ResponsePlan): void {
    if (!registrations.has(path)) throw new TypeError(`path ${path} is not registered`);
    register(path, { plan });
  }

  function describe(path: string): PathView {
    const r = registrations.get(path) as Registration;
    return { path, hasSecret: r.secret !== undefined, plan: r.cursor.plan, perEvent: r.byEvent !== undefined };
  }

  function record(d: Omit<Stored, 'seq'>): void {
    expire();
    const reg = d.beforeSecret === true ? registrations.get(d.path) : undefined;
    if (reg !== undefined) reg.awaiting++;
    // Both readings are made once, here: readers (the query API polled every few ms, k6) only filter.
    log.push(toDelivery({ seq: ++seq, ...d }));
  }

  function settleBeforeSecret(path: string, judge: (d: Delivery) => Delivery): void {
    const reg = registrations.get(path);
    if (reg === undefined || reg.secret === undefined || reg.awaiting === 0) return;
    reg.awaiting = 0;
    const pending = (d: Delivery) => d.path === path && d.signature.reason === 'secret_pending';
    log.replace(pending, judge);
  }

  function deliveries(path?: string, since = 0): Delivery[] {
    expire();
    return log.toArray((d) => d.seq > since && (path === undefined || d.path === path));
  }

  function clear(): void {
    log.clear();
    seenEvents.clear();
  }

  return {
    registrations,
    register,
    setPlan,
    describe,
    seen: (path, eventId) => seenEvents.seen(`${path}\n${eventId}`),
    record,
    settleBeforeSecret,
    deliveries,
    clear,
    expire,
  };
}
