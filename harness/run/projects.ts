/**
 * The vitest projects that check a target (vitest.config.ts). `conformance` (suites/) and
 * `properties` each run alone with `vitest run --project <name>`; `occ run` and the self-proof
 * run both as one project, TARGET_PROJECT, so that they share one pool of workers: each worker
 * loads the harness once, the properties run beside the suites' waits instead of after them, and
 * the judges of a run (`*.judge.suite.ts`) see the properties' requests and deliveries too. Only
 * their own configurations define it (vitest.run.config.ts, vitest.self-proof.config.ts), which
 * they name when they create vitest, so that `vitest run` does not run every check twice.
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
