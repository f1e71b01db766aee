/**
 * Vitest global set-up of the conformance and property projects: provides the run's target
 * (./shared-run.ts, started here unless the CLI started it first) to the project's workers, and
 * releases the run when vitest closes. A root-level globalSetup would run once, but also for
 * `--project unit` alone, so each project that needs a target has this one.
 */
import type { TestProject } from 'vitest/node';
import { acquireRun, releaseRun } from './lifecycle.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = await acquireRun();
  run.projects.add(project);
  project.provide('target', run.target);
  return async () => {
    run.projects.delete(project);
    await releaseRun(run);
  };
}
