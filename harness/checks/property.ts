/**
 * Running a fast-check property inside a `check` (properties/*.property.ts): the seed is chosen
 * here (the run's seed, or one derived from the clock) and recorded as an observation on every
 * run, so any run, green or red, can be replayed; a failure becomes one readable error with the
 * counterexample, the seed, fast-check's path and the exact command that replays it.
 *
 * Shrinking: against the embedded reference server a failure is shrunk (requests are free
 * there and a minimal counterexample is what makes the failure readable); against a remote
 * target the run ends at the first failure (`endOnFailure`), because every shrink step is a
 * request against someone's deployment and the budget is ~20 requests for all properties.
 * A run that needs only the verdict (the self-proof's: the run context's `shrink`) ends there too.
 */
import fc from 'fast-check';
import { SEED_NOTE_PREFIX } from '../report/results.ts';
import type { RequirementId } from '../../requirements/catalogue.ts';
import { CheckFailure, type CheckTools, endsNotVerifiable } from './check.ts';
import { session } from '../run/session.ts';
import { clockSeed, SEED_VARIABLE } from '../scheduling/seed.ts';

/** A vitest -t pattern matching exactly this title (it is a regular expression). */
export function titlePattern(title: string): string {
  return title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The shell command that replays one property with one seed. */
export function replayCommand(title: string, seed: number): string {
  const pattern = titlePattern(title).replace(/(["\\$`])/g, '\\$1');
  return `${SEED_VARIABLE}=${seed} npx vitest run --project properties -t "${pattern}"`;
}

export interface PropertyFailure {
  readonly title: string;
  readonly seed: number;
  readonly counterexample: unknown;
  readonly path: string | null;
  readonly numRuns: number;
  readonly numShrinks: number;
  readonly error: unknown;
}

/** The message of a failed property: what broke, on which input, and how to replay it. */
export function failureMessage(failure: PropertyFailure): string {
  const cause = failure.error instanceof Error ? failure.error.message : String(failure.error);
  const shrunk = failure.numShrinks > 0 ? ` (shrunk ${failure.numShrinks} times)` : '';
  return [
    cause,
    `counterexample${shrunk}: ${fc.stringify(failure.counterexample)}`,
    `after ${failure.numRuns} run(s); seed ${failure.seed}, path ${failure.path ?? '(none)'}`,
    `replay: ${replayCommand(failure.title, failure.seed)}`,
  ].join('\n');
}

/**
 * fast-check's reporter for a check's property: a failure becomes one CheckFailure with the
 * counterexample and the replay command; a predicate that ended not verifiable (a 429, the
 * network breaking one of its exchanges) has no counterexample, and its error goes on as it is.
 */
export function propertyReporter<Ts>(title: string): (details: fc.RunDetails<Ts>) => Promise<void> {
  return async (details) => {
    if (!details.failed) return;
    if (endsNotVerifiable(details.errorInstance)) throw details.errorInstance;
    throw new CheckFailure(
      failureMessage({
        title,
        seed: details.seed,
        counterexample: details.counterexample,
        path: details.counterexamplePath,
        numRuns: details.numRuns,
        numShrinks: details.numShrinks,
        error: details.errorInstance,
      }),
    );
  };
}

export interface PropertyRun {
  /** The check's title, exactly as given to `check` (for the replay command). */
  readonly title: string;
  /** The requirement the seed observation is filed under (the check's first id). */
  readonly requirement: RequirementId;
  /** Default: t.target.propertyNumRuns. */
  readonly numRuns?: number;
}

/**
 * fc.assert for a check: runs `property` with the run's seed, records the seed, and on failure
 * throws a CheckFailure carrying the counterexample and the replay command.
 */
export async function assertProperty<Ts>(
  t: CheckTools,
  run: PropertyRun,
  property: fc.IAsyncPropertyWithHooks<Ts>,
): Promise<void> {
  const seed = session().context.seed ?? clockSeed(Date.now());
  const numRuns = run.numRuns ?? t.target.propertyNumRuns;
  t.observe(
    run.requirement,
    `${SEED_NOTE_PREFIX}${seed}, ${numRuns} run(s); replay: ${replayCommand(run.title, seed)}`,
  );
  const endOnFailure = t.target.kind === 'remote' || !session().context.shrink;
  let thrown: unknown;
  try {
    // fc.assert with our own reporter: the default one throws fast-check's text, which lacks the
    // replay command; this one keeps the run details and lets the message be built below.
    await fc.assert(property, {
      numRuns,
      seed,
      endOnFailure,
      asyncReporter: propertyReporter<Ts>(run.title),
    });
  } catch (error) {
    thrown = error;
  }
  if (thrown !== undefined)
    throw thrown instanceof CheckFailure || endsNotVerifiable(thrown)
      ? thrown
      : new CheckFailure(`${(thrown as Error).message ?? String(thrown)}\nreplay: ${replayCommand(run.title, seed)}`);
}
