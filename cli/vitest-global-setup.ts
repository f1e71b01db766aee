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
import { acquireRun, releaseRun } from '../harness/run/lifecycle.ts';
import { seedFromEnvironment } from '../harness/scheduling/seed.ts';
import { referenceFaults, startEmbeddedReference } from './embedded-reference.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Options of a run vitest was started for directly; ignored when the run was started first.
  const run = await acquireRun({
    startEmbedded: startEmbeddedReference,
    faults: referenceFaults(),
    seed: seedFromEnvironment(process.env),
  });
  run.projects.add(project);
  project.provide('run', run.context);
  return async () => {
    run.projects.delete(project);
    await releaseRun(run);
  };
}
