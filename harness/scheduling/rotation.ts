/**
 * Near-miss probes and whole checks rotated across remote runs, so that a run sends what its
 * budget allows (harness/scheduling/budget.ts: rate × RUN_BUDGET_S, or --all-probes) while every
 * probe still runs regularly.
 *
 * Against the embedded reference every probe of a list is sent (requests are free there, and the
 * self-proof needs each one); against a remote target whose budget covers the full set, too.
 * Otherwise a check sends `perRun` of them at the default budget, widened by a larger one
 * (perRunUnder): the likeliest slips of its ranked list every run and the others in turns by the
 * run's seed (`--seed`, or PROPERTY_SEED; `npm run conformance` picks one at random when none is
 * given and records it in the report), so consecutive seeds send every probe and a failure
 * replays with its seed. Pure, apart from reading the budget and seed from the run context (a
 * test may pass turnOf its own).
 */
import type { RequirementId } from '../../requirements/catalogue.ts';
import type { CheckTools, Turn } from '../checks/check.ts';
import { notVerifiableReason, type Needs } from '../checks/needs.ts';
import { session } from '../run/session.ts';
import {
  GATE_REQUESTS,
  perRunUnder,
  rankedForRun,
  type ProbeRotation,
  type RankedSlice,
  type RunBudget,
} from './budget.ts';

export interface Slice<T> {
  readonly chosen: readonly T[];
  /** 0-based index of the slice this run sends, and how many slices the list has. */
  readonly index: number;
  readonly slices: number;
}

/** Slice `seed mod slices` of `cases`, `perRun` at a time (the last slice may be shorter). */
export function sliceForRun<T>(cases: readonly T[], perRun: number, seed: number): Slice<T> {
  if (perRun < 1 || cases.length <= perRun) return { chosen: cases, index: 0, slices: 1 };
  const slices = Math.ceil(cases.length / perRun);
  const index = seed % slices;
  return { chosen: cases.slice(index * perRun, index * perRun + perRun), index, slices };
}

/** The run's seed; 0 when none is set (a bare vitest run), so the choice stays deterministic. */
export function runSeed(): number {
  return session().context.seed ?? 0;
}

/** The run's budget: everything embedded, rate × time remotely (harness/run/target.ts). */
export function runBudget(): RunBudget {
  return session().target.budget;
}

/** How many of `count` probes sent `perRun` at a time at the default budget this run sends. */
export function probesThisRun(count: number, perRun: number, budget: RunBudget = runBudget()): number {
  return perRunUnder(budget, perRun, count);
}

/** How many probes of `count` a check sends against this target (for its planned requests). */
export function probesPlanned(count: number, perRun: number): number {
  return probesThisRun(count, perRun);
}

/** Planned requests of probes that cost several each: all of them within the budget, else the costliest it sends. */
export function probesCost(costs: readonly number[], perRun: number): number {
  return [...costs]
    .sort((a, b) => b - a)
    .slice(0, probesThisRun(costs.length, perRun))
    .reduce((sum, cost) => sum + cost, 0);
}

/**
 * A check's rotated probes as its report shows them (check option `probes`): `names` ranked as
 * the list is, `costs` the requests of each (1 when left out).
 */
export function probeRotation(
  requirement: RequirementId,
  names: readonly string[],
  perRun: number,
  costs?: readonly number[],
): ProbeRotation {
  const n = probesThisRun(names.length, perRun);
  const { left } = rankedForRun(names, n, runSeed());
  const costOf = (name: string) => costs?.[names.indexOf(name)] ?? 1;
  return {
    requirement,
    sent: names.length - left.length,
    of: names.length,
    left,
    leftRequests: left.reduce((sum, name) => sum + costOf(name), 0),
  };
}

/**
 * The probes this run sends, ranked likeliest slip first: all of them within the budget;
 * otherwise the likeliest and this seed's turn of the rest (rankedForRun), recorded as an
 * observation naming what later seeds send.
 */
export function probesForRun<T>(
  t: CheckTools,
  cases: readonly T[],
  perRun: number,
  requirement: RequirementId,
  describe: (probe: T) => string,
): readonly T[] {
  const n = probesThisRun(cases.length, perRun, t.target.budget);
  if (n >= cases.length) return cases;
  const seed = runSeed();
  const { chosen, left } = rankedForRun(cases, n, seed);
  t.observe(
    requirement,
    `request budget: this run (seed ${seed}) sent ${chosen.length} of ${cases.length} of this check's near-miss ` +
      `probes (${chosen.map(describe).join('; ')}); later seeds send the others (${left.map(describe).join('; ')})`,
  );
  return chosen;
}

/**
 * Whole checks taking turns across remote runs, for the request budget: `members` name the
 * checks of one group (each check knows its own), and a remote run sends `perRun` of them, slice
 * `seed mod slices` (sliceForRun). Embedded, every member runs. A member out of turn sends
 * nothing and ends not verifiable with `note`, which names the seeds that send it; one in turn
 * records `note` as an observation ("slice i of k", read by the remote self-proof). Use only for
 * members whose requirements other checks of the same run also verify.
 */
