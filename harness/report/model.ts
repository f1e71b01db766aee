/**
 * The report model: what a run found, requirement by requirement, built by pure functions from
 * the collected check results (./results.ts, after ./waivers.ts) and the catalogue. Every output
 * format (JSON, Markdown, HTML, JUnit) renders this one model.
 */
import { REFERENCE_ONLY_PROBE_REQUIREMENTS, requirements, type Level } from '../../requirements/catalogue.ts';
import { controlGaps, type ControlGap } from './control-gaps.ts';
import { requirementsFailedBy, type CheckResult } from './results.ts';
import type { WaiverSummary } from './waivers.ts';
import { lastFullPass, probesSentFor, type ProbesSent } from './partial.ts';

export type RequirementStatus =
  | 'passed'
  | 'failed'
  | 'waived'
  | 'observed'
  | 'not_verifiable'
  | 'not_run'
  | 'not_checked';

export interface RequirementVerdict {
  readonly id: string;
  readonly level: Level;
  readonly section: string;
  readonly text: string;
  readonly checks: readonly string[];
  readonly status: RequirementStatus;
  /** Why it could not be verified with this configuration (skip reasons, de-duplicated). */
  readonly notVerifiableBecause: readonly string[];
  readonly observations: readonly string[];
  /** How it was decided outside the suites, e.g. a k6 probe. */
  readonly source?: string;
  /** Passed on part of its probes: the budget left the others to later seeds ("passed (3 of 6 probes this run)"). */
  readonly probes?: ProbesSent;
  /**
   * A partial pass: when every probe of it was last sent in one run and passed (the trend's
   * runs, this one included); null when none of them did.
   */
  readonly lastFullPass?: string | null;
}

export interface LoadProbeSummary {
  readonly probe: string;
  readonly passed: boolean;
  readonly failedThresholds: readonly string[];
  readonly requirements: Readonly<Record<string, 'passed' | 'failed'>>;
  readonly observations: readonly string[];
  /** Observations the probe recorded under a requirement's id (an OBSERVE requirement is then observed). */
  readonly requirementObservations?: Readonly<Record<string, string>>;
  readonly chart?: unknown;
  readonly finishedAt?: string;
  /**
   * Set when the probe did not finish in this run (interrupted, or k6 stopped early): it keeps no
   * verdict, and the requirements it covers are not run unless a check decided them.
   */
  readonly notFinished?: { readonly reason: string; readonly covers: readonly string[] };
  /** Requirements the probe could not decide, and why: never a pass; `not_verifiable` unless decided elsewhere. */
  readonly notVerifiable?: Readonly<Record<string, string>>;
}

export interface RunReport {
  readonly tool: string;
  readonly suiteVersion: string;
  readonly target: { readonly kind: 'embedded' | 'remote'; readonly baseUrl: string };
  readonly startedAt: string;
  readonly durationMs: number;
  readonly seed: number;
  readonly dryRun: boolean;
  readonly counts: {
    readonly checks: { passed: number; failed: number; skipped: number; waived: number; notRun: number };
    readonly observations: number;
    readonly requirements: {
      verified: number;
      passed: number;
      failed: number;
      waived: number;
      notVerifiable: number;
      observed: number;
      notRun: number;
      notChecked: number;
      total: number;
    };
  };
  readonly requests: {
    readonly sent: number;
    readonly planned: number;
    readonly rateLimited: number;
    /** Exchanges the network broke, and requests sent again, over every check (never a verdict). */
    readonly transportFailures: number;
    readonly retries: number;
  };
  readonly requirements: readonly RequirementVerdict[];
  readonly checks: readonly CheckResult[];
  readonly load: readonly LoadProbeSummary[];
  readonly regressions: readonly string[];
  readonly fixed: readonly string[];
  readonly history: ReadonlyArray<{
    startedAt: string;
    passed: number;
    failed: number;
    notVerifiable: number;
    /** Of the passed, those on part of their probes (absent in reports written before it was counted). */
    partial?: number;
  }>;
  readonly unhandledErrors: readonly string[];
  readonly interrupted: boolean;
  /** Which waiver mode the run ran in, and what its waivers did. */
  readonly waivers: WaiverSummary;
  /** Test-control states/inspections the target does not offer, and what each would unlock. */
  readonly controlGaps: readonly ControlGap[];
  /** MUST requirements the k6 probes decide that this run, made without --with-load, left undecided. */
  readonly loadWouldDecide: readonly string[];
}

/**
 * MUST requirements a k6 probe covers (catalogue: checks 'load') that these verdicts leave
 * undecided; against a remote target, not those the probes judge only against the reference. Pure.
 */
