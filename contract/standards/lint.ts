/**
 * The protocol lint: every rule of ./registry.ts applied to one message. It sends nothing; the
 * run's client and receiver call it on what they already exchanged, and a check turns the tally
 * into verdicts (suites/standards.judge.suite.ts). Pure.
 */
import { messageLabel, type LintedMessage } from './message.ts';
import { lintRules } from './registry.ts';
import type { Finding, LintRequirement, LintRule } from './rule.ts';

export interface MessageLint {
  /** The requirements some rule applied to (a message of their kind was seen). */
  readonly applied: readonly LintRequirement[];
  /** The rules that applied. */
  readonly rules: readonly string[];
  readonly findings: readonly Finding[];
}

/** What every rule that applies to `message` finds in it. */
export function lintMessage(message: LintedMessage, rules: readonly LintRule[] = lintRules): MessageLint {
  const applicable = rules.filter((rule) => rule.applies(message));
  const findings = applicable.flatMap((rule) => {
    const problem = rule.problem(message);
    return problem === undefined
      ? []
      : [{ rule: rule.id, requirement: rule.requirement, level: rule.level, message: messageLabel(message), problem }];
  });
  const applied = [...new Set(applicable.map((rule) => rule.requirement))];
  return { applied, rules: applicable.map((rule) => rule.id), findings };
}

/** Findings kept per requirement: the first ones, which a report quotes. */
export const FINDINGS_KEPT = 5;

export interface LintTally {
  /** Messages each requirement's rules applied to. */
  readonly applied: ReadonlyMap<LintRequirement, number>;
  /** Messages each rule applied to, by rule id. */
  readonly appliedRules: ReadonlyMap<string, number>;
  /** Messages each requirement's rules found something in. */
  readonly broken: ReadonlyMap<LintRequirement, number>;
  /** The first FINDINGS_KEPT findings of each requirement. */
  readonly examples: ReadonlyMap<LintRequirement, readonly Finding[]>;
}

/** A tally that is still counting. */
export type RunningTally = LintTally & { add(lint: MessageLint): void };

/** A running tally of many messages' lint: small whatever the run's size. */
export function createLintTally(): RunningTally {
  const applied = new Map<LintRequirement, number>();
  const broken = new Map<LintRequirement, number>();
  const appliedRules = new Map<string, number>();
  const examples = new Map<LintRequirement, Finding[]>();
  return {
    applied,
    appliedRules,
    broken,
    examples,
    add(lint) {
      for (const requirement of lint.applied) applied.set(requirement, (applied.get(requirement) ?? 0) + 1);
      for (const rule of lint.rules) appliedRules.set(rule, (appliedRules.get(rule) ?? 0) + 1);
      for (const requirement of new Set(lint.findings.map((f) => f.requirement)))
        broken.set(requirement, (broken.get(requirement) ?? 0) + 1);
      for (const finding of lint.findings) {
        const kept = examples.get(finding.requirement) ?? [];
        if (kept.length < FINDINGS_KEPT && !kept.some((k) => k.rule === finding.rule && k.problem === finding.problem))
          examples.set(finding.requirement, [...kept, finding]);
      }
    },
  };
}

/** A tally as plain data: what a test worker hands the run channel, and what is merged there. */
export interface TallyRecord {
  readonly applied: Readonly<Record<string, number>>;
  readonly appliedRules: Readonly<Record<string, number>>;
  readonly broken: Readonly<Record<string, number>>;
  readonly examples: Readonly<Record<string, readonly Finding[]>>;
}

export function tallyRecord(tally: LintTally): TallyRecord {
  return {
    applied: Object.fromEntries(tally.applied),
    appliedRules: Object.fromEntries(tally.appliedRules),
    broken: Object.fromEntries(tally.broken),
    examples: Object.fromEntries(tally.examples),
  };
}

/** The tallies of several workers as one: counts added, the first FINDINGS_KEPT findings of each kept. */
export function mergeTallies(records: readonly TallyRecord[]): LintTally {
  const add = (pick: (r: TallyRecord) => Readonly<Record<string, number>>) => {
    const sum = new Map<string, number>();
    for (const record of records)
      for (const [key, n] of Object.entries(pick(record))) sum.set(key, (sum.get(key) ?? 0) + n);
    return sum;
  };
  const examples = new Map<LintRequirement, Finding[]>();
  for (const record of records)
    for (const [requirement, findings] of Object.entries(record.examples)) {
      const kept = examples.get(requirement as LintRequirement) ?? [];
      examples.set(requirement as LintRequirement, [...kept, ...findings].slice(0, FINDINGS_KEPT));
    }
  return {
    applied: add((r) => r.applied) as Map<LintRequirement, number>,
    appliedRules: add((r) => r.appliedRules),
    broken: add((r) => r.broken) as Map<LintRequirement, number>,
    examples,
  };
}
