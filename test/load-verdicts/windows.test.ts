/**
 * The rate-limit probe's verdict (load/lib/windows.ts) on simulated limiters: a fixed window
 * aligned to the clock at every offset, a sliding log, a token bucket, and limiters that break
 * the spec's limit. The probe sends 150 % of the limit per window on a fixed schedule.
 */
import { describe, expect, it } from 'vitest';
import { analyseWindows, type Sample } from '../../load/lib/windows.ts';

const LIMIT = 100;
const W = 60_000;
const SLOT = W / (LIMIT * 1.5);
const PHASE = 2.75 * W;

/** Schedules the probe's requests and asks `admit(t)` for each; t in ms since the phase began. */
function probe(admit: (t: number) => boolean, jitterMs = 0): Sample[] {
  const samples: Sample[] = [];
  for (let i = 0; (i + 1) * SLOT <= PHASE; i++) {
    const t = i * SLOT + (jitterMs === 0 ? 0 : (((i * 7919) % 13) / 13) * jitterMs);
    const served = admit(t);
    samples.push({ atMs: t, served, refused: !served });
  }
  return samples;
}

function fixedWindow(limit: number, offsetMs: number, preUsed = 0): (t: number) => boolean {
  const counts = new Map<number, number>();
  return (t) => {
    const w = Math.floor((t + offsetMs) / W);
    const used = counts.get(w) ?? (w === Math.floor(offsetMs / W) ? preUsed : 0);
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

function tokenBucket(limit: number): (t: number) => boolean {
  let tokens = limit;
  let last = 0;
  return (t) => {
    tokens = Math.min(limit, tokens + ((t - last) * limit) / W);
    last = t;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}

describe('the rate-limit verdict from the refusals', () => {
  it('passes a fixed window aligned to the clock at every offset, counting the limit per window found', () => {
    for (let offset = 0; offset < W; offset += W / 20) {
      const verdict = analyseWindows(probe(fixedWindow(LIMIT, offset)), LIMIT, W, 0.05);
      expect(verdict.model, `offset ${offset}`).toBe('blocks');
      expect(verdict.windowsUsed, `offset ${offset}`).toBeGreaterThanOrEqual(1);
      expect(
        verdict.servedPerWindow.every((n) => n === LIMIT),
        `offset ${offset}: ${verdict.servedPerWindow}`,
      ).toBe(true);
      expect(verdict.windowsUnderLimit + verdict.windowsOverLimit).toBe(0);
    }
  });

  it('passes a fixed window that a burst before the phase half used up', () => {
    const verdict = analyseWindows(probe(fixedWindow(LIMIT, W / 3, 60)), LIMIT, W, 0.05);
    expect(verdict.windowsUnderLimit + verdict.windowsOverLimit).toBe(0);
  });

  it('passes a sliding log, with and without jitter in the send times', () => {
    for (const jitter of [0, SLOT / 2]) {
      const verdict = analyseWindows(probe(slidingLog(LIMIT), jitter), LIMIT, W, 0.05);
      expect(verdict.model).toBe('blocks');
      expect(verdict.estimate).toBeCloseTo(LIMIT, -1);
      expect(verdict.windowsUnderLimit + verdict.windowsOverLimit).toBe(0);
    }
  });

  it('passes a token bucket refilling the limit per window (a steady trickle)', () => {
    const verdict = analyseWindows(probe(tokenBucket(LIMIT)), LIMIT, W, 0.05);
    expect(verdict.model).toBe('trickle');
    expect(Math.abs(verdict.estimate - LIMIT)).toBeLessThanOrEqual(LIMIT * 0.05);
    expect(verdict.windowsUnderLimit + verdict.windowsOverLimit).toBe(0);
  });

  it('fails a limiter that refuses below the limit, one that lets more through, and sees no refusal from none', () => {
    for (const admit of [fixedWindow(LIMIT / 2, 0), slidingLog(LIMIT / 2), tokenBucket(LIMIT / 2)]) {
      const v = analyseWindows(probe(admit), LIMIT, W, 0.05);
      expect(v.windowsUnderLimit, JSON.stringify(v)).toBeGreaterThan(0);
    }
    for (const admit of [fixedWindow(LIMIT * 1.2, W / 4), slidingLog(LIMIT * 1.2)]) {
      const v = analyseWindows(probe(admit), LIMIT, W, 0.05);
      expect(v.windowsOverLimit, JSON.stringify(v)).toBeGreaterThan(0);
    }
    expect(
      analyseWindows(
        probe(() => true),
        LIMIT,
        W,
        0.05,
      ),
    ).toMatchObject({ model: 'no refusal', refused: 0 });
  });
});