export function loadDecides(
  verdicts: ReadonlyArray<Pick<RequirementVerdict, 'id' | 'level' | 'status'>>,
  target: 'embedded' | 'remote' = 'embedded',
): string[] {
  const byLoad = new Set<string>(
    requirements.filter((r) => (r.checks as readonly string[]).includes('load')).map((r) => r.id),
  );
  if (target === 'remote') for (const id of REFERENCE_ONLY_PROBE_REQUIREMENTS) byLoad.delete(id);
  return verdicts
    .filter(
      (v) =>
        byLoad.has(v.id) &&
        v.level === 'MUST' &&
        v.status !== 'passed' &&
        v.status !== 'failed' &&
        v.status !== 'waived',
    )
    .map((v) => v.id);
}

function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

/** One requirement's verdict from the checks tagged with it (and any load probe verdict). */
export function judgeRequirement(
  requirement: (typeof requirements)[number],
  checks: readonly CheckResult[],
  load: readonly LoadProbeSummary[],
): RequirementVerdict {
  const tagged = checks.filter((c) => c.requirements.includes(requirement.id));
  const observations = unique([
    ...tagged.flatMap((c) => c.observations.filter((o) => o.requirement === requirement.id).map((o) => o.text)),
    ...load.flatMap((p) => p.requirementObservations?.[requirement.id] ?? []),
  ]);
  const probeVerdicts = load.flatMap((p) =>
    p.requirements[requirement.id] === undefined || p.notFinished !== undefined
      ? []
      : [{ probe: p.probe, verdict: p.requirements[requirement.id]! }],
  );
  const unfinished = load.filter((p) => p.notFinished?.covers.includes(requirement.id) === true);
  const base = {
    id: requirement.id,
    level: requirement.level,
    section: requirement.section,
    text: requirement.text,
    checks: tagged.map((c) => c.name),
    observations,
  };
  // A check failed only by other requirements' verdicts (t.verify) passed this one; a failure a
  // waiver covers for this requirement makes it `waived` (never `passed`).
  const failsThis = (c: CheckResult) => requirementsFailedBy(c).includes(requirement.id);
  const failing = tagged.filter(failsThis);
  const waived = failing.some((c) => c.waivedRequirements?.includes(requirement.id) === true);
  const failed =
    failing.some((c) => c.waivedRequirements?.includes(requirement.id) !== true) ||
    probeVerdicts.some((p) => p.verdict === 'failed');
  const passed =
    tagged.some((c) => c.status === 'passed' || ((c.status === 'failed' || c.status === 'waived') && !failsThis(c))) ||
    probeVerdicts.some((p) => p.verdict === 'passed');
  const probesHeard = load
    .filter(
      (p) => p.requirements[requirement.id] !== undefined || p.requirementObservations?.[requirement.id] !== undefined,
    )
    .map((p) => p.probe);
  const source = probesHeard.length > 0 ? `k6 ${probesHeard.join(', ')}` : undefined;
  const probesUnsure = load.filter(
    (p) => p.notFinished === undefined && p.notVerifiable?.[requirement.id] !== undefined,
  );
  const notVerifiableBecause = unique([
    ...tagged.filter((c) => c.status === 'skipped' && c.skipReason !== undefined).map((c) => c.skipReason!),
    ...unfinished.map((p) => `k6 ${p.probe}: ${p.notFinished!.reason}`),
    ...probesUnsure.map((p) => `k6 ${p.probe}: not verifiable: ${p.notVerifiable![requirement.id]}`),
  ]);
  // Checks an interrupted run never reached, and probes that did not finish, say nothing about the
  // target: "not run", not "not verifiable" and never "failed".
  const undecided: RequirementStatus =
    unfinished.length > 0
      ? 'not_run'
      : tagged.some((c) => c.status === 'skipped') || probesUnsure.length > 0
        ? 'not_verifiable'
        : tagged.length > 0
          ? 'not_run'
          : 'not_checked';
  let status: RequirementStatus;
  if (requirement.level === 'OBSERVE') {
    status = passed || failed || observations.length > 0 ? 'observed' : undecided;
  } else if (failed) status = 'failed';
  else if (waived) status = 'waived';
  else if (passed) status = 'passed';
  else status = undecided;
  const probes = status === 'passed' ? probesSentFor(requirement.id, tagged) : undefined;
  return {
    ...base,
    status,
    notVerifiableBecause,
    ...(source === undefined ? {} : { source }),
    ...(probes === undefined ? {} : { probes }),
  };
}

