/**
 * `occ run`'s vitest configuration: the project's own (vitest.config.ts) and the `target` project
 * that runs the suites and the properties as one, in forked workers. `occ run` names this file
 * when it creates vitest (cli/run-start.ts): the choice travels as a parameter, not a global.
 */
import { defineConfig } from 'vitest/config';
import base, { targetProject } from './vitest.config.ts';

export default defineConfig({
  ...base,
  // The run is started and provided by the caller: no set-up starts one of its own.
  test: { ...base.test, globalSetup: [], projects: [...(base.test?.projects ?? []), targetProject('forks')] },
});
