/**
 * The rate-limit probe's verdict from its "over" phase, pure (k6 runs it at the end of the phase;
 * test/load-verdicts/windows.test.ts pins it). The spec says "100 requests per minute per IP" and not
 * whether the minute is sliding or fixed; so the estimate must hold for both:
 *
 * - a FIXED window aligned to the clock serves the limit, refuses the rest, and serves again
 *   when the clock turns the window (up to twice the limit in a rolling minute, conformant);
 * - a sliding LOG under a constant over-rate does the same in blocks one window apart;
 * - a sliding COUNTER or token bucket, once saturated, serves a steady trickle.
 *
 * Window boundaries are read from the refusals: the first request served after a long run of
 * refusals starts a window. The requests served in one window's time from a boundary are one
 * complete window: it must have served at least the limit (the spec's "fewer than 100 served in
 * a minute" fails) and no more than the configured limit (± tolerance). Without a complete
 * window (a trickle), the limit is estimated from the rate served once saturated. Either way, a
 * client above the limit must see a refusal.
 */

export interface Sample {
  /** When the request was sent, ms since the phase began. */
  readonly atMs: number;
  readonly served: boolean;
  readonly refused: boolean;
}

export interface WindowVerdict {
  readonly model: 'blocks' | 'trickle' | 'no refusal';
  /** Start of each detected window (ms since the phase began). */
  readonly boundariesMs: readonly number[];
  /** Served requests in each complete window (one window's time from a boundary). */
  readonly servedPerWindow: readonly number[];
  /** The limit per window the probe estimates. */
  readonly estimate: number;
  readonly windowsUsed: number;
  /** Complete windows that served fewer than the limit (less the tolerance) while refusing. */
  readonly windowsUnderLimit: number;
  /** Complete windows (or the trickle estimate) above the configured limit (plus the tolerance). */
  readonly windowsOverLimit: number;
  readonly refused: number;
}

export function analyseWindows(
  samples: readonly Sample[],
  limit: number,
  windowMs: number,
  tolerance: number,
): WindowVerdict {
  const refused = samples.filter((s) => s.refused).length;
  const low = Math.ceil(limit * (1 - tolerance));
  const high = Math.floor(limit * (1 + tolerance));
  if (refused === 0) {
    return {
      model: 'no refusal',
      boundariesMs: [],
      servedPerWindow: [],
      estimate: 0,
      windowsUsed: 0,
      windowsUnderLimit: 0,
      windowsOverLimit: 0,
      refused,
    };
  }
  // A boundary: the first request served after a long run of refusals (5 % of a window's
  // requests, at least 3). Single refusals among served requests are jitter at an expiry, or a
  // trickle; they start no window.
  const sentPerWindow = samples.filter((s) => s.atMs < samples[0]!.atMs + windowMs).length;
  const minRun = Math.max(3, Math.ceil(sentPerWindow * 0.05));
  const boundaries: number[] = [];
  let run = 0;
  samples.forEach((sample, i) => {
    if (sample.refused) run += 1;
    else if (sample.served) {
      if (run >= minRun) boundaries.push(i);
      run = 0;
    }
  });
  // Each boundary with a whole window after it inside the phase starts one complete window (its
  // last 5 % may fall after the phase: at 150 % of the limit those are refusals anyway).
  const slot = samples.length > 1 ? (samples.at(-1)!.atMs - samples[0]!.atMs) / (samples.length - 1) : 0;
  const end = samples.at(-1)!.atMs + slot;
  const complete = boundaries.filter((i) => samples[i]!.atMs + windowMs <= end + windowMs / 20);
  if (complete.length > 0) {
    const servedPerWindow = complete.map(
      (i) =>
        samples.filter((s) => s.served && s.atMs >= samples[i]!.atMs && s.atMs < samples[i]!.atMs + windowMs).length,
    );
    const estimate = servedPerWindow.reduce((a, b) => a + b, 0) / servedPerWindow.length;
    return {
      model: 'blocks',
      boundariesMs: boundaries.map((i) => samples[i]!.atMs),
      servedPerWindow,
      estimate,
      windowsUsed: servedPerWindow.length,
      windowsUnderLimit: servedPerWindow.filter((n) => n < low).length,
      windowsOverLimit: servedPerWindow.filter((n) => n > high).length,
      refused,
    };
  }
  // A trickle: the rate served from the first refusal on, per window.
  const first = samples.findIndex((s) => s.refused);
  const span = samples.at(-1)!.atMs - samples[first]!.atMs || 1;
  const served = samples.slice(first).filter((s) => s.served).length;
  const estimate = (served * windowMs) / span;
  return {
    model: 'trickle',
    boundariesMs: [],
    servedPerWindow: [],
    estimate,
    windowsUsed: span / windowMs,
    windowsUnderLimit: estimate < low ? 1 : 0,
    windowsOverLimit: estimate > high ? 1 : 0,
    refused,
  };
}
