/**
 * Partial passes: a requirement whose probes this run only partly sent (the budget left some to
 * later seeds, harness/scheduling/rotation.ts) passes for what was sent and says so, never as a
 * whole pass; and the trend says when every probe of it was last sent and passed. Pure.
 */
import type { CheckResult } from './results.ts';

/** Probes of a requirement this run sent, of how many it has; only where some were left out. */
export interface ProbesSent {
  readonly sent: number;
  readonly of: number;
}

/** A check out of its turn in a rotation sends nothing (rotation.ts turnOf): its reason says so. */
const OUT_OF_TURN = /^not verifiable: request budget: /;

/**
 * Of the probes of `requirement` behind these checks, how many this run sent: a check's rotated
 * probes of it as it declared them, a check out of its turn as one probe not sent, any other
 * check that ran as one sent; undefined when every one was sent (or none of its checks rotates).
 */
export function probesSentFor(
  requirement: string,
  checks: ReadonlyArray<Pick<CheckResult, 'requirements' | 'status' | 'skipReason' | 'probes'>>,
): ProbesSent | undefined {
  let sent = 0;
  let of = 0;
  for (const c of checks) {
    if (!c.requirements.includes(requirement)) continue;
    if (c.status === 'skipped') {
      if (OUT_OF_TURN.test(c.skipReason ?? '')) of += 1;
      continue;
    }
    if (c.status === 'not_run') continue;
    if (c.probes?.requirement === requirement) {
      sent += c.probes.sent;
      of += c.probes.of;
    } else {
      sent += 1;
      of += 1;
    }
  }
  return sent < of ? { sent, of } : undefined;
}

/** "passed (3 of 6 probes this run)": the status every format shows for a partial pass. */
export function partialText(status: string, probes: ProbesSent | undefined): string {
  return probes === undefined ? status : `${status} (${probes.sent} of ${probes.of} probes this run)`;
}

/** A run as the trend reads it: when it started, and each requirement's status and probes. */
export interface RunOfTrend {
  readonly startedAt: string;
  readonly requirements: ReadonlyArray<{ id: string; status: string; probes?: ProbesSent | undefined }>;
}

/**
 * When every probe of `id` was last sent in one run and passed: the start of the latest such
 * run among `runs` (oldest first, this one last), or undefined when none of them did.
 */
export function lastFullPass(id: string, runs: readonly RunOfTrend[]): string | undefined {
  for (let i = runs.length - 1; i >= 0; i--) {
    const r = runs[i]!.requirements.find((v) => v.id === id);
    if (r?.status === 'passed' && r.probes === undefined) return runs[i]!.startedAt;
  }
  return undefined;
}
