/**
 * The composition root of a run when vitest runs directly (`npx vitest run --project conformance
 * --project properties`; vitest.config.ts names this global set-up): when a project that checks a
 * target is among those selected, starts the run once from vitest's environment
 * (harness/run/target.ts) and provides its context (harness/run/context.ts) to each such project,
 * then ends it when vitest closes. It runs once for the whole vitest, so those projects share one
 * run: one reference, one receiver, one run channel. `occ run` and the self-proof's runners start
 * their run and provide it themselves (their configurations leave this set-up out), so a process
 * starts at most one run, with the options of the one root that started it.
 */
import type { TestProject } from 'vitest/node';
import { TARGET_PROJECT } from '../harness/run/projects.ts';
import { referenceStarters } from './embedded-reference.ts';

/** The projects whose checks need a target. */
const CHECKING = new Set(['conformance', 'properties', TARGET_PROJECT]);

export default async function setup(root: TestProject): Promise<() => Promise<void>> {
  const checking = root.vitest.projects.filter((project) => CHECKING.has(project.name));
  if (checking.length === 0) return async () => {};
  // vitest started directly reads no .env: the configuration of its environment, loaded only now.
  const [{ loadFromProcessEnvironment }, { startRun }] = await Promise.all([
    import('../harness/config/environment.ts'),
    import('../harness/run/target.ts'),
  ]);
  const { config, settings } = loadFromProcessEnvironment();
  const run = await startRun({
    starters: referenceStarters,
    config,
    cacheDirectory: settings.cacheDirectory,
    faults: settings.referenceFaults,
    variants: settings.referenceVariants,
    seed: settings.propertySeed,
  });
  for (const project of checking) run.provideTo(project);
  return async () => {
    await run.end();
  };
}
