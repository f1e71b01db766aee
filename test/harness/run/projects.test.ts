import { describe, expect, it } from 'vitest';
import { partOf, TARGET_PROJECT } from '../../../harness/run/projects.ts';
import base from '../../../vitest.config.ts';
import runConfig from '../../../vitest.run.config.ts';
import selfProofConfig from '../../../vitest.self-proof.config.ts';

describe('the part a check belongs to in reports', () => {
  it('is the project that ran it when that is conformance or properties', () => {
    expect(partOf('conformance', '/suite', '/suite/suites/me.suite.ts')).toBe('conformance');
    expect(partOf('properties', '/suite', '/suite/properties/cdr-window.property.ts')).toBe('properties');
  });

  it('is read from the folder when the target project ran both, so ids match runs of each project alone', () => {
    expect(partOf(TARGET_PROJECT, '/suite', '/suite/suites/me.suite.ts')).toBe('conformance');
    expect(partOf(TARGET_PROJECT, '/suite', '/suite/suites/webhook-watch.judge.suite.js')).toBe('conformance');
    expect(partOf(TARGET_PROJECT, '/suite', '/suite/properties/cdr-window.property.ts')).toBe('properties');
    // The installed package runs the emitted copy under dist/, its own root.
    expect(partOf(TARGET_PROJECT, '/pkg/dist', '/pkg/dist/properties/negative-data.property.js')).toBe('properties');
  });
});

/** The projects of a configuration, by name, with the pool each runs in. */
function projects(config: typeof base): Array<{ name: string | undefined; pool: string | undefined }> {
  return (config.test?.projects ?? []).map((project) => {
    const test = (project as { test?: { name?: string; pool?: string } }).test;
    return { name: test?.name, pool: test?.pool };
  });
}

describe('the target project', () => {
  it("is defined by occ run's and the self-proof's configurations alone, not by plain vitest run's", () => {
    expect(projects(base).map((p) => p.name)).not.toContain(TARGET_PROJECT);
    for (const config of [runConfig, selfProofConfig])
      expect(projects(config).map((p) => p.name)).toEqual([...projects(base).map((p) => p.name), TARGET_PROJECT]);
  });

  it("runs in worker threads for the self-proof's runners, else in forks, which may take V8 flags", () => {
    expect(projects(runConfig).find((p) => p.name === TARGET_PROJECT)?.pool).toBe('forks');
    expect(projects(selfProofConfig).find((p) => p.name === TARGET_PROJECT)?.pool).toBe('threads');
  });

  it('is given its run by the caller: the set-up that starts one for vitest run directly is left out', () => {
    expect(base.test?.globalSetup).toHaveLength(1);
    expect(runConfig.test?.globalSetup).toEqual([]);
    expect(selfProofConfig.test?.globalSetup).toEqual([]);
  });
});
