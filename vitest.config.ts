import { defineConfig } from 'vitest/config';
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

// One vitest project per concern, so `npm test` runs them all and each can be run alone
// with `vitest run --project <name>`.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
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
          ...againstTarget,
        },
      },
    ],
  },
});
