import { defineConfig } from 'vitest/config';
import { RunOrderSequencer } from './harness/suite/run-order.ts';
import { requirements } from './requirements/catalogue.ts';

// Requirement ids are vitest tags: a check tagged with an id the catalogue lacks fails the run
// (strict tags), and `--tags-filter=CDRS-WINDOW-MAX-31D` runs the checks of one requirement.
const tags = requirements.map((requirement) => ({ name: requirement.id, description: requirement.text }));

const againstTarget = {
  globalSetup: ['harness/suite/global-setup.ts'],
  // One worker and shared module state: one throttle and one request count for the whole run,
  // and control-API state changes that never race another file.
  fileParallelism: false,
  isolate: false,
  tags,
};

// Tests that start whole runs (the CLI, every fault of the catalogue, k6): they measure timing,
// so they run after everything else, one file at a time, with the machine to themselves.
const wholeRuns = ['test/self-proof/**/*.test.ts', 'test/load/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/properties/properties-catch-faults.test.ts'];

// The HMAC round trips prove our own signer and verifier, not the target: they belong to the
// project's tests, not to a conformance run.
const harnessProperties = ['properties/hmac-signing.property.ts'];

// One vitest project per concern, so `npm test` runs them all and each can be run alone
// with `vitest run --project <name>`.
export default defineConfig({
  test: {
    reporters: ['default', './harness/report/closing-line.ts'],
    // What a run watches across its checks is opened first and judged last (harness/suite/run-order.ts).
    sequence: { sequencer: RunOrderSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', ...harnessProperties],
          exclude: wholeRuns,
        },
      },
      {
        test: {
          name: 'conformance',
          include: ['suites/**/*.suite.ts'],
          ...againstTarget,
        },
      },
      {
        test: {
          name: 'properties',
          include: ['properties/**/*.property.ts'],
          exclude: harnessProperties,
          ...againstTarget,
        },
      },
      {
        test: {
          name: 'whole-runs',
          include: wholeRuns,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
