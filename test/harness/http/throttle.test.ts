import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createThrottle, retryAfterMs, throttledDurationMs } from '../../../harness/http/throttle.ts';

describe('throttle', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Acquire `count` slots as fast as the throttle allows; returns the fake time of each. */
  async function drive(
    throttle: ReturnType<typeof createThrottle>,
    count: number,
    horizonMs: number,
  ): Promise<number[]> {
    const times: number[] = [];
    const all = Array.from({ length: count }, () =>
      throttle.acquire().then(() => {
        times.push(Date.now());
      }),
    );
    await vi.advanceTimersByTimeAsync(horizonMs);
    await Promise.all(all);
    return times;
  }

  it('never lets more than rate + burst requests through in any 60-second span', async () => {
    const throttle = createThrottle({ requestsPerMinute: 80 });
    const times = await drive(throttle, 200, 3 * 60_000);
    expect(times).toHaveLength(200);
    for (const start of times) {
      const inWindow = times.filter((t) => t >= start && t < start + 60_000).length;
      expect(inWindow).toBeLessThanOrEqual(90);
    }
    // ...and it is not needlessly slow: 200 requests at 80/min take about 2.4 minutes.
    expect(times.at(-1)).toBeGreaterThan(140_000);
    expect(times.at(-1)).toBeLessThanOrEqual(152_000);
    expect(throttle.stats.sent).toBe(200);
  });

  it("keeps the guarantee for a target window other than the spec's minute (RATE_LIMIT_WINDOW_MS)", async () => {
    const throttle = createThrottle({ requestsPerMinute: 80, windowMs: 2_500 });
    const times = await drive(throttle, 200, 3 * 2_500);
    expect(times).toHaveLength(200);
    for (const start of times)
      expect(times.filter((t) => t >= start && t < start + 2_500).length).toBeLessThanOrEqual(90);
    // 80 per 2.5 s, not 80 per minute: 200 requests take about 6 s, not 2.4 minutes.
    expect(times.at(-1)).toBeGreaterThan(5_800);
    expect(times.at(-1)).toBeLessThanOrEqual(6_400);
  });

  it('counts every request and never waits when unlimited', async () => {
    const throttle = createThrottle({ requestsPerMinute: undefined });
    const times = await drive(throttle, 500, 0);
    expect(new Set(times)).toEqual(new Set([0]));
    expect(throttle.stats.sent).toBe(500);
    expect(throttle.stats.waitedMs).toBe(0);
  });

  it('holds every request back until a Retry-After pause ends', async () => {
    const throttle = createThrottle({ requestsPerMinute: 600, burst: 10 });
    throttle.pauseFor(5_000);
    const times = await drive(throttle, 3, 10_000);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(5_000);
  });

  it('serves requests in arrival order', async () => {
    const throttle = createThrottle({ requestsPerMinute: 60, burst: 1 });
    const order: number[] = [];
    const all = [0, 1, 2, 3].map((n) => throttle.acquire().then(() => order.push(n)));
    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all(all);
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('7')).toBe(7_000);
    expect(retryAfterMs(new Date(12_000).toUTCString(), 2_000)).toBe(10_000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });

  it('computes what n requests cost at a rate: the burst at once, then one per 60/rate seconds', async () => {
    vi.useRealTimers();
    // 80/min: a burst of 10 (an eighth of the rate), then one every 750 ms.
    expect(await throttledDurationMs(10, { requestsPerMinute: 80 })).toBe(0);
    expect(await throttledDurationMs(11, { requestsPerMinute: 80 })).toBe(750);
    expect(await throttledDurationMs(150, { requestsPerMinute: 80 })).toBe(140 * 750);
    expect(await throttledDurationMs(150, { requestsPerMinute: 80, burst: 1 })).toBe(149 * 750);
    expect(await throttledDurationMs(1000, { requestsPerMinute: undefined })).toBe(0);
  });
});
