/**
 * File order of a run: vitest's own order (by project, then its duration/size heuristics), except
 * that inside a project `*.open.suite.ts` files run first and `*.judge.suite.ts` files last (`.js` in the installed package), so
 * that what a run watches across its checks (webhook deliveries a remote target sends in its own
 * time) is set up before and judged after everything else, and the wait overlaps the run.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export function runRank(moduleId: string): number {
  if (/\.open\.suite\.[jt]s$/.test(moduleId)) return 0;
  if (/\.judge\.suite\.[jt]s$/.test(moduleId)) return 2;
  return 1;
}

export class RunOrderSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const projectIndex = new Map<string, number>();
    for (const spec of base) if (!projectIndex.has(spec.project.name)) projectIndex.set(spec.project.name, projectIndex.size);
    const position = new Map(base.map((spec, index) => [spec, index]));
    return [...base].sort((a, b) => (projectIndex.get(a.project.name)! - projectIndex.get(b.project.name)!)
      || (runRank(a.moduleId) - runRank(b.moduleId))
      || (position.get(a)! - position.get(b)!));
  }
}
