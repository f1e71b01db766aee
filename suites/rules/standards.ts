/**
 * How the standards judge words a requirement's lint tally (contract/standards/lint.ts): the
 * tallies of the API client and of the receiver merged, the findings of MUST rules apart from
 * those of SHOULD rules. Pure.
 */
import type { LintTally } from '../../contract/standards/lint.ts';
import type { Finding, LintRequirement } from '../../contract/standards/rule.ts';

export interface RequirementLint {
  readonly applied: number;
  /** Of `rules`, those no message of this run was of the kind of. */
  readonly idle: readonly string[];
  readonly broken: number;
  readonly must: readonly Finding[];
  readonly should: readonly Finding[];
}

export function lintOf(
  requirement: LintRequirement,
  tallies: ReadonlyArray<LintTally | undefined>,
  rules: readonly string[] = [],
): RequirementLint {
  const present = tallies.filter((t): t is LintTally => t !== undefined);
  const idle = rules.filter((rule) => present.every((t) => (t.appliedRules.get(rule) ?? 0) === 0));
  const sum = (pick: (t: LintTally) => ReadonlyMap<LintRequirement, number>) =>
    present.reduce((n, t) => n + (pick(t).get(requirement) ?? 0), 0);
  const findings = present.flatMap((t) => t.examples.get(requirement) ?? []);
  return {
    applied: sum((t) => t.applied),
    idle,
    broken: sum((t) => t.broken),
    must: findings.filter((f) => f.level === 'MUST'),
    should: findings.filter((f) => f.level === 'SHOULD'),
  };
}

/** "LINT-9110-DATE-PRESENT (RFC …): GET /v1/me → 200: no Date; …", the first findings of a requirement. */
export function describeFindings(findings: readonly Finding[], broken: number, applied: number): string {
  const lines = findings.map((f) => `${f.rule}: ${f.message}: ${f.problem}`);
  return `${broken} of ${applied} messages break it: ${lines.join('; ')}${broken > findings.length ? '; …' : ''}`;
}
