/**
 * The rate-limit probe's verdict from its samples, pure (k6 runs it at the end of the "over" phase;
 * test/load/lib/windows.test.ts pins it on simulated limiters). The spec says "100 requests per
 * minute per IP" and not whether the minute is sliding or fixed, so the measure must hold for every
 * reading:
 *
 * - a FIXED window aligned to the clock serves the limit, refuses the rest, and serves again when the
 *   clock turns the window (up to twice the limit in a rolling minute, conformant);
 * - a sliding LOG holds exactly the limit in the window before any moment it refuses at;
 * - a sliding COUNTER or token bucket, once refusing, serves a steady rate.
 *
 * The probe saturates the limiter with a burst and keeps sending above the limit. The measured window
 * is the window's time before the first refusal that comes a whole window after the first refusal:
 * from the first refusal on the limiter refused the excess throughout, so a fixed window that turned in
 * between has served the limit since its turn and nothing before it (its previous window was refusing),
 * a sliding log holds the limit, an empty token bucket served its refill. That window must have served
 * at least the limit (the spec's "fewer than 100 served in a minute" fails) and no more than the
 * configured limit (± tolerance); a client above the limit must see a refusal at all. A window longer
 * than a minute, or a limiter that locks a client out, served too few; one that never refuses again
 * leaves no measured window (none measured fails the probe).
 *
 * The model (blocks or a trickle) is recorded, never judged: boundaries are read from the refusals, the
 * first request served after a run of refusals (5 % of a window's sends, at least 3); half the limit
 * served in a row once refusing is a block too.
 */

/**
 * How far from the configured limit a measured window may serve (a fraction of the limit): the
 * probe counts a window by when each request was sent, the limiter by when it arrived, and the two
 * drift apart around a window's turn, the more so on a starved host.
 */
export const LIMIT_TOLERANCE = 0.05;

export interface Sample {
  /** When the request was sent, ms since the probe's first measured request. */
  readonly atMs: number;
  readonly served: boolean;
  readonly refused: boolean;
}

export interface WindowVerdict {
  readonly model: 'blocks' | 'trickle' | 'no refusal';
  /** Where a window turned: the first request served after a run of refusals (ms). */
  readonly boundariesMs: readonly number[];
  /** Served requests in the measured window (empty when none was measured). */
  readonly servedPerWindow: readonly number[];
  /** The limit per window the probe estimates (0 when no window was measured). */
  readonly estimate: number;
  readonly windowsUsed: number;
  /** Measured windows that served fewer than the limit (less the tolerance). */
  readonly windowsUnderLimit: number;
  /** Measured windows above the configured limit (plus the tolerance). */
  readonly windowsOverLimit: number;
  readonly refused: number;
}

/** The measured window: the window's time before `end` (a sample), and what it served. */
export interface MeasuredWindow {
  readonly endIndex: number;
  /** Served in the window's time before the end; `most`: since one slot earlier (a turn is known to the slot). */
  readonly served: number;
  readonly most: number;
}

/**
 * The first window the samples measure, in the order they were sent; undefined while there is none:
 * - a refusal a whole window after the first refusal: the window before it (exact, see above);
 * - or, sooner for a fixed window, a boundary (the first request served after `minRun` refusals) with
 *   a whole window of samples before the refusal that precedes it: the window before the boundary,
 *   whose turn lies between that refusal and the boundary; counted only when at most one request was
 *   served within that slot a window earlier (so never across the burst, whose sends are dense).
 * Pure.
 */
