/**
 * Vitest's global set-up when vitest runs directly (`npx vitest run --project conformance
 * --project properties`; vitest.config.ts): when a project that checks a target is among those
 * selected, starts the run from the configuration (harness/run/target.ts) and provides its
 * context (harness/run/context.ts) to each such project, then ends it when vitest closes. It runs
 * once for the whole vitest, so those projects share one run: one reference, one receiver. It
 * lives in cli/, the composition root, because it may have to start the embedded reference.
 * `occ run` and the self-proof start their run and provide it themselves (their configurations
 * leave this set-up out).
 */
import type { TestProject } from 'vitest/node';
import { acquireRun, releaseRun, type RunOptions } from '../harness/run/lifecycle.ts';
import { TARGET_PROJECT } from '../harness/run/projects.ts';
import { startEmbeddedReference } from './embedded-reference.ts';

/** The projects whose checks need a target. */
const CHECKING = new Set(['conformance', 'properties', TARGET_PROJECT]);

/**
 * The options of the run: the configuration and settings of vitest's environment
 * (harness/config/environment.ts; vitest started directly reads no .env). Loaded only when a
 * project that checks a target runs.
 */
async function directRunOptions(): Promise<RunOptions> {
  const { loadFromProcessEnvironment } = await import('../harness/config/environment.ts');
  const { config, settings } = loadFromProcessEnvironment();
  return {
    startEmbedded: startEmbeddedReference,
    config,
    cacheDirectory: settings.cacheDirectory,
    faults: settings.referenceFaults,
    variants: settings.referenceVariants,
    seed: settings.propertySeed,
  };
}

export default async function setup(root: TestProject): Promise<() => Promise<void>> {
  const checking = root.vitest.projects.filter((project) => CHECKING.has(project.name));
  if (checking.length === 0) return async () => {};
  const run = await acquireRun(directRunOptions);
  for (const project of checking) {
    run.projects.add(project);
    project.provide('run', run.context);
  }
  return async () => {
    for (const project of checking) run.projects.delete(project);
    await releaseRun(run);
  };
}
