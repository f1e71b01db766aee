/**
 * File order of a run: vitest's own order (by project, then its duration/size heuristics), except
 * that inside a project `*.open.suite.ts` files run first and `*.judge.suite.ts` files last (`.js`
 * in the installed package), so that what a run watches across its checks (webhook deliveries a
 * remote target sends in its own time) is set up before and judged after everything else, and the
 * wait overlaps the run.
 *
 * The rank lives here, apart from the sequencer (sequencer.ts), because the workers'
 * side of the check gate needs it and must not load vitest's node API (vite and its bundler) to get it.
 */
export function runRank(moduleId: string): number {
  if (/\.open\.suite\.[jt]s$/.test(moduleId)) return 0;
  if (/\.judge\.suite\.[jt]s$/.test(moduleId)) return 2;
  return 1;
}
