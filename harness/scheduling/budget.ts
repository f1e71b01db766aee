/**
 * The request budget of a run, derived from what the user allows: the client rate
 * (REQUESTS_PER_MINUTE per RATE_LIMIT_WINDOW_MS, which the throttle keeps) times the run's time
 * budget (RUN_BUDGET_S, `--time-budget`), or everything (`--all-probes`). Pure.
 *
 * The default (80 per minute for 113 s: 150 requests) is the gate-sized run: every rotation sends
 * its `perRun` probes. A larger budget widens every rotation by the same factor (requests / 150),
 * so a run planning at most 150 at the default plans at most the budget; one covering FULL_SET_REQUESTS
 * sends every probe and every matrix cell, no rotation. A smaller budget never sends less than
 * the default: the first slice of each list is the least a run can prove.
 */

/** Requests of the default, gate-sized run (a remote run with every fixture plans at most this). */
export const GATE_REQUESTS = 150;

/**
 * An upper bound of a remote run sending every probe, with every fixture and a control endpoint
 * (`occ run --dry-run --all-probes`; test/commands/conformance-cli.run.test.ts keeps the plan under it):
 * 959 with the connection probes and the relations of docs/standards.md, 910 with the relation families
 * of docs/relations.md alone, 640 before them; room is left for the next family.
 */
export const FULL_SET_REQUESTS = 1000;

export interface RunBudget {
  /** Every probe and matrix cell is sent: `--all-probes`, or a budget covering FULL_SET_REQUESTS. */
  readonly all: boolean;
  /** Requests the rate and time allow (the embedded reference: unbounded). */
  readonly requests: number;
  /** The time budget in seconds it was derived from (undefined: unthrottled, the embedded reference). */
  readonly timeS: number | undefined;
}

/** The default, gate-sized budget: 80 requests per minute for 113 s. */
export const DEFAULT_BUDGET: RunBudget = { all: false, requests: GATE_REQUESTS, timeS: 113 };

/**
 * A check's rotated probes (check option `probes`, rotation.ts probeRotation): how many of its
 * list this run sends. What it leaves to later seeds makes every requirement it passes a partial
 * pass (report model), and their requests are the dry run's full-set figure.
 */
export interface ProbeRotation {
  readonly requirement: string;
  readonly sent: number;
  readonly of: number;
  /** The probes this run leaves to later seeds. */
  readonly left: readonly string[];
  /** Requests the probes left out would take. */
  readonly leftRequests: number;
}

/** Sends everything: the embedded reference (requests are free there), or `--all-probes`. */
export const EVERYTHING: RunBudget = { all: true, requests: Number.POSITIVE_INFINITY, timeS: undefined };

/**
 * The budget of a run at `requestsPerMinute` per `rateWindowMs` for `timeS` seconds (undefined
 * rate: unthrottled, everything); `all` forces everything.
 */
export function budgetOf(
  requestsPerMinute: number | undefined,
  rateWindowMs: number,
  timeS: number,
  all = false,
): RunBudget {
  if (requestsPerMinute === undefined) return EVERYTHING;
  const requests = Math.floor((requestsPerMinute * timeS * 1000) / rateWindowMs);
  return { all: all || requests >= FULL_SET_REQUESTS, requests, timeS };
}

/** How many of `length` probes a list of `perRun` at the default sends under `budget`. */
export function perRunUnder(budget: RunBudget, perRun: number, length: number): number {
  if (budget.all) return length;
  const widening = Math.max(1, budget.requests / GATE_REQUESTS);
  return Math.min(length, Math.max(perRun, Math.floor(perRun * widening)));
}

/** Seconds `requests` take at the throttle's pace (undefined: unthrottled). */
export function secondsFor(requests: number, requestsPerMinute: number | undefined, rateWindowMs: number): number {
  return requestsPerMinute === undefined ? 0 : (requests * rateWindowMs) / 1000 / requestsPerMinute;
}

export interface RankedSlice<T> {
  readonly chosen: readonly T[];
  readonly left: readonly T[];
}

/**
 * `n` probes of a list ranked likeliest slip first, for the run of `seed`: with n ≥ 2 the ⌈n/2⌉
 * likeliest every run and ⌊n/2⌋ more in turns over the rest (⌈rest / turns⌉ seeds see it all);
 * with n = 1 the likeliest on even seeds and the others in turns on odd ones (2 × rest seeds).
 * So a run tries what real servers get wrong most, and consecutive seeds still send every probe.
 */
export function rankedForRun<T>(ranked: readonly T[], n: number, seed: number): RankedSlice<T> {
  if (n >= ranked.length) return { chosen: ranked, left: [] };
  let chosen: T[];
  if (n <= 1) {
    const rest = ranked.slice(1);
    chosen = seed % 2 === 0 ? [ranked[0]!] : [rest[Math.floor(seed / 2) % rest.length]!];
  } else {
    const head = Math.ceil(n / 2);
    const turns = n - head;
    const rest = ranked.slice(head);
    const slices = Math.ceil(rest.length / turns);
    const index = seed % slices;
    chosen = [...ranked.slice(0, head), ...rest.slice(index * turns, index * turns + turns)];
  }
  return { chosen, left: ranked.filter((probe) => !chosen.includes(probe)) };
}
