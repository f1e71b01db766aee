import { describe, expect, it } from 'vitest';
import { isRequirementId } from '../../requirements/catalogue.ts';
import { deriveProbes } from '../../operators/catalogue.ts';
import { elementRules, narrow, numberRules, pastWindow } from '../../suites/rules/near-misses.ts';
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
