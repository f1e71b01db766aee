/**
 * The shape of the k6 probes, shared by the probes themselves and by `occ run --dry-run
 * --with-load`, which counts their API requests without sending any: one place for the phases
 * and subscription plans, so the count can't drift from what the probes send. Pure; no k6 import
 * (Node and k6 both load it).
 */

/**
 * The embedded reference's scaled rate window for the probe (load/run.ts): the whole probe (4 windows + set-up)
 * stays under 30 s.
 */
export const REFERENCE_WINDOW_MS = 2_500;

/** Consecutive failed deliveries after which the spec disables a subscription. */
export const AUTO_DISABLE_AFTER = 10;

export type PlanStep = { status: number; times?: number } | { hang: true; times?: number };
export interface Plan {
  name: string;
  steps: PlanStep[];
  /**
   * Only against the reference, whose virtual clock reaches the 10th attempt (REFERENCE_ONLY_PROBE_REQUIREMENTS,
   * requirements/catalogue.ts).
   */
  referenceOnly: boolean;
}

/** One call.ended subscription per response plan of the receiver (load/webhook-retry.ts). */
export const WEBHOOK_RETRY_PLANS: readonly Plan[] = [
  { name: 'ack', steps: [{ status: 200 }], referenceOnly: false },
  { name: 'client4xx', steps: [{ status: 400 }], referenceOnly: false },
  { name: 'server5xx', steps: [{ status: 500 }], referenceOnly: false },
  { name: 'timeout', steps: [{ hang: true, times: 2 }, { status: 200 }], referenceOnly: false },
  { name: 'recover', steps: [{ status: 503, times: AUTO_DISABLE_AFTER - 1 }, { status: 200 }], referenceOnly: true },
];

export function webhookRetryPlans(reference: boolean): Plan[] {
  return WEBHOOK_RETRY_PLANS.filter((p) => reference || !p.referenceOnly);
}

/**
 * API requests of the webhook-retry probe: POST /hooks and DELETE /hooks/{id} per plan, and
 * against a remote target the POST /calls that makes the event happen (the receiver and the
 * reference's own control API are not the target's API).
 */
export function webhookRetryRequests(reference: boolean): { hooks: number; calls: number; total: number } {
  const hooks = webhookRetryPlans(reference).length;
  const calls = reference ? 0 : 1;
  return { hooks, calls, total: 2 * hooks + calls };
}

/** Share of the limit of the "under" phase (never refused) and of the "over" phase (refused). */
const UNDER_SHARE = 0.9;
const OVER_SHARE = 1.5;
/**
 * 2.75 windows: wherever a clock-aligned window's boundary falls, two boundaries (one complete window) show up in
 * the phase.
 */
export const OVER_WINDOWS = 2.75;

export interface RateLimitShape {
  readonly underPerWindow: number;
  readonly overPerWindow: number;
  readonly overMs: number;
  /** Time between two sends of the "over" phase. */
  readonly slotMs: number;
  /** The set-up burst stops at the first refusal, or at this many requests. */
  readonly setupMaxRequests: number;
  /** Sends of the "over" phase: the slots that end within it. */
  readonly overRequests: number;
  /** Every request the probe can send: the set-up burst at its bound, one window at 90 %, the 150 % phase. */
  readonly maxRequests: number;
}

/** The rate-limit probe's phases for a limit per window (load/rate-limit.ts). */
export function rateLimitShape(limit: number, windowMs: number): RateLimitShape {
  const underPerWindow = Math.max(1, Math.floor(limit * UNDER_SHARE));
  const overPerWindow = Math.ceil(limit * OVER_SHARE);
  const overMs = Math.round(OVER_WINDOWS * windowMs);
  const slotMs = windowMs / overPerWindow;
  // The same loop condition as the probe's "over" function.
  let overRequests = 0;
  while ((overRequests + 1) * slotMs <= overMs) overRequests++;
  const setupMaxRequests = 2 * limit + 10;
  return {
    underPerWindow,
    overPerWindow,
    overMs,
    slotMs,
    setupMaxRequests,
    overRequests,
    maxRequests: setupMaxRequests + underPerWindow + overRequests,
  };
}

/** One probe's request count for `--dry-run --with-load`: an upper bound, and how it is made up. */
export interface ProbeRequests {
  readonly probe: 'webhook-retry' | 'rate-limit';
  readonly maxRequests: number;
  readonly detail: string;
}

/**
 * What `--with-load` would send, probe by probe, in the order it runs them: against a remote
 * target with its configured limit and window, or (embedded) against the reference the probe
 * starts itself. Upper bounds from the probes' own bounded loops. Pure.
 */
export function probeRequests(target: { remote: boolean; limit: number; windowMs: number }): ProbeRequests[] {
  const hooks = webhookRetryRequests(!target.remote);
  const windowMs = target.remote ? target.windowMs : REFERENCE_WINDOW_MS;
  const rate = rateLimitShape(target.limit, windowMs);
  return [
    {
      probe: 'webhook-retry',
      maxRequests: hooks.total,
      detail:
        `${hooks.hooks} subscriptions created and deleted` +
        `${hooks.calls > 0 ? `, ${hooks.calls} call originated` : " (events from the reference's own API)"}`,
    },
    {
      probe: 'rate-limit',
      maxRequests: rate.maxRequests,
      detail:
        `at most ${rate.setupMaxRequests} in the set-up burst (it stops at the first 429), ` +
        `${rate.underPerWindow} at 90 % of the limit for one window, ` +
        `${rate.overRequests} at 150 % for ${OVER_WINDOWS} windows ` +
        `(limit ${target.limit} per ${windowMs / 1000} s${target.remote ? '' : ", the probe's own reference server"})`,
    },
  ];
}
