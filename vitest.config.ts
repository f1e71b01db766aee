import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { RunOrderSequencer } from './harness/suite/run-order.ts';
import { requirements } from './requirements/catalogue.ts';

// Requirement ids are vitest tags: a check tagged with an id the catalogue lacks fails the run
// (strict tags), and `--tags-filter=CDRS-WINDOW-MAX-31D` runs the checks of one requirement.
const tags = requirements.map((requirement) => ({ name: requirement.id, description: requirement.text }));

// From a clone the suite is TypeScript; in the installed npm package it is the JavaScript that
// `npm pack` emitted into dist/ (packaging/build.ts), beside this file's own emitted copy.
const ext = import.meta.url.endsWith('.js') ? 'js' : 'ts';

const againstTarget = {
  globalSetup: [fileURLToPath(new URL(`./harness/suite/global-setup.${ext}`, import.meta.url))],
  // One worker and shared module state: one throttle and one request count for the whole run,
  // and control-API state changes that never race another file. `occ run` overrides this for the
  // embedded target only, whose files run in parallel behind the check gate (harness/suite/gate.ts).
  fileParallelism: false,
  isolate: false,
  tags,
};

// Tests that start whole runs (the CLI, every fault of the catalogue, k6): they measure timing,
// so they run after everything else, one file at a time, with the machine to themselves.
const wholeRuns = ['test/self-proof/**/*.test.ts', 'test/load/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/properties/properties-catch-faults.test.ts'];

// The HMAC round trips prove our own signer and verifier, not the target: they belong to the
// project's tests, not to a conformance run.
const harnessProperties = [`properties/hmac-signing.property.${ext}`];

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
          include: [`suites/**/*.suite.${ext}`],
          ...againstTarget,
        },
      },
      {
        test: {
          name: 'properties',
          include: [`properties/**/*.property.${ext}`],
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
