/**
 * A controllable clock for the reference server, so that the spec's 24-hour webhook retry
 * horizon can run in seconds.
 *
 *   virtual now = start + offset + scale × (real milliseconds elapsed since creation)
 *
 * - `scale` is virtual ms per real ms: 1 is real time, 3600 makes an hour pass in a second,
 *   0 freezes time so that only `advance()` moves it (deterministic tests).
 * - Real elapsed time is read from `performance.now()` (monotonic), so a wall-clock step of
 *   the host doesn't move virtual time backwards.
 * - `setTimer(at, fn)` fires `fn` once virtual time reaches `at`: a real `setTimeout` of
 *   ceil((at − now) / scale) ms (capped at the platform maximum and re-armed when it wakes
 *   early or the cap was hit). With scale 0 a timer only fires through `advance()` (or at once
 *   if already due).
 * - `advance(ms)` jumps virtual time forward and fires every timer that falls due within the
 *   jump synchronously, in order of due time; while each callback runs `now()` reads that
 *   timer's due time, so a callback sees the time it was scheduled for. Timers a callback sets
 *   inside the jumped range fire too (bounded by MAX_TIMERS_PER_ADVANCE), or, with
 *   `deferNested`, wait for the next advance (control-openapi.json lets either be). After the
 *   jump the remaining timers are re-armed against the new time.
 * - `close()` clears every timer, so nothing keeps the process alive; timers set afterwards
 *   never fire.
 */

export interface Clock {
  /** Virtual milliseconds since the epoch. */
  now(): number;
  /** Virtual ms per real ms. */
  readonly scale: number;
  /** Jumps virtual time forward by `ms` (>= 0), firing the timers that fall due, in order. */
  advance(ms: number): void;
  /** Calls `fn` once virtual time reaches `atVirtualMs`; returns a handle for clearTimer. */
  setTimer(atVirtualMs: number, fn: () => void): symbol;
  clearTimer(handle: symbol): void;
  /** Clears every timer. */
  close(): void;
}

export interface ClockOptions {
  /** Virtual ms per real ms; default 1 (real time). 0 freezes time except for advance(). */
  scale?: number;
  /** Virtual epoch ms at creation; default Date.now(). */
  start?: number;
  /** Timers set during an advance that fall due within it fire at the next advance, not in this one. */
  deferNested?: boolean;
}

/** setTimeout's largest delay (2^31 − 1 ms); longer waits are re-armed. */
const MAX_REAL_DELAY_MS = 2_147_483_647;
/** Bound on the timers one advance() fires, so a callback that keeps re-arming can't spin. */
export const MAX_TIMERS_PER_ADVANCE = 100_000;

interface TimerEntry {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
  real: ReturnType<typeof setTimeout> | undefined;
  /** Set during an advance and due within it, under deferNested: only the next advance fires it. */
  deferred?: boolean;
}

export function createClock(options: ClockOptions = {}): Clock {
  const scale = options.scale ?? 1;
  if (typeof scale !== 'number' || !Number.isFinite(scale) || scale < 0) {
    throw new RangeError(`scale must be a finite number >= 0, got ${String(scale)}`);
  }
  const start = options.start ?? Date.now();
  if (typeof start !== 'number' || !Number.isFinite(start)) throw new RangeError('start must be a finite number of ms');

  const realOrigin = performance.now();
  let offset = 0;
  let seq = 0;
  let closed = false;
  /** The target of the advance under way, if any. */
  let advancing: number | undefined;
  const timers = new Map<symbol, TimerEntry>();

  function now(): number {
    return start + offset + scale * (performance.now() - realOrigin);
  }

  function disarm(entry: TimerEntry): void {
    if (entry.real !== undefined) clearTimeout(entry.real);
    entry.real = undefined;
  }

  function arm(handle: symbol, entry: TimerEntry): void {
    disarm(entry);
    if (entry.deferred === true) return; // waits for the next advance
    const remaining = entry.at - now();
    let delay: number;
    if (remaining <= 0) delay = 0;
    else if (scale === 0)
      return; // frozen: only advance() can bring it due
    else delay = Math.min(Math.ceil(remaining / scale), MAX_REAL_DELAY_MS);
    entry.real = setTimeout(() => {
      entry.real = undefined;
      if (timers.get(handle) !== entry) return;
      // Woke early (ms rounding) or the delay was capped: wait again; each re-arm makes progress.
      if (now() < entry.at) return arm(handle, entry);
      timers.delete(handle);
      entry.fn();
    }, delay);
  }

  function setTimer(atVirtualMs: number, fn: () => void): symbol {
    if (typeof atVirtualMs !== 'number' || Number.isNaN(atVirtualMs))
      throw new TypeError('atVirtualMs must be a number');
    if (typeof fn !== 'function') throw new TypeError('fn must be a function');
    const handle = Symbol('clock-timer');
    if (closed) return handle;
    const entry: TimerEntry = { at: atVirtualMs, seq: seq++, fn, real: undefined };
    if (options.deferNested === true && advancing !== undefined && atVirtualMs <= advancing) entry.deferred = true;
    timers.set(handle, entry);
    arm(handle, entry);
    return handle;
  }

  function clearTimer(handle: symbol): void {
    const entry = timers.get(handle);
    if (!entry) return;
    disarm(entry);
    timers.delete(handle);
  }

  /** Sets the offset so that now() reads `virtual` at this instant. */
  function jumpTo(virtual: number): void {
    offset += virtual - now();
  }

  function earliestDue(limit: number): [symbol, TimerEntry] | undefined {
    let best: [symbol, TimerEntry] | undefined;
    for (const pair of timers) {
      const e = pair[1];
      if (e.at > limit || e.deferred === true) continue;
      if (!best || e.at < best[1].at || (e.at === best[1].at && e.seq < best[1].seq)) best = pair;
    }
    return best;
  }

  function advance(ms: number): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
      throw new RangeError(`advance() takes a finite number of ms >= 0, got ${String(ms)}`);
    if (closed) {
      offset += ms;
      return;
    }
    const target = now() + ms;
    const errors: unknown[] = [];
    for (const entry of timers.values()) entry.deferred = false;
    advancing = target;
    for (let fired = 0; fired < MAX_TIMERS_PER_ADVANCE; fired++) {
      const next = earliestDue(target);
      if (!next) break;
      const [handle, entry] = next;
      disarm(entry);
      timers.delete(handle);
      if (entry.at > now()) jumpTo(entry.at);
      try {
        entry.fn();
      } catch (e) {
        errors.push(e);
      }
    }
    advancing = undefined;
    if (now() < target) jumpTo(target);
    for (const [handle, entry] of timers) arm(handle, entry);
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} timer callbacks threw during advance()`);
  }

  function close(): void {
    closed = true;
    for (const entry of timers.values()) disarm(entry);
    timers.clear();
  }

  return { now, scale, advance, setTimer, clearTimer, close };
}