export interface ReportInput {
  readonly tool: string;
  readonly suiteVersion: string;
  readonly target: RunReport['target'];
  readonly startedAt: string;
  readonly durationMs: number;
  readonly seed: number;
  readonly dryRun: boolean;
  readonly checks: readonly CheckResult[];
  readonly load: readonly LoadProbeSummary[];
  readonly previous: ReadonlyArray<Pick<RunReport, 'startedAt' | 'requirements' | 'counts'>>;
  readonly requestsSent: number;
  readonly unhandledErrors: readonly string[];
  readonly interrupted: boolean;
  readonly waivers?: WaiverSummary;
  /** The k6 probes ran after the checks (--with-load): nothing is left for them to decide. */
  readonly withLoad?: boolean;
}

export function buildReport(input: ReportInput): RunReport {
  const judged = requirements.map((r) => judgeRequirement(r, input.checks, input.load));
  const trend = [...input.previous, { startedAt: input.startedAt, requirements: judged }];
  const verdicts = judged.map((v) =>
    v.probes === undefined ? v : { ...v, lastFullPass: lastFullPass(v.id, trend) ?? null },
  );
  const count = (status: RequirementStatus) => verdicts.filter((v) => v.status === status).length;
  const last = input.previous.at(-1);
  const before = new Map(last?.requirements.map((r) => [r.id, r.status]) ?? []);
  const regressions = verdicts.filter((v) => v.status === 'failed' && before.get(v.id) === 'passed').map((v) => v.id);
  const fixed = verdicts.filter((v) => v.status === 'passed' && before.get(v.id) === 'failed').map((v) => v.id);
  const requirementCounts = {
    verified: count('passed') + count('failed') + count('waived'),
    passed: count('passed'),
    failed: count('failed'),
    waived: count('waived'),
    notVerifiable: count('not_verifiable'),
    observed: count('observed'),
    notRun: count('not_run'),
    notChecked: count('not_checked'),
    total: verdicts.length,
  };
  return {
    tool: input.tool,
    suiteVersion: input.suiteVersion,
    target: input.target,
    startedAt: input.startedAt,
    durationMs: input.durationMs,
    seed: input.seed,
    dryRun: input.dryRun,
    counts: {
      checks: {
        passed: input.checks.filter((c) => c.status === 'passed').length,
        failed: input.checks.filter((c) => c.status === 'failed').length,
        skipped: input.checks.filter((c) => c.status === 'skipped').length,
        waived: input.checks.filter((c) => c.status === 'waived').length,
        notRun: input.checks.filter((c) => c.status === 'not_run').length,
      },
      observations: verdicts.reduce((sum, v) => sum + v.observations.length, 0),
      requirements: requirementCounts,
    },
    requests: {
      sent: input.requestsSent,
      planned: input.checks.reduce((sum, c) => sum + c.plannedRequests, 0),
      rateLimited: input.checks.reduce((sum, c) => sum + c.rateLimited, 0),
      transportFailures: input.checks.reduce((sum, c) => sum + (c.transport?.failures ?? 0), 0),
      retries: input.checks.reduce((sum, c) => sum + (c.transport?.retries ?? 0), 0),
    },
    requirements: verdicts,
    checks: input.checks,
    load: input.load,
    regressions,
    fixed,
    history: [
      ...input.previous.map((p) => ({
        startedAt: p.startedAt,
        passed: p.counts.requirements.passed,
        failed: p.counts.requirements.failed,
        notVerifiable: p.counts.requirements.notVerifiable,
        partial: p.requirements.filter((r) => r.probes !== undefined).length,
      })),
      {
        startedAt: input.startedAt,
        passed: requirementCounts.passed,
        failed: requirementCounts.failed,
        notVerifiable: requirementCounts.notVerifiable,
        partial: verdicts.filter((v) => v.probes !== undefined).length,
      },
    ].slice(-30),
    unhandledErrors: input.unhandledErrors,
    interrupted: input.interrupted,
    waivers: input.waivers ?? { mode: 'none', entries: 0, applied: [], expired: [], unused: [] },
    controlGaps: controlGaps(input.checks, verdicts),
    loadWouldDecide: input.withLoad === true || input.dryRun ? [] : loadDecides(verdicts, input.target.kind),
  };
}

/**
 * 0 when every MUST requirement verified passed or is waived (and the run completed, no waiver expired), 1 otherwise.
 */
export function exitCodeOf(report: RunReport): 0 | 1 {
  if (report.dryRun) return 0;
  const mustFailed = report.requirements.some((r) => r.level === 'MUST' && r.status === 'failed');
  const failedChecks = report.counts.checks.failed > 0;
  return mustFailed ||
    failedChecks ||
    report.unhandledErrors.length > 0 ||
    report.interrupted ||
    report.waivers.expired.length > 0
    ? 1
    : 0;
}
