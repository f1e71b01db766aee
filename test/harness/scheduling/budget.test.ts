/**
 * The run's request budget (rate × time, or everything) and the ranked choice of probes it
 * forces: harness/scheduling/budget.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  budgetOf,
  DEFAULT_BUDGET,
  EVERYTHING,
  FULL_SET_REQUESTS,
  GATE_REQUESTS,
  perRunUnder,
  rankedForRun,
  secondsFor,
} from '../../../harness/scheduling/budget.ts';

describe('budgetOf: what a run may send follows the rate and the time the user allows', () => {
  it('is the gate-sized 150 requests at the defaults (80 per minute, 113 s)', () => {
    expect(budgetOf(80, 60_000, 113)).toEqual({ all: false, requests: GATE_REQUESTS, timeS: 113 });
    expect(DEFAULT_BUDGET.requests).toBe(budgetOf(80, 60_000, 113).requests);
  });

  it('sends everything when rate × time covers the full set, when asked to, or unthrottled', () => {
    expect(budgetOf(6000, 60_000, 113).all).toBe(true);
    expect(budgetOf(80, 60_000, Math.ceil((FULL_SET_REQUESTS * 60) / 80)).all).toBe(true);
    expect(budgetOf(80, 60_000, Math.ceil((FULL_SET_REQUESTS * 60) / 80) - 1).all).toBe(false);
    expect(budgetOf(80, 60_000, 113, true).all).toBe(true);
    expect(budgetOf(undefined, 60_000, 113)).toBe(EVERYTHING);
  });

  it('counts the rate per the documented window, which a stand-in may shorten', () => {
    expect(budgetOf(80, 2_500, 10).requests).toBe(320);
  });

  it('says how long requests take at the throttle pace', () => {
    expect(secondsFor(150, 80, 60_000)).toBeCloseTo(112.5);
    expect(secondsFor(150, undefined, 60_000)).toBe(0);
  });
});

describe('perRunUnder: each rotation widens with the budget', () => {
  it('keeps the default perRun at the default budget and never goes below it', () => {
    expect(perRunUnder(DEFAULT_BUDGET, 1, 7)).toBe(1);
    expect(perRunUnder(DEFAULT_BUDGET, 2, 7)).toBe(2);
    expect(perRunUnder(budgetOf(80, 60_000, 30), 2, 7)).toBe(2);
  });

  it('widens by requests / 150, rounded down so a run stays inside its budget, up to the whole list', () => {
    expect(perRunUnder(budgetOf(80, 60_000, 226), 1, 7)).toBe(2); // 301 requests: × 2.006
    expect(perRunUnder(budgetOf(80, 60_000, 226), 2, 7)).toBe(4);
    expect(perRunUnder(budgetOf(80, 60_000, 280), 3, 7)).toBe(7); // 373 requests: × 2.49, 7 of 7
    expect(perRunUnder(EVERYTHING, 1, 7)).toBe(7);
  });
});

describe('rankedForRun: the likeliest slips every run, the rest in turns', () => {
  const ranked = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

  it('sends the ⌈n/2⌉ likeliest every run and covers the rest over consecutive seeds', () => {
    const seen = new Set<string>();
    for (let seed = 11; seed < 11 + 2; seed++) {
      const { chosen, left } = rankedForRun(ranked, 4, seed);
      expect(chosen.slice(0, 2)).toEqual(['a', 'b']);
      // The last turn of the rest may be shorter (5 left, 2 a run).
      expect(chosen.length).toBeLessThanOrEqual(4);
      expect([...chosen, ...left].sort()).toEqual(ranked);
      for (const probe of chosen) seen.add(probe);
    }
    // 5 left after the head, 2 per run: ⌈5/2⌉ = 3 seeds see them all.
    for (let seed = 13; seed < 14; seed++) for (const probe of rankedForRun(ranked, 4, seed).chosen) seen.add(probe);
    expect([...seen].sort()).toEqual(ranked);
  });

  it('with one probe a run: the likeliest on even seeds, the others in turns on odd ones', () => {
    expect(rankedForRun(ranked, 1, 0).chosen).toEqual(['a']);
    expect(rankedForRun(ranked, 1, 8).chosen).toEqual(['a']);
    const odd = Array.from({ length: 6 }, (_, i) => rankedForRun(ranked, 1, 2 * i + 1).chosen[0]);
    expect(odd).toEqual(['b', 'c', 'd', 'e', 'f', 'g']);
    expect(rankedForRun(ranked, 1, 3).left).toEqual(['a', 'b', 'd', 'e', 'f', 'g']);
  });

  it('sends the whole list, nothing left, when n covers it', () => {
    expect(rankedForRun(ranked, 7, 5)).toEqual({ chosen: ranked, left: [] });
    expect(rankedForRun(ranked, 99, 5).left).toEqual([]);
  });
});