export function measuredWindow(
  samples: readonly Sample[],
  windowMs: number,
  overPerWindow: number,
  /** Where the probe starts saturating the limiter (its burst): refusals before it are "under"'s to judge. */
  fromIndex = 0,
): MeasuredWindow | undefined {
  const first = samples.findIndex((s, i) => i >= fromIndex && s.refused);
  if (first < 0) return undefined;
  const firstAt = samples[first]!.atMs;
  const start = samples[0]!.atMs;
  const minRun = Math.max(3, Math.ceil(overPerWindow * 0.05));
  const servedIn = (fromMs: number, toMs: number) =>
    samples.filter((s) => s.served && s.atMs >= fromMs && s.atMs < toMs).length;
  let run = 0;
  for (let i = first; i < samples.length; i++) {
    const sample = samples[i]!;
    if (sample.refused) {
      if (i > first && sample.atMs - windowMs >= firstAt) {
        const served = samples.filter(
          (s) => s.served && s.atMs > sample.atMs - windowMs && s.atMs < sample.atMs,
        ).length;
        return { endIndex: i, served, most: served };
      }
      run += 1;
      continue;
    }
    if (sample.served && run >= minRun && samples[i - 1]!.atMs - windowMs >= start) {
      const earliest = samples[i - 1]!.atMs - windowMs;
      const latest = sample.atMs - windowMs;
      if (servedIn(earliest, latest) <= 1) {
        const served = servedIn(latest, sample.atMs);
        return { endIndex: i, served, most: served + servedIn(earliest, latest) };
      }
    }
    run = 0;
  }
  return undefined;
}

/** Whether the samples so far decide the verdict, so the "over" phase may stop. Pure. */
export function phaseDecided(
  samples: readonly Sample[],
  windowMs: number,
  overPerWindow: number,
  fromIndex = 0,
): boolean {
  return measuredWindow(samples, windowMs, overPerWindow, fromIndex) !== undefined;
}

export function analyseWindows(
  samples: readonly Sample[],
  limit: number,
  windowMs: number,
  tolerance: number,
  /** The rate the probe sends at once refused, per window (for the run of refusals that marks a boundary). */
  overPerWindow: number,
  /** Where the probe starts saturating the limiter (see measuredWindow). */
  fromIndex = 0,
): WindowVerdict {
  const refused = samples.filter((s, i) => i >= fromIndex && s.refused).length;
  const low = Math.ceil(limit * (1 - tolerance));
  const high = Math.floor(limit * (1 + tolerance));
  const minRun = Math.max(3, Math.ceil(overPerWindow * 0.05));
  const boundaries: number[] = [];
  let run = 0;
  for (const sample of samples.slice(fromIndex)) {
    if (sample.refused) run += 1;
    else if (sample.served) {
      if (run >= minRun) boundaries.push(sample.atMs);
      run = 0;
    }
  }
  // Blocks: a window turned (a boundary), or half the limit served in a row once refusing, as a fixed
  // window serves after its turn; a trickle interleaves served requests with refusals.
  let inARow = 0;
  let longest = 0;
  const first = samples.findIndex((s, i) => i >= fromIndex && s.refused);
  for (const sample of first < 0 ? [] : samples.slice(first)) {
    inARow = sample.served ? inARow + 1 : 0;
    longest = Math.max(longest, inARow);
  }
  const blocks = boundaries.length > 0 || longest >= limit / 2;
  const model = refused === 0 ? 'no refusal' : blocks ? 'blocks' : 'trickle';
  const measured = measuredWindow(samples, windowMs, overPerWindow, fromIndex);
  if (measured === undefined) {
    return {
      model,
      boundariesMs: boundaries,
      servedPerWindow: [],
      estimate: 0,
      windowsUsed: 0,
      windowsUnderLimit: 0,
      windowsOverLimit: 0,
      refused,
    };
  }
  // Too few only when even the most it can have served is under the limit, too many only when even the fewest is over.
  const { served, most } = measured;
  return {
    model,
    boundariesMs: boundaries,
    servedPerWindow: [(served + most) / 2],
    estimate: (served + most) / 2,
    windowsUsed: 1,
    windowsUnderLimit: most < low ? 1 : 0,
    windowsOverLimit: served > high ? 1 : 0,
    refused,
  };
}
