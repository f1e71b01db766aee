/**
 * Client-side throttle: a token bucket that keeps a run under a target's request rate.
 *
 * With a refill of N per minute and a bucket of B, any 60-second span holds at most N + B
 * requests, so the default burst is an eighth of the rate: 80/min sends at most 90 in any
 * minute, under the spec's 100. A 429's Retry-After pauses the bucket for everyone.
 */

export interface ThrottleOptions {
  /** undefined = no limit (the embedded reference server). */
  readonly requestsPerMinute: number | undefined;
  /** The target's "minute" the rate is per: 60 000 unless a stand-in documents a shortened window. */
  readonly windowMs?: number;
  readonly burst?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface Throttle {
  /** Resolves when one request may be sent, and counts it. */
  acquire(): Promise<void>;
  /** No request leaves before `now + ms` (a 429's Retry-After). */
  pauseFor(ms: number): void;
  readonly stats: { readonly sent: number; readonly waitedMs: number };
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function createThrottle(options: ThrottleOptions): Throttle {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const rate = options.requestsPerMinute;
  const capacity = rate === undefined ? Infinity : Math.max(1, options.burst ?? Math.floor(rate / 8));
  const msPerToken = rate === undefined ? 0 : (options.windowMs ?? 60_000) / rate;
  let tokens = capacity;
  let refilledAt = now();
  let pausedUntil = 0;
  let sent = 0;
  let waitedMs = 0;
  // Requests wait in arrival order: each acquire chains on the previous one.
  let queue: Promise<void> = Promise.resolve();

  const refill = (): void => {
    if (rate === undefined) return;
    const at = now();
    tokens = Math.min(capacity, tokens + (at - refilledAt) / msPerToken);
    refilledAt = at;
  };

  const takeOne = async (): Promise<void> => {
    for (;;) {
      const pause = pausedUntil - now();
      if (pause > 0) {
        waitedMs += pause;
        await sleep(pause);
        continue;
      }
      refill();
      if (tokens >= 1) {
        tokens -= 1;
        sent += 1;
        return;
      }
      const wait = Math.ceil((1 - tokens) * msPerToken);
      waitedMs += wait;
      await sleep(wait);
    }
  };

  return {
    acquire() {
      const turn = queue.then(takeOne);
      queue = turn.catch(() => undefined);
      return turn;
    },
    pauseFor(ms) {
      pausedUntil = Math.max(pausedUntil, now() + ms);
    },
    get stats() {
      return { sent, waitedMs };
    },
  };
}

/**
 * The least time `requests` requests take through this throttle when sent back to back, starting
 * with a full bucket: the throttle itself, run on a virtual clock (nothing sleeps). What the
 * request budget costs in wall time at a given rate (bench/remote-budget.ts).
 */
export async function throttledDurationMs(
  requests: number,
  options: Pick<ThrottleOptions, 'requestsPerMinute' | 'burst'>,
): Promise<number> {
  let clock = 0;
  const throttle = createThrottle({
    ...options,
    now: () => clock,
    sleep: async (ms) => {
      clock += ms;
    },
  });
  for (let i = 0; i < requests; i += 1) await throttle.acquire();
  return clock;
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
