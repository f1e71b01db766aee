/**
 * The wall time of `occ run --with-load`, part by part: what `--dry-run --with-load` expects, and what a
 * run measured. Pure (the run passes its clock readings in); one place for both, so the expectation
 * and the measurement name the same parts.
 */
import {
  OVER_WINDOWS_EXPECTED,
  REFERENCE_WINDOW_MS,
  rateLimitShape,
  underStartMs,
  webhookDrive,
  webhookRetryRequests,
} from '../load/lib/probe-shape.ts';

export interface WallTimePart {
  readonly part: string;
  readonly ms: number;
  readonly detail: string;
}

/** The throttle's bucket: this many requests go at once, then its rate (harness/http/throttle.ts). */
const THROTTLE_BURST = 10;
/** Starting vitest, its worker and the target; reading reports. */
const RUN_OVERHEAD_MS = 5_000;
/** Starting a probe: finding k6, the receiver, k6's own start and summary. */
const PROBE_OVERHEAD_MS = 2_000;
/**
 * Driving the webhook-retry probe's deliveries in virtual time: the one plan that leaves attempts
 * unanswered waits twice for the target's delivery timeout in real time (the spec gives none; 5 s is
 * the reference's), the rest is control requests.
 */
const VIRTUAL_DRIVE_MS = 12_000;
/** The embedded reference's probe: its virtual clock and a 1 s delivery timeout. */
const REFERENCE_DRIVE_MS = 3_000;
/** Requests of the watch's closing and the hook sweep at the end of a run, assumed for the estimate. */
const EXPECTED_SWEEP_REQUESTS = 10;
/** The rate-limit probe's tolerance on the limit (load/rate-limit.ts). */
const TOLERANCE = 0.05;

export interface WithLoadPlan {
  readonly remote: boolean;
  /** CONTROL_URL is set (the dry run does not ask what it offers). */
  readonly control: boolean;
  /** Requests the checks plan, and the client's rate (undefined: no throttle). */
  readonly plannedRequests: number;
  readonly requestsPerMinute: number | undefined;
  readonly rateWindowMs: number;
  readonly limit: number;
  /** WEBHOOK_BUDGET_S of a remote run's watch (the embedded run watches for 5 s). */
  readonly webhookBudgetS: number;
  /** TIME_BUDGET_S of the webhook-retry probe's real-time watch. */
  readonly timeBudgetS: number;
}

/** What `--dry-run --with-load` expects each part to take, in the order they run. Pure. */
export function expectedWallTime(plan: WithLoadPlan): WallTimePart[] {
  const throttleMs =
    plan.requestsPerMinute === undefined
      ? 0
      : (Math.max(0, plan.plannedRequests - THROTTLE_BURST) / plan.requestsPerMinute) * plan.rateWindowMs;
  const watchMs = (plan.remote ? plan.webhookBudgetS : 5) * 1000;
  const checksMs = Math.max(throttleMs, watchMs) + RUN_OVERHEAD_MS;
  const drive = webhookDrive(plan);
  const driveMs = { reference: REFERENCE_DRIVE_MS, control: VIRTUAL_DRIVE_MS, watch: plan.timeBudgetS * 1000 }[drive];
  const windowMs = plan.remote ? plan.rateWindowMs : REFERENCE_WINDOW_MS;
  const shape = rateLimitShape(plan.limit, windowMs);
  // Remotely the run's watch holds its last window quiet when it outlasts the checks' requests (else
  // they may have used the window up); the requests after it (the watch's closing and the sweep, the
  // webhook-retry probe) make "under" wait a little (underStartMs), from the probe's start.
  const probeMs = driveMs + PROBE_OVERHEAD_MS;
  const checksBusyUntilEnd = watchMs < throttleMs + windowMs;
  const priors = [
    { atMs: -probeMs, requests: checksBusyUntilEnd ? plan.limit : EXPECTED_SWEEP_REQUESTS },
    { atMs: 0, requests: webhookRetryRequests(drive).total },
  ];
  const waitMs = plan.remote
    ? underStartMs({ nowMs: 0, priors, limit: plan.limit, windowMs, tolerance: TOLERANCE })
    : 0;
  // The burst fills the room "under" left, and what expires meanwhile, at four sends per slot.
  const burstMs = (plan.limit - shape.underPerWindow + THROTTLE_BURST) * (shape.slotMs / 4);
  const rateMs = waitMs + shape.underMs + burstMs + OVER_WINDOWS_EXPECTED * windowMs + PROBE_OVERHEAD_MS;
  const s = (ms: number) => `${Math.round(ms / 1000)} s`;
  return [
    {
      part: 'checks',
      ms: checksMs,
      detail: plan.remote
        ? `the webhook watch's WEBHOOK_BUDGET_S ${plan.webhookBudgetS} s or the throttle's ${s(throttleMs)} for ` +
          `${plan.plannedRequests} requests, whichever is longer`
        : 'the embedded reference',
    },
    {
      part: 'k6 webhook-retry',
      ms: probeMs,
      detail: {
        reference: "the reference's virtual clock",
        control:
          "deliveries driven in the target's virtual time through CONTROL_URL, where it offers that " +
          `(else a watch of TIME_BUDGET_S ${plan.timeBudgetS} s)`,
        watch: `a real-time watch of TIME_BUDGET_S ${plan.timeBudgetS} s (CONTROL_URL would drive it in seconds)`,
      }[drive],
    },
    {
      part: 'k6 rate-limit',
      ms: rateMs,
      detail:
        `${waitMs > 0 ? `${s(waitMs)} until the run's last requests leave room for "under", ` : ''}` +
        `90 % for a window of ${windowMs / 1000} s, a burst, 150 % for about ${OVER_WINDOWS_EXPECTED} windows`,
    },
  ];
}

/** "5 min 43 s". */
export function minutes(ms: number): string {
  const total = Math.round(ms / 1000);
  return total < 60 ? `${total} s` : `${Math.floor(total / 60)} min ${total % 60} s`;
}

/** The lines `--dry-run --with-load` prints: each part, then the total. Pure. */
export function expectedWallTimeLines(parts: readonly WallTimePart[]): string[] {
  const width = Math.max(...parts.map((p) => p.part.length), 'total'.length);
  return [
    ...parts.map((p) => `  ${p.part.padEnd(width)}  ${minutes(p.ms).padStart(10)}  ${p.detail}`),
    `  ${'total'.padEnd(width)}  ${minutes(parts.reduce((sum, p) => sum + p.ms, 0)).padStart(10)}`,
  ];
}

/** The line a run prints once its probes ended: what each part took, and the total. Pure. */
export function measuredWallTimeLine(parts: ReadonlyArray<{ part: string; ms: number }>): string {
  const total = parts.reduce((sum, p) => sum + p.ms, 0);
  return `${parts.map((p) => `${p.part} ${minutes(p.ms)}`).join(', ')}; total ${minutes(total)}`;
}
