/**
 * The vitest projects that check a target (vitest.config.ts). `conformance` (suites/) and
 * `properties` each run alone with `vitest run --project <name>`; `occ run` and the self-proof
 * run both as one project, TARGET_PROJECT, so that they share one pool of workers: each worker
 * loads the harness once, the properties run beside the suites' waits instead of after them, and
 * the judges of a run (`*.judge.suite.ts`) see the properties' requests and deliveries too.
 */
import { relative, sep } from 'node:path';

export const TARGET_PROJECT = 'target';

/**
 * What a check is part of in reports and ids, whichever project ran it: `conformance` or
 * `properties`, as when each runs alone, so ids match those of earlier runs. Pure.
 */
export function partOf(projectName: string, root: string, moduleId: string): string {
  if (projectName !== TARGET_PROJECT) return projectName;
  return relative(root, moduleId).split(sep)[0] === 'properties' ? 'properties' : 'conformance';
}

/**
 * Whether this process defines TARGET_PROJECT, and how it runs. vitest loads vitest.config.ts in
 * the process that creates it, so the flag lives on globalThis (the configuration is bundled
 * apart from this module): nothing is inherited by child processes.
 */
const TARGET_PROJECT_SETTINGS = Symbol.for('outbound-calling-conformance.target-project');
const settings = globalThis as { [TARGET_PROJECT_SETTINGS]?: { readonly threads: boolean } };

/**
 * Called by `occ run` and the self-proof before vitest loads its configuration: only they define
 * TARGET_PROJECT, so that `vitest run` does not run every check twice. `threads`: the project
 * runs in worker threads instead of forked processes (the self-proof's runners), which take no
 * V8 flags of their own (vitest.config.ts).
 */
export function enableTargetProject(options: { threads?: boolean } = {}): void {
  settings[TARGET_PROJECT_SETTINGS] = { threads: options.threads === true };
}

/** Undoes enableTargetProject (for tests). */
export function disableTargetProject(): void {
  delete settings[TARGET_PROJECT_SETTINGS];
}

export function targetProjectEnabled(): boolean {
  return settings[TARGET_PROJECT_SETTINGS] !== undefined;
}

export function targetProjectInThreads(): boolean {
  return settings[TARGET_PROJECT_SETTINGS]?.threads === true;
}
