/**
 * The rate-limit probe's verdict (load/lib/windows.ts) on simulated limiters, over the probe's own
 * timeline (load/rate-limit.ts): one window at 90 % of the limit, a burst to the first refusal, then
 * 150 % for 1.1 windows. A fixed window aligned to the clock at every offset, a sliding log with and
 * without jitter, a token bucket, and limiters that break the spec's limit.
 */
import { describe, expect, it } from 'vitest';
import { OVER_WINDOWS, OVER_WINDOWS_EXPECTED, rateLimitShape, underStartMs } from '../../../load/lib/probe-shape.ts';
import { analyseWindows, LIMIT_TOLERANCE, phaseDecided, type Sample } from '../../../load/lib/windows.ts';

const LIMIT = 100;
const W = 60_000;
const SHAPE = rateLimitShape(LIMIT, W);
/** The burst's pace: four sends per slot of the 150 % phase (load/rate-limit.ts). */
const BURST_RTT = SHAPE.slotMs / 4;

/**
 * Runs the probe's timeline against `admit(t)` (t in ms since "under" began); `priors` are other
 * requests of the client before it. Returns the samples, and how many "under" requests were refused.
 */
function probe(
  admit: (t: number) => boolean,
  jitterMs = 0,
  priors: number[] = [],
): { samples: Sample[]; underRefused: number } {
  for (const t of priors) admit(t);
  const samples: Sample[] = [];
  const jitter = (i: number) => (jitterMs === 0 ? 0 : (((i * 7919) % 13) / 13) * jitterMs);
  let underRefused = 0;
  for (let i = 0; i < SHAPE.underPerWindow; i++) {
    const t = (i * W) / SHAPE.underPerWindow + jitter(i);
    const served = admit(t);
    if (!served) underRefused++;
    samples.push({ atMs: t, served, refused: !served });
  }
  let t = W;
  for (let i = 0; i < SHAPE.setupMaxRequests; i++, t += BURST_RTT) {
    const served = admit(t);
    samples.push({ atMs: t, served, refused: !served });
    if (!served) break;
  }
  const overStart = t;
  for (let i = 0; (i + 1) * SHAPE.slotMs <= SHAPE.overMs; i++) {
    const at = overStart + i * SHAPE.slotMs + jitter(i);
    const served = admit(at);
    samples.push({ atMs: at, served, refused: !served });
    if (phaseDecided(samples, W, SHAPE.overPerWindow)) break;
  }
  overTook.push((samples.at(-1)!.atMs - overStart) / W);
  return { samples, underRefused };
}

/** How many windows each simulated "over" phase took before its samples decided the verdict. */
const overTook: number[] = [];

function fixedWindow(limit: number, offsetMs: number): (t: number) => boolean {
  const counts = new Map<number, number>();
  return (t) => {
    const w = Math.floor((t + offsetMs) / W);
    const used = counts.get(w) ?? 0;
    if (used >= limit) return false;
    counts.set(w, used + 1);
    return true;
  };
}

function slidingLog(limit: number): (t: number) => boolean {
  const log: number[] = [];
  return (t) => {
    while (log.length > 0 && log[0]! <= t - W) log.shift();
    if (log.length >= limit) return false;
    log.push(t);
    return true;
  };
}

