/**
 * The self-proof runners' vitest configuration (self-proof/runner.ts): the project's own
 * (vitest.config.ts) and the `target` project in worker threads, a fresh module graph per fault's
 * run without a process start each.
 */
import { defineConfig } from 'vitest/config';
import base, { targetProject } from './vitest.config.ts';

export default defineConfig({
  ...base,
  // The run is started and provided by the caller: no set-up starts one of its own.
  test: { ...base.test, globalSetup: [], projects: [...(base.test?.projects ?? []), targetProject('threads')] },
});
