/**
 * The self-proof runners' vitest configuration (cli/fault-runner.ts): the project's own
 * (vitest.config.ts) and the `target` project in worker threads, a fresh module graph per fault's
 * run without a process start each.
 */
import { defineConfig } from 'vitest/config';
import base, { targetProject } from './vitest.config.ts';

export default defineConfig({
  ...base,
  test: { ...base.test, projects: [...(base.test?.projects ?? []), targetProject('threads')] },
});
