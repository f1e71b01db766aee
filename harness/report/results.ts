/**
 * The first stage of the report pipeline: what one check produced, as the collector records it
 * (./collector.ts), and what later stages attach to it (the waivers that cover a failure,
 * ./waivers.ts). Pipeline: results → waivers → model (./model.ts) → renderers; each stage imports
 * only the stages before it. Pure.
 */

/** A known failure, as a waiver file states it (./waivers.ts reads, validates and applies them). */
export interface Waiver {
  readonly requirement: string;
  readonly check?: string | undefined;
  readonly reason?: string | undefined;
  readonly ticket?: string | undefined;
  /** YYYY-MM-DD, the last day the waiver holds (UTC). */
  readonly expires?: string | undefined;
}

/**
 * `waived`: failed, and a waiver covers every requirement it failed (harness/report/waivers.ts).
 * `not_run`: the run was interrupted before the check ran (neither a skip nor "not verifiable").
 */
export type CheckStatus = 'passed' | 'failed' | 'skipped' | 'waived' | 'not_run';

export interface CheckResult {
  /** Stable id: project, file and full name. */
  readonly id: string;
  readonly project: string;
  readonly file: string;
  readonly name: string;
  readonly status: CheckStatus;
  readonly durationMs: number;
  readonly requirements: readonly string[];
  readonly failure?: string | undefined;
  readonly skipReason?: string | undefined;
  /** Skipped: the control capabilities whose absence alone made it not verifiable (./control-gaps.ts). */
  readonly missingCapabilities?: readonly string[];
  readonly observations: ReadonlyArray<{ requirement: string; text: string }>;
  readonly exchanges: ReadonlyArray<Record<string, unknown>>;
  /** Earlier exchanges of a failed check left out of `exchanges` (the cap per check). */
  readonly exchangesOmitted?: number;
  readonly requests: number;
  readonly plannedRequests: number;
  /** Requests it would plan sending every probe (the dry run's full-set figure); absent: as planned. */
  readonly plannedRequestsAll?: number;
  /** Its rotated probes, when this run left some to later seeds (harness/scheduling/rotation.ts). */
  readonly probes?: {
    readonly requirement: string;
    readonly sent: number;
    readonly of: number;
    readonly left: readonly string[];
  };
  readonly rateLimited: number;
  /** Exchanges the network broke, and requests sent again (after one, a 429 or a 503); absent when none. */
  readonly transport?: { readonly failures: number; readonly retries: number };
  /** Failed requirements a waiver covers, and those waivers (harness/report/waivers.ts). */
  readonly waivedRequirements?: readonly string[];
  readonly waivers?: readonly Waiver[];
  /** Set when the check failed only by per-requirement verdicts (t.verify): the ids it failed. */
  readonly failedRequirements?: readonly string[] | undefined;
}

/** The requirements a failed check fails: those its verdicts name, or every one it verifies. */
export function requirementsFailedBy(
  check: Pick<CheckResult, 'status' | 'requirements' | 'failedRequirements'>,
): readonly string[] {
  if (check.status !== 'failed' && check.status !== 'waived') return [];
  return check.failedRequirements ?? check.requirements;
}

/** "A, B" for a plain failure; "failed A · passed B, C" when per-requirement verdicts split it. */
export function failedRequirementsText(
  check: Pick<CheckResult, 'status' | 'requirements' | 'failedRequirements'>,
): string {
  const failed = requirementsFailedBy(check);
  if (check.failedRequirements === undefined) return failed.join(', ');
  const passed = check.requirements.filter((id) => !failed.includes(id));
  return `failed ${failed.join(', ')}${passed.length > 0 ? ` · passed ${passed.join(', ')}` : ''}`;
}

/** The observation every property check records (harness/checks/property.ts): its seed and replay command. */
export const SEED_NOTE_PREFIX = 'property seed ';

/** A seed note is replay information of a check, not something the target did. */
export function isSeedNote(text: string): boolean {
  return text.startsWith(SEED_NOTE_PREFIX);
}
