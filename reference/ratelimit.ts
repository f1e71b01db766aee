/**
 * Per-client-IP rate limiter: a SLIDING-WINDOW LOG. A request is admitted when fewer than
 * `perWindow` admitted requests fall in the trailing `windowMs` (so at most `perWindow` in ANY
 * window of that length); a refused request is not logged and so does not count.
 *
 * Each IP keeps its admitted timestamps in a ring buffer (Float64Array) that starts small and
 * doubles up to `perWindow`, so a check is amortised O(1) and memory is bounded by
 * perWindow × 8 bytes per active IP. IPs idle for a whole window are swept periodically.
 * Time is the REAL clock (Date.now), never the reference's virtual clock: clients measure
 * their rate in real time.
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds (ceil) until the oldest logged request leaves the window; 0 with an empty log. */
  resetSeconds: number;
  /** Seconds (ceil, ≥ 1) to wait before retrying; only meaningful when refused. */
  retryAfterSeconds: number;
}

class Ring {
  buf: Float64Array;
  head = 0; // index of the oldest entry
  size = 0;
  constructor(capacity: number) {
    this.buf = new Float64Array(capacity);
  }
  oldest(): number {
    return this.buf[this.head] as number;
  }
  newest(): number {
    return this.buf[(this.head + this.size - 1) % this.buf.length] as number;
  }
  shift(): void {
    this.head = (this.head + 1) % this.buf.length;
    this.size--;
  }
  push(value: number, max: number): void {
    if (this.size === this.buf.length) {
      const grown = new Float64Array(Math.max(this.size + 1, Math.min(max, this.buf.length * 2)));
      for (let i = 0; i < this.size; i++) grown[i] = this.buf[(this.head + i) % this.buf.length] as number;
      this.buf = grown;
      this.head = 0;
    }
    this.buf[(this.head + this.size) % this.buf.length] = value;
    this.size++;
  }
}

/** The limiters' shared argument checks: a whole number of requests ≥ 1, per a window > 0 ms. */
function validPerWindow(perWindow: number): number {
  if (!Number.isInteger(perWindow) || perWindow < 1) throw new RangeError('perWindow must be an integer ≥ 1');
  return perWindow;
}
function validWindowMs(windowMs: number): number {
  if (!(windowMs > 0)) throw new RangeError('windowMs must be > 0');
  return windowMs;
}

export class SlidingWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #logs = new Map<string, Ring>();
  #checks = 0;

  constructor(perWindow: number, windowMs: number) {
    this.limit = validPerWindow(perWindow);
    this.windowMs = validWindowMs(windowMs);
  }

  /** `effectiveLimit` lets a fault refuse earlier than the advertised limit. */
  check(key: string, now: number = Date.now(), effectiveLimit: number = this.limit): RateDecision {
    if (++this.#checks % 10_000 === 0) this.#sweep(now);
    let log = this.#logs.get(key);
    if (log === undefined) {
      log = new Ring(Math.min(effectiveLimit, 16));
      this.#logs.set(key, log);
    }
    const horizon = now - this.windowMs;
    while (log.size > 0 && log.oldest() <= horizon) log.shift();
    const allowed = log.size < effectiveLimit;
    if (allowed) log.push(now, Math.max(effectiveLimit, 1));
    const resetSeconds = log.size === 0 ? 0 : Math.ceil((log.oldest() + this.windowMs - now) / 1000);
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, effectiveLimit - log.size),
      resetSeconds,
      retryAfterSeconds: Math.max(1, resetSeconds),
    };
  }

  clear(): void {
    this.#logs.clear();
  }

  #sweep(now: number): void {
    const horizon = now - this.windowMs;
    for (const [key, log] of this.#logs) if (log.size === 0 || log.newest() <= horizon) this.#logs.delete(key);
  }
}

/**
 * The conformant variant `rate-limit-fixed-window` (./variants.ts): a FIXED window aligned to
 * the clock (window k covers [k·windowMs, (k+1)·windowMs) of Date.now), one counter per IP per
 * window. The spec says "100 requests per minute" without saying sliding or fixed: up to twice
 * the limit can pass in a rolling window across a boundary, and that is conformant.
 */
export class FixedWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #counts = new Map<string, { window: number; count: number }>();

  constructor(perWindow: number, windowMs: number) {
    this.limit = validPerWindow(perWindow);
    this.windowMs = validWindowMs(windowMs);
  }

  check(key: string, now: number = Date.now(), effectiveLimit: number = this.limit): RateDecision {
    const window = Math.floor(now / this.windowMs);
    let entry = this.#counts.get(key);
    if (entry === undefined || entry.window !== window) {
      if (this.#counts.size > 10_000) this.#counts.clear(); // bounded: a new window starts every counter over anyway
      entry = { window, count: 0 };
      this.#counts.set(key, entry);
    }
    const allowed = entry.count < effectiveLimit;
    if (allowed) entry.count++;
    const resetSeconds = Math.ceil(((window + 1) * this.windowMs - now) / 1000);
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, effectiveLimit - entry.count),
      resetSeconds,
      retryAfterSeconds: Math.max(1, resetSeconds),
    };
  }

  clear(): void {
    this.#counts.clear();
  }
}
