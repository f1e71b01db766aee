/**
 * The states and inspections the target's control endpoint lacks (or all of them, without
 * CONTROL_URL), each with the requirements it would make verifiable, from what the skipped checks
 * say they miss: the list a report ends with, as Pact prints missing state handlers. Pure.
 */
import type { CheckResult } from './results.ts';

export interface ControlGap {
  readonly capability: string;
  /**
   * Requirements not verifiable in this run that a check needing
   * only this (and other missing control capabilities) verifies.
   */
  readonly unlocks: readonly string[];
}

export function controlGaps(
  checks: readonly CheckResult[],
  verdicts: ReadonlyArray<{ readonly id: string; readonly status: string }>,
): ControlGap[] {
  const notVerifiable = new Set(verdicts.filter((v) => v.status === 'not_verifiable').map((v) => v.id));
  const unlocks = new Map<string, Set<string>>();
  for (const check of checks) {
    if (check.status !== 'skipped') continue;
    for (const capability of check.missingCapabilities ?? []) {
      const ids = unlocks.get(capability) ?? new Set<string>();
      for (const id of check.requirements) if (notVerifiable.has(id)) ids.add(id);
      unlocks.set(capability, ids);
    }
  }
  return [...unlocks]
    .map(([capability, ids]) => ({ capability, unlocks: [...ids].sort() }))
    .sort((a, b) => b.unlocks.length - a.unlocks.length || a.capability.localeCompare(b.capability));
}
