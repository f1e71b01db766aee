/**
 * Near-miss probes rotated across runs, so that a remote run stays inside its request budget
 * (≤150 requests) while every probe still runs regularly.
 *
 * Against the embedded reference every probe of a list is sent (requests are free there, and the
 * self-proof needs each one). Against a remote target a check sends `perRun` of them: slice
 * `seed mod slices` of the list, where the seed is the run's seed (`--seed`, or PROPERTY_SEED;
 * `npm run conformance` picks one at random when none is given and records it in the report).
 * So `slices` runs with consecutive seeds send every probe, and a failure replays with its seed.
 * Pure, apart from reading the seed from the run context (a test may pass turnOf its own).
 */
import type { RequirementId } from '../../requirements/catalogue.ts';
import type { CheckTools, Turn } from '../checks/check.ts';
import { notVerifiableReason, type Needs } from '../checks/needs.ts';
import { session } from '../run/session.ts';

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

/** How many probes of `count` a check sends against this target (for its planned requests). */
export function probesPlanned(count: number, perRunRemote: number): number {
  return session().target.kind === 'remote' ? Math.min(count, perRunRemote) : count;
}

/** Planned requests of probes that cost several each: all of them embedded; remotely the costliest `perRunRemote`. */
export function probesCost(costs: readonly number[], perRunRemote: number): number {
  if (session().target.kind !== 'remote') return costs.reduce((sum, cost) => sum + cost, 0);
  return [...costs]
    .sort((a, b) => b - a)
    .slice(0, perRunRemote)
    .reduce((sum, cost) => sum + cost, 0);
}

/**
 * The probes this run sends: all of them embedded; remotely this run's slice, recorded as an
 * observation naming what the other runs cover.
 */
export function probesForRun<T>(
  t: CheckTools,
  cases: readonly T[],
  perRunRemote: number,
  requirement: RequirementId,
  describe: (probe: T) => string,
): readonly T[] {
  if (t.target.kind !== 'remote') return cases;
  const seed = runSeed();
  const slice = sliceForRun(cases, perRunRemote, seed);
  if (slice.slices > 1) {
    const others = cases.filter((c) => !slice.chosen.includes(c)).map(describe);
    const chosen = slice.chosen.map(describe).join('; ');
    t.observe(
      requirement,
      `request budget: this run (seed ${seed}) sent slice ${slice.index + 1} of ${slice.slices} ` +
        `of this check's near-miss probes (${chosen}); ` +
        `runs with the next ${slice.slices - 1} seed(s) send the others (${others.join('; ')})`,
    );
  }
  return slice.chosen;
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
): Turn {
  if (!remote) return { runs: true, note: '' };
  seed ??= runSeed();
  const slice = sliceForRun(members, perRun, seed);
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