export function turnOf<T>(
  members: readonly T[],
  member: T,
  perRun: number,
  remote: boolean,
  group: string,
  describe: (m: T) => string = String,
  seed?: number,
  budget?: RunBudget,
): Turn {
  if (!remote) return { runs: true, note: '' };
  seed ??= runSeed();
  const slice = sliceForRun(members, probesThisRun(members.length, perRun, budget ?? runBudget()), seed);
  if (slice.slices === 1) return { runs: true, note: '' };
  const others = members.filter((m) => !slice.chosen.includes(m)).map(describe);
  const chosen = slice.chosen.map(describe).join('; ');
  return {
    runs: slice.chosen.includes(member),
    note:
      `request budget: this run (seed ${seed}) sends slice ${slice.index + 1} of ${slice.slices} of ${group} ` +
      `(${chosen}); runs with the next ${slice.slices - 1} seed(s) send the others (${others.join('; ')})`,
  };
}

/**
 * A near-miss family's probes this run (docs/near-misses.md), ranked likeliest slip first: every
 * one within the budget (embedded, --all-probes, a budget covering the full set), otherwise the
 * rankedForRun slice of `perRun` at the default budget, widened by a larger one.
 */
export function familySlice<T>(
  ranked: readonly T[],
  perRun: number,
  budget: RunBudget = runBudget(),
  seed: number = runSeed(),
): RankedSlice<T> {
  return rankedForRun(ranked, probesThisRun(ranked.length, perRun, budget), seed);
}

/**
 * Whole checks ranked likeliest slip first taking turns across remote runs as a ranked probe list
 * does (rankedForRun: the likeliest `perRun` at the default, widened by a larger budget). One out of
 * turn sends nothing and is not verifiable with `note`; one in turn records it. Embedded, all run.
 */
export function rankedTurnOf<T>(
  ranked: readonly T[],
  member: T,
  perRun: number,
  remote: boolean,
  group: string,
  describe: (m: T) => string = String,
  seed?: number,
  budget?: RunBudget,
): Turn {
  if (!remote) return { runs: true, note: '' };
  seed ??= runSeed();
  const { chosen, left } = familySlice(ranked, perRun, budget ?? runBudget(), seed);
  if (left.length === 0) return { runs: true, note: '' };
  return {
    runs: chosen.includes(member),
    note:
      `request budget: this run (seed ${seed}) sends ${chosen.length} of the ${ranked.length} ${group}, ranked ` +
      `likeliest slip first (${chosen.map(describe).join('; ')}); later seeds send the others ` +
      `(${left.map(describe).join('; ')})`,
  };
}

/**
 * Whole checks that give way at the default budget to probes nothing else sends (docs/near-misses.md
 * "Budget"): remotely, a budget of k × GATE_REQUESTS sends k − 1 of them (in turns by seed, as
 * turnOf), --all-probes or a budget covering the full set every one; embedded, every one. Use only
 * for members whose requirements other checks of every run verify.
 */
export function turnBeyondGate<T>(
  members: readonly T[],
  member: T,
  remote: boolean,
  group: string,
  describe: (m: T) => string = String,
  seed?: number,
  budget?: RunBudget,
): Turn {
  if (!remote) return { runs: true, note: '' };
  seed ??= runSeed();
  budget ??= runBudget();
  if (budget.all) return { runs: true, note: '' };
  const n = Math.min(members.length, Math.max(0, Math.floor(budget.requests / GATE_REQUESTS) - 1));
  if (n >= members.length) return { runs: true, note: '' };
  if (n === 0)
    return {
      runs: false,
      note:
        `request budget: ${group} give way at a budget of ${budget.requests} requests; one of ` +
        `${2 * GATE_REQUESTS} sends one of them, --all-probes or a budget covering the full set all`,
    };
  const slice = sliceForRun(members, n, seed);
  const others = members.filter((m) => !slice.chosen.includes(m)).map(describe);
  return {
    runs: slice.chosen.includes(member),
    note:
      `request budget: this run (seed ${seed}) sends slice ${slice.index + 1} of ${slice.slices} of ${group} ` +
      `(${slice.chosen.map(describe).join('; ')}); runs with the next ${slice.slices - 1} seed(s) send the ` +
      `others (${others.join('; ')})`,
  };
}

const WAYS = ['configured fixtures', 'a control state'] as const;

/**
 * Two checks proving one requirement two ways, from the configured fixtures and from a state of
 * the target's control endpoint: where both can run against a remote target they take turns,
 * one per run (the request budget); otherwise each runs whenever its needs are met.
 */
export function wayOf(
  way: 'fixtures' | 'control',
  needs: { readonly fixtures: Needs; readonly control: Needs },
  requirement: RequirementId,
): Turn {
  const target = session().target;
  const both =
    target.kind === 'remote' &&
    notVerifiableReason(needs.fixtures, target) === undefined &&
    notVerifiableReason(needs.control, target) === undefined;
  return turnOf(WAYS, way === 'fixtures' ? WAYS[0] : WAYS[1], 1, both, `the two checks proving ${requirement}`);
}
