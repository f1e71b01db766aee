import { describe, expect, it } from 'vitest';
import { isRequirementId } from '../../requirements/catalogue.ts';
import { budgetOf, DEFAULT_BUDGET, EVERYTHING } from '../../harness/scheduling/budget.ts';
import { familySlice } from '../../harness/scheduling/rotation.ts';
import { deriveProbes, rankProbes } from '../../operators/catalogue.ts';
import {
  BEHAVIOUR_REQUESTS_MAX,
  elementRules,
  FOREIGN_ID_REQUESTS,
  issuedIdRequests,
  NEAR_MISS_DEFAULT_REQUESTS,
  NEAR_MISS_PER_RUN,
  narrow,
  numberRules,
  originates,
  pastWindow,
  valueProbeRequests,
} from '../../suites/rules/near-misses.ts';
import { doc } from '../operators/fixtures.ts';

describe('near-misses-request.suite.ts: the rules beside the operators', () => {
  it('name a requirement of the catalogue for every element openapi.json derives a near miss for', () => {
    const derived = deriveProbes(doc);
    for (const probe of derived.strings) expect(elementRules[probe.element.id], probe.element.id).toBeDefined();
    for (const probe of derived.numbers) expect(numberRules[probe.element.id], probe.element.id).toBeDefined();
    const ids = [
      ...Object.values(elementRules).flatMap((r) => [r.refused, r.same, ...Object.values(r.byOperator ?? {})]),
      ...Object.values(numberRules).flatMap((r) => Object.values(r)),
    ].filter((id) => id !== undefined);
    for (const id of ids) expect(isRequirementId(id), id).toBe(true);
  });

  it('narrow a refusal to the one code the errors table gives that kind of input', () => {
    const codes = ['invalid_timestamp', 'till_must_be_after_from', 'window_too_wide'];
    expect(narrow({ kind: 'refused', answers: [{ status: 400, codes }] }, 'invalid_timestamp')).toEqual({
      kind: 'refused',
      answers: [{ status: 400, codes: ['invalid_timestamp'] }],
    });
    expect(narrow({ kind: 'same-value', or: [{ status: 400, codes }] }, undefined)).toEqual({
      kind: 'same-value',
      or: [{ status: 400, codes }],
    });
  });

  it('probe a window of six hours (or the span asked for), ending at a whole hour at least two hours ago', () => {
    const now = Date.parse('2026-03-01T10:17:00Z');
    expect(pastWindow(now)).toEqual({ from: '2026-03-01T02:00:00Z', till: '2026-03-01T08:00:00Z' });
    expect(pastWindow(now, 86_400_000)).toEqual({ from: '2026-02-28T08:00:00Z', till: '2026-03-01T08:00:00Z' });
  });
});

describe('the near-miss families in the request budget', () => {
  const ranked = rankProbes(deriveProbes(doc));
  const families = [
    ['surface', ranked.surface],
    ['credentials', ranked.credentials],
    ['constrained strings', ranked.strings],
    ['numbers', ranked.numbers],
    ['identifiers', ranked.identifiers],
  ] as const;

  /** The requests the request-shape checks plan for `seed`, as near-misses-request.suite.ts counts them. */
  function planned(seed: number, budget = DEFAULT_BUDGET): number {
    const sent = <T>(list: readonly T[], family: keyof typeof NEAR_MISS_PER_RUN) =>
      familySlice(list, NEAR_MISS_PER_RUN[family], budget, seed).chosen;
    const strings = new Map<string, (typeof ranked.strings)[number][]>();
    for (const p of sent(ranked.strings, 'constrained strings')) {
      const check = `${p.element.id} ${originates(p)}`;
      strings.set(check, [...(strings.get(check) ?? []), p]);
    }
    const identifiers = sent(ranked.identifiers, 'identifiers');
    return (
      sent(ranked.surface, 'surface').length +
      sent(ranked.credentials, 'credentials').length +
      [...strings.values()].reduce((sum, list) => sum + valueProbeRequests(list), 0) +
      sent(ranked.numbers, 'numbers').length +
      issuedIdRequests(identifiers.filter((p) => p.needs !== 'foreign')) +
      identifiers.filter((p) => p.needs === 'foreign').length * FOREIGN_ID_REQUESTS
    );
  }

  it('add at most NEAR_MISS_DEFAULT_REQUESTS to a default run, whatever the seed', () => {
    let most = 0;
    for (let seed = 0; seed < 2 * 3 * 5 * 7 * 23; seed++) most = Math.max(most, planned(seed));
    expect(most + BEHAVIOUR_REQUESTS_MAX).toBeLessThanOrEqual(NEAR_MISS_DEFAULT_REQUESTS);
    // The room is used: the worst seed sends it all.
    expect(most + BEHAVIOUR_REQUESTS_MAX).toBe(NEAR_MISS_DEFAULT_REQUESTS);
  });

  it('send the likeliest slip of a family every run where it sends two, and every probe over consecutive seeds', () => {
    for (const [family, list] of families) {
      const perRun = NEAR_MISS_PER_RUN[family];
      const seen = new Set<unknown>();
      const seeds = 2 * list.length;
      for (let seed = 1000; seed < 1000 + seeds; seed++) {
        const { chosen } = familySlice<unknown>(list, perRun, DEFAULT_BUDGET, seed);
        expect(chosen, family).toHaveLength(perRun);
        if (perRun >= 2) expect(chosen[0], family).toBe(list[0]);
        for (const p of chosen) seen.add(p);
      }
      expect(seen.size, family).toBe(list.length);
    }
  });

  it('send proportionally more under a larger budget, and everything embedded or with --all-probes', () => {
    const wide = budgetOf(80, 60_000, 113 * 3);
    expect(familySlice(ranked.surface, NEAR_MISS_PER_RUN.surface, wide, 3).chosen).toHaveLength(6);
    expect(planned(3, wide)).toBeGreaterThan(planned(3));
    for (const budget of [EVERYTHING, budgetOf(80, 60_000, 113, true)])
      for (const [family, list] of families)
        expect(familySlice<unknown>(list, NEAR_MISS_PER_RUN[family], budget, 3).chosen, family).toEqual(list);
  });
});
