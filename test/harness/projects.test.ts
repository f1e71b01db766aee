import { describe, expect, it } from 'vitest';
import {
  disableTargetProject,
  enableTargetProject,
  partOf,
  TARGET_PROJECT,
  targetProjectEnabled,
  targetProjectInThreads,
} from '../../harness/run/projects.ts';

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

describe('how the target project runs', () => {
  it("in worker threads only if asked (the self-proof's runners), else in forks, which may take V8 flags", () => {
    const saved = { ...process.env };
    try {
      enableTargetProject({ threads: true });
      expect(targetProjectEnabled()).toBe(true);
      expect(targetProjectInThreads()).toBe(true);
      enableTargetProject();
      expect(targetProjectEnabled()).toBe(true);
      expect(targetProjectInThreads()).toBe(false);
      // Nothing a child process would inherit.
      expect(process.env).toEqual(saved);
    } finally {
      disableTargetProject();
    }
  });
});
