/**
 * The rotation of near-miss probes across remote runs: each run sends one slice, and as many
 * runs as there are slices, with consecutive seeds, send every probe exactly once.
 */
import { describe, expect, it } from 'vitest';
import { rankedTurnOf, sliceForRun, turnBeyondGate, turnOf } from '../../../harness/scheduling/rotation.ts';
import { DEFAULT_BUDGET, EVERYTHING, budgetOf } from '../../../harness/scheduling/budget.ts';
import { heldAtLeast, limitProblem } from '../../../harness/checks/verdicts.ts';

describe('sliceForRun', () => {
  const cases = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

  it('sends everything when the list fits in one run', () => {
    expect(sliceForRun(cases, 7, 12345)).toEqual({ chosen: cases, index: 0, slices: 1 });
    expect(sliceForRun(cases, 10, 3).chosen).toEqual(cases);
  });

  it('covers every probe exactly once over `slices` consecutive seeds, whatever the first seed', () => {
    for (const perRun of [1, 2, 3]) {
      for (const first of [0, 1, 2, 987654321]) {
        const { slices } = sliceForRun(cases, perRun, first);
        expect(slices).toBe(Math.ceil(cases.length / perRun));
        const sent = Array.from({ length: slices }, (_, i) => sliceForRun(cases, perRun, first + i).chosen).flat();
        expect([...sent].sort()).toEqual([...cases].sort());
      }
    }
  });

  it('never sends more than perRun probes, and the same seed always sends the same slice', () => {
    for (let seed = 0; seed < 20; seed++) {
      expect(sliceForRun(cases, 2, seed).chosen.length).toBeLessThanOrEqual(2);
      expect(sliceForRun(cases, 2, seed)).toEqual(sliceForRun(cases, 2, seed));
    }
  });
});

describe('the CDR limit verdicts hold under both readings of count', () => {
  const answer = (rows: number, count = rows) => ({
    count,
    calls: Array.from({ length: rows }, (_, i) => ({ id: String(i) })),
  });

  it('reads how many records a window holds from its rows, or from a count that says more', () => {
    expect(heldAtLeast(answer(100))).toBe(100);
    expect(heldAtLeast(answer(100, 1473))).toBe(1473);
  });

  it('requires exactly min(limit, held) rows', () => {
    expect(limitProblem(answer(100), 100, 1000, 'without limit')).toBeUndefined();
    expect(limitProblem(answer(99), 100, 1000, 'without limit')).toMatch(/returned 99, must be exactly 100/);
    expect(limitProblem(answer(40), 100, 40, 'without limit')).toBeUndefined();
    expect(limitProblem(answer(1, 1473), 1, 1473, 'limit=1')).toBeUndefined();
  });
});

describe('turnOf: whole checks taking turns across remote runs', () => {
  const members = ['a', 'b', 'c', 'd', 'e'];

  it('runs every member against the embedded reference, and records nothing', () => {
    for (const m of members) expect(turnOf(members, m, 1, false, 'the group')).toEqual({ runs: true, note: '' });
  });

  it('runs perRun members per remote run, every member once over `slices` consecutive seeds, and says so', () => {
    for (const first of [0, 3, 1234567]) {
      const ran: string[] = [];
      for (let seed = first; seed < first + 3; seed++) {
        // The seed a run context carries (its default), given here.
        const running = members.filter(
          (m) => turnOf(members, m, 2, true, 'the group', String, seed, DEFAULT_BUDGET).runs,
        );
        expect(running.length).toBeGreaterThan(0);
        expect(running.length).toBeLessThanOrEqual(2);
        ran.push(...running);
      }
      expect([...ran].sort()).toEqual(members);
    }
    const turn = turnOf(members, 'a', 1, true, 'the group', String, 7, DEFAULT_BUDGET);
    // Seed 7 sends slice 3 of 5 (c): "slice i of k" is what the remote self-proof reads.
    expect(turn.runs).toBe(false);
    expect(turn.note).toMatch(
      new RegExp(
        /^request budget: this run \(seed 7\) sends slice 3 of 5 of the group \(c\); /.source +
          /runs with the next 4 seed\(s\) send the others \(a; b; d; e\)$/.source,
      ),
    );
  });

  it('widens with the budget: twice the default sends twice as many members, the full set every one', () => {
    const doubled = budgetOf(80, 60_000, 226);
    const running = members.filter((m) => turnOf(members, m, 1, true, 'the group', String, 4, doubled).runs);
    // 301 requests: 2 a run, seed 4 sends slice 2 of 3.
    expect(running).toEqual(['c', 'd']);
    for (const m of members)
      expect(turnOf(members, m, 1, true, 'the group', String, 4, EVERYTHING)).toEqual({ runs: true, note: '' });
  });
});

describe('rankedTurnOf: ranked checks taking turns like a ranked probe list', () => {
  const members = ['likeliest', 'b', 'c', 'd', 'e'];

  it('sends the likeliest on even seeds and the others in turns on odd ones, one a run at the default', () => {
    const running = (seed: number) =>
      members.filter((m) => rankedTurnOf(members, m, 1, true, 'checks', String, seed, DEFAULT_BUDGET).runs);
    expect(running(0)).toEqual(['likeliest']);
    expect(running(2)).toEqual(['likeliest']);
    const odd = new Set([1, 3, 5, 7].flatMap(running));
    expect([...odd].sort()).toEqual(['b', 'c', 'd', 'e']);
    const turn = rankedTurnOf(members, 'b', 1, true, 'checks', String, 1, DEFAULT_BUDGET);
    expect(turn.note).toBe(
      'request budget: this run (seed 1) sends 1 of the 5 checks, ranked likeliest slip first (b); later seeds ' +
        'send the others (likeliest; c; d; e)',
    );
  });

  it('runs every member embedded, with --all-probes, or under a budget that widens it to all', () => {
    for (const m of members) {
      expect(rankedTurnOf(members, m, 1, false, 'checks')).toEqual({ runs: true, note: '' });
      expect(rankedTurnOf(members, m, 1, true, 'checks', String, 3, EVERYTHING)).toEqual({ runs: true, note: '' });
      expect(rankedTurnOf(members, m, 1, true, 'checks', String, 3, budgetOf(80, 60_000, 113 * 5)).runs).toBe(true);
    }
  });
});

describe('turnBeyondGate: checks that give way at the default budget', () => {
  const members = ['one', 'two'];
  const runs = (budget: typeof DEFAULT_BUDGET, seed: number) =>
    members.filter((m) => turnBeyondGate(members, m, true, 'the group', String, seed, budget).runs);

  it('sends none at the default, one in turns at twice the gate, both at three times or with --all-probes', () => {
    expect(runs(DEFAULT_BUDGET, 0)).toEqual([]);
    expect(turnBeyondGate(members, 'one', true, 'the group', String, 0, DEFAULT_BUDGET).note).toBe(
      'request budget: the group give way at a budget of 150 requests; one of 300 sends one of them, ' +
        '--all-probes or a budget covering the full set all',
    );
    const twice = budgetOf(80, 60_000, 226);
    expect(twice.requests).toBe(301);
    expect([...runs(twice, 0), ...runs(twice, 1)].sort()).toEqual(['one', 'two']);
    expect(runs(twice, 0)).toHaveLength(1);
    expect(runs(budgetOf(80, 60_000, 339), 5)).toEqual(members);
    expect(runs(EVERYTHING, 5)).toEqual(members);
    expect(members.filter((m) => turnBeyondGate(members, m, false, 'the group').runs)).toEqual(members);
  });
});
