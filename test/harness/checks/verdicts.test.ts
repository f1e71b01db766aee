/**
 * The small verdicts that decide what a reading of the spec allows: CdrList count under every
 * reading, and what "exponential backoff" accepts.
 */
import { describe, expect, it } from 'vitest';
import { cdrCountProblem, cdrCountReading, intervalsGrow } from '../../../harness/checks/verdicts.ts';

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
