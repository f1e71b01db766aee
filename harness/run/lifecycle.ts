/**
 * One run per process, shared by whoever needs its target in it: `occ run` (cli/conformance.ts)
 * and the self-proof's runners (cli/fault-runner.ts), which start it before vitest and provide its
 * context to their projects, or vitest's global set-up when vitest runs directly
 * (cli/vitest-global-setup.ts, once for every project). The first user starts it with its
 * options, every acquire is matched by a release, the last release ends it: one receiver on
 * RECEIVER_PORT, one reference server, one sweep.
 *
 * This module stays light: the run's modules (./target.ts: the receiver, the API client, and
 * the embedded reference its starter loads) load only when the run starts here.
 */
import type { RunOptions, SharedRun } from './target.ts';

export type { RunOptions, SharedRun } from './target.ts';

let shared: Promise<SharedRun> | undefined;

/**
 * The run of this process, started by its first user with that user's options (later users'
 * options are not used; given as a function, they are not even made).
 */
export async function acquireRun(options: RunOptions | (() => Promise<RunOptions>)): Promise<SharedRun> {
  shared ??= Promise.all([typeof options === 'function' ? options() : options, import('./target.ts')]).then(
    ([chosen, { startRun }]) => startRun(chosen),
  );
  const run = await shared;
  run.users += 1;
  return run;
}

export async function releaseRun(run: SharedRun): Promise<void> {
  run.users -= 1;
  if (run.users > 0) return;
  shared = undefined;
  await run.end();
}
