/**
 * Vitest global set-up of the projects that check a target (vitest.config.ts): provides the run
 * context (harness/run/context.ts) of the process's run (harness/run/lifecycle.ts; started here
 * from the configuration when vitest was started directly, or the one `occ run` or the self-proof
 * started first) to the project's workers, and releases the run when vitest closes. It lives in
 * cli/, the composition root, because it may have to start the embedded reference. A root-level
 * globalSetup would run once, but also for `--project unit` alone, so each project that needs a
 * target has this one.
 */
import type { TestProject } from 'vitest/node';
import { acquireRun, releaseRun, type RunOptions } from '../harness/run/lifecycle.ts';
import { startEmbeddedReference } from './embedded-reference.ts';

/**
 * The options of a run vitest was started for directly: the configuration and settings of its
 * environment (harness/config/environment.ts; vitest started directly reads no .env). Loaded only
 * then: a run `occ run` or the self-proof started needs none of it.
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

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = await acquireRun(directRunOptions);
  run.projects.add(project);
  project.provide('run', run.context);
  return async () => {
    run.projects.delete(project);
    await releaseRun(run);
  };
}
