/**
 * The shape of the k6 probes, shared by the probes themselves and by `occ run --dry-run
 * --with-load`, which counts their API requests without sending any: one place for the phases
 * and subscription plans, so the count can't drift from what the probes send. Pure; no k6 import
 * (Node and k6 both load it).
 */

/** The embedded reference's scaled rate window for the probe (load/run.ts): the probe's 2.1 windows take seconds. */
export const REFERENCE_WINDOW_MS = 2_500;

/** Consecutive failed deliveries after which the spec disables a subscription. */
export const AUTO_DISABLE_AFTER = 10;

export type PlanStep = { status: number; times?: number } | { hang: true; times?: number };
export interface Plan {
  name: string;
  steps: PlanStep[];
  /**
   * Only where the deliveries run in virtual time, which reaches the 10th attempt: no real-time watch does
   * (REFERENCE_ONLY_PROBE_REQUIREMENTS, requirements/catalogue.ts).
   */
  virtualTimeOnly: boolean;
}

/**
 * How the webhook-retry probe reaches the deliveries' end: the embedded reference's own clock API, a remote
 * target's test-control protocol (its virtual clock), or a real-time watch of TIME_BUDGET_S.
 */
export type WebhookDrive = 'reference' | 'control' | 'watch';

/**
 * The real-time bound of driving a remote target's deliveries in its virtual time: a hang guard (it
 * takes seconds: two unanswered attempts run into the target's delivery timeout, which the spec leaves
 * open), apart from TIME_BUDGET_S, the length of a real-time watch.
 */
export const CONTROL_DRIVE_BUDGET_MS = 300_000;

/** One call.ended subscription per response plan of the receiver (load/webhook-retry.ts). */
export const WEBHOOK_RETRY_PLANS: readonly Plan[] = [
  { name: 'ack', steps: [{ status: 200 }], virtualTimeOnly: false },
  { name: 'client4xx', steps: [{ status: 400 }], virtualTimeOnly: false },
  { name: 'server5xx', steps: [{ status: 500 }], virtualTimeOnly: false },
  { name: 'timeout', steps: [{ hang: true, times: 2 }, { status: 200 }], virtualTimeOnly: false },
  {
    name: 'recover',
    steps: [{ status: 503, times: AUTO_DISABLE_AFTER - 1 }, { status: 200 }],
    virtualTimeOnly: true,
  },
];

export function webhookRetryPlans(drive: WebhookDrive): Plan[] {
  return WEBHOOK_RETRY_PLANS.filter((p) => drive !== 'watch' || !p.virtualTimeOnly);
}

/**
 * API requests of the webhook-retry probe: POST /hooks and DELETE /hooks/{id} per plan, and in a
 * real-time watch the POST /calls that makes the event happen (the receiver, the reference's own API
 * and the control endpoint are not the target's API).
 */
export function webhookRetryRequests(drive: WebhookDrive): { hooks: number; calls: number; total: number } {
  const hooks = webhookRetryPlans(drive).length;
  const calls = drive === 'watch' ? 1 : 0;
  return { hooks, calls, total: 2 * hooks + calls };
}

/** Share of the limit of the "under" phase (never refused) and of the "over" phase (refused). */
const UNDER_SHARE = 0.9;
const OVER_SHARE = 1.5;
/**
 * The "over" phase after the burst that saturates the limiter ends as soon as its samples measure a
 * window (load/lib/windows.ts, measuredWindow): a clock-aligned window's turn within a window of the
 * first refusal, or a refusal a window after it. A sliding log takes longer by the time the phase needs
 * to use up the room its burst's entries leave when they expire together (a fifth of a window for the
 * spec's limit); a fixed window that turned during the burst by most of a window (the phase's bound).
 */
export const OVER_WINDOWS = 1.75;
/** What the "over" phase takes against a conformant limiter at most, but in that last case. */
export const OVER_WINDOWS_EXPECTED = 1.2;

export interface RateLimitShape {
  readonly underPerWindow: number;
  /** The "under" phase lasts one window. */
  readonly underMs: number;
  readonly overPerWindow: number;
  readonly overMs: number;
  /** Time between two sends of the "over" phase. */
  readonly slotMs: number;
  /** The burst between "under" and "over" stops at the first refusal, or at this many requests. */
  readonly setupMaxRequests: number;
  /** Sends of the "over" phase: the slots that end within it. */
  readonly overRequests: number;
  /** Every request the probe can send: one window at 90 %, the burst at its bound, the 150 % phase. */
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
    underMs: windowMs,
    overPerWindow,
    overMs,
    slotMs,
    setupMaxRequests,
    overRequests,
    maxRequests: setupMaxRequests + underPerWindow + overRequests,
  };
}

