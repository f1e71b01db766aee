/** The vitest sequencer that keeps the file order of a run (run-order.ts), for vitest.config.ts. */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { runRank } from './run-order.ts';

export class RunOrderSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const projectIndex = new Map<string, number>();
    for (const spec of base)
      if (!projectIndex.has(spec.project.name)) projectIndex.set(spec.project.name, projectIndex.size);
    const position = new Map(base.map((spec, index) => [spec, index]));
    return [...base].sort(
      (a, b) =>
        projectIndex.get(a.project.name)! - projectIndex.get(b.project.name)! ||
        runRank(a.moduleId) - runRank(b.moduleId) ||
        position.get(a)! - position.get(b)!,
    );
  }
}