function tokenBucket(limit: number, perWindow = limit): (t: number) => boolean {
  let tokens = limit;
  let last = Number.NEGATIVE_INFINITY;
  return (t) => {
    tokens = Math.min(limit, tokens + (Number.isFinite(last) ? ((t - last) * perWindow) / W : limit));
    last = t;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}

const verdictOf = (samples: Sample[]) => analyseWindows(samples, LIMIT, W, LIMIT_TOLERANCE, SHAPE.overPerWindow);

describe('the rate-limit verdict from the refusals', () => {
  it('passes a fixed window aligned to the clock at every offset, counting the limit per window found', () => {
    for (let offset = 0; offset < W; offset += W / 40) {
      const { samples, underRefused } = probe(fixedWindow(LIMIT, offset));
      const verdict = verdictOf(samples);
      expect(underRefused, `offset ${offset}`).toBe(0);
      expect(verdict.model, `offset ${offset}`).toBe('blocks');
      expect(Math.abs(verdict.servedPerWindow[0]! - LIMIT), `offset ${offset}`).toBeLessThanOrEqual(0.5);
      expect(verdict.windowsUnderLimit + verdict.windowsOverLimit).toBe(0);
    }
  });

  it('passes a sliding log (entries expire one by one after "under": a steady rate), with and without jitter', () => {
    for (const jitter of [0, SHAPE.slotMs / 2]) {
      const { samples, underRefused } = probe(slidingLog(LIMIT), jitter);
      const verdict = verdictOf(samples);
      expect(underRefused).toBe(0);
      expect(verdict.model).toBe('trickle');
      expect(Math.abs(verdict.estimate - LIMIT), JSON.stringify(verdict)).toBeLessThanOrEqual(LIMIT * LIMIT_TOLERANCE);
      expect(verdict.windowsUnderLimit + verdict.windowsOverLimit).toBe(0);
    }
  });

  it('passes a token bucket refilling the limit per window (a steady trickle)', () => {
    const { samples, underRefused } = probe(tokenBucket(LIMIT));
    const verdict = verdictOf(samples);
    expect(underRefused).toBe(0);
    expect(verdict.model).toBe('trickle');
    expect(verdict.windowsUsed).toBe(1);
    expect(Math.abs(verdict.estimate - LIMIT)).toBeLessThanOrEqual(LIMIT * LIMIT_TOLERANCE);
    expect(verdict.windowsUnderLimit + verdict.windowsOverLimit).toBe(0);
  });

  it('fails a limiter that refuses below the limit, one that lets more through, and sees no refusal from none', () => {
    for (const admit of [fixedWindow(LIMIT / 2, 0), slidingLog(LIMIT / 2), tokenBucket(LIMIT / 2)]) {
      const v = verdictOf(probe(admit).samples);
      expect(v.windowsUnderLimit, JSON.stringify(v)).toBeGreaterThan(0);
    }
    // A window of two minutes: never served again within the phase.
    const twoMinutes: (t: number) => boolean = (() => {
      const log: number[] = [];
      return (t) => {
        while (log.length > 0 && log[0]! <= t - 2 * W) log.shift();
        if (log.length >= LIMIT) return false;
        log.push(t);
        return true;
      };
    })();
    expect(verdictOf(probe(twoMinutes).samples).windowsUnderLimit).toBeGreaterThan(0);
    for (const offset of [0, W / 4, W / 2, (3 * W) / 4]) {
      const v = verdictOf(probe(fixedWindow(LIMIT * 1.2, offset)).samples);
      expect(v.windowsOverLimit, `offset ${offset}: ${JSON.stringify(v)}`).toBeGreaterThan(0);
    }
    const over = verdictOf(probe(slidingLog(LIMIT * 1.2)).samples);
    expect(over.windowsOverLimit, JSON.stringify({ ...over, boundariesMs: over.boundariesMs.length })).toBeGreaterThan(
      0,
    );
    expect(verdictOf(probe(() => true).samples)).toMatchObject({ model: 'no refusal', refused: 0 });
  });

  it('the phase after the burst stops once decided: for a conformant limiter within the expected 1.2 windows', () => {
    overTook.length = 0;
    for (let offset = 0; offset < W; offset += W / 40) probe(fixedWindow(LIMIT, offset));
    probe(slidingLog(LIMIT));
    probe(slidingLog(LIMIT), SHAPE.slotMs / 2);
    probe(tokenBucket(LIMIT));
    expect(Math.max(...overTook), JSON.stringify(overTook)).toBeLessThanOrEqual(OVER_WINDOWS_EXPECTED);
    expect(OVER_WINDOWS).toBeGreaterThan(OVER_WINDOWS_EXPECTED);
  });
});

describe('when "under" may start after the run', () => {
  const base = { limit: LIMIT, windowMs: W, tolerance: LIMIT_TOLERANCE };

  it('at once after a quiet window, a window after a full one, and a little after a few requests', () => {
    expect(underStartMs({ ...base, nowMs: 100_000, priors: [] })).toBe(100_000);
    // Requests that may have used the window up (the limit): a whole window after them.
    expect(underStartMs({ ...base, nowMs: 1_000, priors: [{ atMs: 1_000, requests: LIMIT }] })).toBe(61_000);
    // The run's checks long before, its sweep and the webhook-retry probe just now (18 requests):
    // "under" waits until its rolling windows that hold them hold at most 95 − 18 of its own.
    const priors = [
      { atMs: 20_000, requests: 80 },
      { atMs: 95_000, requests: 8 },
      { atMs: 100_000, requests: 10 },
    ];
    const start = underStartMs({ ...base, nowMs: 100_000, priors });
    expect(start).toBeGreaterThan(100_000);
    expect(start).toBeLessThan(100_000 + W / 4);
    expect(90 * (1 - (start - 95_000) / W) + 18).toBeLessThanOrEqual(95);
  });

  it('a sliding log and a fixed window never refuse "under" when it starts then, after those requests', () => {
    const priors = [
      { atMs: -70_000, requests: 80 },
      { atMs: -5_000, requests: 8 },
      { atMs: 0, requests: 10 },
    ];
    const start = underStartMs({ ...base, nowMs: 0, priors });
    // "under" begins at 0 in the simulation: the priors, spread a little before their reported times.
    const times = priors.flatMap((p) => Array.from({ length: p.requests }, (_, i) => p.atMs - start - i * 50));
    times.sort((a, b) => a - b);
    for (const admit of [slidingLog(LIMIT), fixedWindow(LIMIT, 0), fixedWindow(LIMIT, W / 3), tokenBucket(LIMIT)]) {
      expect(probe(admit, 0, times).underRefused).toBe(0);
    }
  });
});