/** Requests this machine sent the target at about one time (epoch ms; a time no earlier than they were sent). */
export interface PriorRequests {
  readonly atMs: number;
  readonly requests: number;
}

/**
 * When the "under" phase may start (epoch ms): the earliest moment from now on such that in every
 * rolling window the client stays under the limit less `tolerance`, counting "under"'s sends (its
 * share, evenly) and the requests this machine sent before (`priors`; every request sent in the
 * window before now must be among them). Just before a window has passed since a prior, "under" has
 * sent its share of the time since it began and the window still holds every prior from then on:
 * that bounds the start. Pure.
 */
export function underStartMs(input: {
  readonly nowMs: number;
  readonly priors: readonly PriorRequests[];
  readonly limit: number;
  readonly windowMs: number;
  readonly tolerance: number;
}): number {
  const { nowMs, priors, limit, windowMs, tolerance } = input;
  const under = rateLimitShape(limit, windowMs).underPerWindow;
  const allowed = Math.floor(limit * (1 - tolerance));
  let start = nowMs;
  for (const prior of priors) {
    const since = priors.filter((p) => p.atMs >= prior.atMs).reduce((sum, p) => sum + p.requests, 0);
    const room = Math.max(0, allowed - since);
    start = Math.max(start, prior.atMs + windowMs - (windowMs * room) / under);
  }
  return Math.ceil(start);
}

/** A list of prior requests as `occ load rate-limit --prior-requests` takes it: `epoch-ms:count,…`. */
export function formatPriorRequests(priors: readonly PriorRequests[]): string {
  return priors.map((p) => `${Math.round(p.atMs)}:${p.requests}`).join(',');
}

/** The list back; undefined when it is not one. */
export function parsePriorRequests(text: string): PriorRequests[] | undefined {
  if (text.trim() === '') return [];
  const priors = text.split(',').map((item) => /^\s*(\d+):(\d+)\s*$/.exec(item));
  if (priors.some((m) => m === null)) return undefined;
  return priors.map((m) => ({ atMs: Number(m![1]), requests: Number(m![2]) }));
}

/** One probe's request count for `--dry-run --with-load`: an upper bound, and how it is made up. */
export interface ProbeRequests {
  readonly probe: 'webhook-retry' | 'rate-limit';
  readonly maxRequests: number;
  readonly detail: string;
}

/**
 * How the webhook-retry probe would reach the deliveries' end against a target: a remote one with
 * CONTROL_URL is driven in its virtual time when the endpoint offers the capabilities for it (the dry
 * run does not ask), one without is watched in real time. Pure.
 */
export function webhookDrive(target: { remote: boolean; control: boolean }): WebhookDrive {
  if (!target.remote) return 'reference';
  return target.control ? 'control' : 'watch';
}

/**
 * What `--with-load` would send, probe by probe, in the order it runs them: against a remote
 * target with its configured limit and window, or (embedded) against the reference the probe
 * starts itself. Upper bounds from the probes' own bounded loops. Pure.
 */
export function probeRequests(target: {
  remote: boolean;
  control: boolean;
  limit: number;
  windowMs: number;
}): ProbeRequests[] {
  const drive = webhookDrive(target);
  const hooks = webhookRetryRequests(drive);
  const windowMs = target.remote ? target.windowMs : REFERENCE_WINDOW_MS;
  const rate = rateLimitShape(target.limit, windowMs);
  const event = {
    reference: " (events from the reference's own API)",
    control: ' (the event from CONTROL_URL: event-emitted)',
    watch: `, ${hooks.calls} call originated`,
  }[drive];
  return [
    {
      probe: 'webhook-retry',
      maxRequests: hooks.total,
      detail: `${hooks.hooks} subscriptions created and deleted${event}`,
    },
    {
      probe: 'rate-limit',
      maxRequests: rate.maxRequests,
      detail:
        `${rate.underPerWindow} at 90 % of the limit for one window, ` +
        `at most ${rate.setupMaxRequests} in a burst (it stops at the first 429), ` +
        `${rate.overRequests} at 150 % for ${OVER_WINDOWS} windows ` +
        `(limit ${target.limit} per ${windowMs / 1000} s${target.remote ? '' : ", the probe's own reference server"})`,
    },
  ];
}
