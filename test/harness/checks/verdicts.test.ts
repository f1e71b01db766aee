/**
 * The small verdicts that decide what a reading of the spec allows: CdrList count under every
 * reading, and what "exponential backoff" accepts.
 */
import { describe, expect, it } from 'vitest';
import { backoffReading, cdrCountProblem, cdrCountReading, intervalsGrow } from '../../../harness/checks/verdicts.ts';

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: String(i) }));

describe('CdrList count', () => {
  it('accepts count = records returned, and a larger total only when limit truncated the answer', () => {
    expect(cdrCountProblem({ count: 7, calls: rows(7) }, 100)).toBeUndefined();
    expect(cdrCountProblem({ count: 479, calls: rows(100) }, 100)).toBeUndefined();
    expect(cdrCountReading({ count: 479, calls: rows(100) }, 100)).toMatch(/total in the window/);
    expect(cdrCountReading({ count: 7, calls: rows(7) }, 100)).toBeUndefined();
  });

  it('refuses a count off by one below the limit, a smaller count, and a non-integer', () => {
    expect(cdrCountProblem({ count: 8, calls: rows(7) }, 100)).toMatch(/fewer than limit 100/);
    expect(cdrCountProblem({ count: 99, calls: rows(100) }, 100)).toMatch(/= limit/);
    expect(cdrCountProblem({ count: '7', calls: rows(7) }, 100)).toMatch(/must be an integer/);
  });
});

describe('exponential backoff', () => {
  it('accepts doubling and doubling with jitter; refuses constant, shrinking and a single interval', () => {
    expect(intervalsGrow([60, 120, 240])).toBe(true);
    expect(intervalsGrow([60, 150, 110, 400])).toBe(true);
    expect(intervalsGrow([60, 60, 60])).toBe(false);
    expect(intervalsGrow([240, 120, 60])).toBe(false);
    expect(intervalsGrow([60, 500, 100, 900])).toBe(false);
    expect(intervalsGrow([60])).toBe(false);
  });

  it('allows arrival times their jitter: a delayed attempt is no shrink, jitter is no growth', () => {
    // 60 ms doubling (60 s at 1000×), the third attempt 400 ms late: 60, 520, 240, 480, 960, 1920 ms.
    expect(intervalsGrow([60, 520, 240, 480, 960, 1920])).toBe(false);
    expect(intervalsGrow([60, 520, 240, 480, 960, 1920], 1000)).toBe(true);
    // A constant 500 ms backoff seen with jitter grows by less than the jitter: not growth.
    expect(intervalsGrow([500, 620, 480, 900], 1000)).toBe(false);
    expect(intervalsGrow([500, 620, 480, 900])).toBe(true);
    expect(intervalsGrow([60_000, 120_000, 240_000], 1000)).toBe(true);
  });
});

describe('exponential backoff seen on arrival: grows, does not grow, or unresolved', () => {
  it('reads doubling as growth and a constant or shrinking schedule as none, once intervals exceed the jitter', () => {
    expect(backoffReading([1200, 2400, 4800], 1000)).toBe('grows');
    // A constant 1.2 s schedule with its last attempt 0.6 s late: growth within the jitter is no growth.
    expect(backoffReading([1200, 1200, 1800], 1000)).toBe('does-not-grow');
    expect(backoffReading([3000, 3000, 3000, 3000], 1000)).toBe('does-not-grow');
    expect(backoffReading([8000, 4000, 1000], 1000)).toBe('does-not-grow');
  });

  it('leaves intervals shorter than the jitter unresolved, and fewer than two intervals', () => {
    // 100 ms doubling: it grows, but not yet by more than arrival times may stray.
    expect(backoffReading([100, 200, 400], 1000)).toBe('unresolved');
    expect(backoffReading([100, 200, 400, 800, 1600], 1000)).toBe('grows');
    expect(backoffReading([500, 500, 500], 1000)).toBe('unresolved');
    expect(backoffReading([60_000], 1000)).toBe('unresolved');
    expect(backoffReading([], 0)).toBe('unresolved');
  });

  it('decides every outcome past two intervals for times the target recorded (no jitter)', () => {
    expect(backoffReading([100, 200, 400], 0)).toBe('grows');
    expect(backoffReading([500, 500, 500], 0)).toBe('does-not-grow');
  });
});
