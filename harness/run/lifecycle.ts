/**
 * One run per process, shared by whoever needs its target: vitest's global set-up of each
 * project (cli/vitest-global-setup.ts), `occ run` (which starts it before vitest,
 * cli/conformance.ts) and the self-proof's runners (cli/fault-runner.ts). Vitest 5 runs a
 * project's globalSetup once per project, each through its own module runner, so module state is
 * not shared: the run is parked on `globalThis`. The first user starts it with its options, every
 * acquire is matched by a release, the last release ends it: one receiver on RECEIVER_PORT, one
 * reference server, one sweep.
 *
 * This module stays light: the run's modules (./target.ts: the receiver, the API client, and
 * the embedded reference its starter loads) load only when the run starts here, so a global
 * set-up that finds the run started by the CLI does not load them again through vitest's module runner.
 */
import type { RunOptions, SharedRun } from './target.ts';

export type { RunOptions, SharedRun } from './target.ts';

const RUN = Symbol.for('outbound-calling-conformance.global-setup.run');
const shared = globalThis as { [RUN]?: Promise<SharedRun> };

/**
 * The run of this process, started by its first user with that user's options (later users'
 * options are not used; given as a function, they are not even made).
 */
export async function acquireRun(options: RunOptions | (() => Promise<RunOptions>)): Promise<SharedRun> {
  shared[RUN] ??= Promise.all([typeof options === 'function' ? options() : options, import('./target.ts')]).then(
    ([chosen, { startRun }]) => startRun(chosen),
  );
  const run = await shared[RUN];
  run.users += 1;
  return run;
}

export async function releaseRun(run: SharedRun): Promise<void> {
  run.users -= 1;
  if (run.users > 0) return;
  delete shared[RUN];
  await run.end();
}
