import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { compileCacheDirectory } from './cli/package-root.ts';
import { TARGET_PROJECT, targetProjectEnabled, targetProjectInThreads } from './harness/suite/projects.ts';
import { RunOrderSequencer } from './harness/suite/run-order-sequencer.ts';
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

// A larger young generation for forked workers: they parse and validate some 6 MB of CDR lists a
// run, and V8's default semi-space made that about a third more garbage-collection time (456
// against 310 ms of a run's CPU, in CPU profiles of the three processes). The self-proof's
// runners use worker threads (harness/suite/projects.ts), which refuse V8 flags.
const targetPool = targetProjectInThreads() ? { pool: 'threads' as const } : { pool: 'forks' as const, execArgv: ['--max-semi-space-size=32'] };

// npm test starts some hundred Node processes (runs, CLIs, reference servers) that compile the same
// modules: a V8 compile cache shared by them (and inherited by the tests' clean environments,
// test/cli/occ-process.ts) saves about a third of a short run's CPU. It caches code, not results.
process.env.NODE_COMPILE_CACHE ??= compileCacheDirectory;

// Tests that start whole runs (the CLI, every fault of the catalogue, k6, the packed package), and
// the test that this project's workers run at the batches' priority (test/batch-priority.test.ts).
// They run side by side with the unit files: none asserts a speed, every port is ephemeral, every
// target, report folder and npm install is the test's own, and their timeouts are hang guards that
// hold with the machine busy.
const wholeRuns = ['test/self-proof/**/*.test.ts', 'test/examples/**/*.test.ts', 'test/load/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/properties/properties-catch-faults.test.ts', 'test/batch-priority.test.ts'];

// Of those, the ones that measure in real time: the k6 rate-limit probe must send at 150 % of the
// limit on a fixed schedule (each send within 625 ms), so a starved machine makes it inconclusive;
// the full remote configuration and the remote recipe keep whole runs under a real limit; the remote
// webhook watch judges retry intervals in real time (a 50× clock: 1.2 s, 2.4 s, 4.8 s…), which a
// starved target stretches until constant backoff looks exponential; with-load runs both k6 probes
// and the receiver service polls on a schedule. They keep the normal priority, and the other whole
// runs (CPU-bound batches) run at a lower one (test/batch-priority.ts), so the kernel serves the
// timed files first and both kinds share the machine instead of taking turns.
const timedRuns = ['test/load/k6-probes.test.ts', 'test/load/rate-limit-runners.test.ts', 'test/cli/remote-full-configuration.test.ts', 'test/cli/remote-webhooks.test.ts', 'test/cli/remote-recipe.test.ts', 'test/cli/with-load.test.ts', 'test/cli/receiver-service.test.ts'];

// vitest's default is one worker per core but one (a single worker on a 2-core machine, which ran
// every file of npm test one after another). Most of these files spend their time waiting on child
// processes, sockets, rate windows and delivery timeouts rather than computing, so more workers
// than cores keep both cores busy. unit, whole-runs and timed-runs share one pool (same group, same
// workers), so the short unit files fill the gaps beside the long whole runs.
const TEST_WORKERS = 6;

// The longest files first (longest-processing-time order), so no long file starts last; a fresh
// clone (CI) has no vitest timing cache, whose order would otherwise be by file size. Longest is
// measured with the machine busy: the batches run at a lower priority (test/batch-priority.ts),
// and the files that run their tests one after another (the CLI's runs, the properties' fault
// runs) take longest then, so they start with the kill rate. Figures: bench:npm-test.
const longestFirst = [
  'test/self-proof/kill-rate.test.ts', 'test/cli/conformance-cli.test.ts', 'test/properties/properties-catch-faults.test.ts',
  'test/cli/remote-full-configuration.test.ts', 'test/load/k6-probes.test.ts', 'test/load/rate-limit-runners.test.ts', 'test/cli/remote-webhooks.test.ts',
  'test/self-proof/variants.test.ts', 'test/self-proof/fault-catalogue.test.ts', 'test/cli/package.test.ts', 'test/cli/waivers-replay.test.ts',
  'test/cli/vitest-projects.test.ts', 'test/cli/remote-recipe.test.ts', 'test/cli/occ-cli.test.ts', 'test/cli/with-load.test.ts', 'test/cli/receiver-service.test.ts',
  'test/report/html-browser.test.ts',
];

class NpmTestSequencer extends RunOrderSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const index = longestFirst.findIndex((path) => spec.moduleId.endsWith(path));
      return index === -1 ? longestFirst.length : index;
    };
    const position = new Map(base.map((spec, index) => [spec, index]));
    return [...base].sort((a, b) => (a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder)
      || (rank(a) - rank(b)) || (position.get(a)! - position.get(b)!));
  }
}

// Hang guards, not speed limits: a busy machine may take many times as long, and must stay green.
const busyMachineTimeouts = { testTimeout: 60_000, hookTimeout: 120_000 };

// The HMAC round trips prove our own signer and verifier, not the target: they belong to the
// project's tests, not to a conformance run.
const harnessProperties = [`properties/hmac-signing.property.${ext}`];

const suites = `suites/**/*.suite.${ext}`;
const properties = `properties/**/*.property.${ext}`;

// `occ run` and the self-proof run the suites and the properties as one project, which only they
// enable (harness/suite/projects.ts).
const targetProject = targetProjectEnabled()
  ? [{ test: { name: TARGET_PROJECT, include: [suites, properties], exclude: harnessProperties, ...againstTarget, ...targetPool } }]
  : [];

// One vitest project per concern; each can be run alone with `vitest run --project <name>`.
// `npm test` names unit, whole-runs and timed-runs (package.json): conformance and properties
// (the suite against the embedded reference, one check at a time) would run first, on one core,
// so test/cli/vitest-projects.test.ts runs them in the pool instead, as docs/architecture.md shows them.
export default defineConfig({
  test: {
    reporters: ['default', './harness/report/closing-line.ts'],
    // What a run watches across its checks is opened first and judged last (harness/suite/run-order.ts).
    sequence: { sequencer: NpmTestSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', ...harnessProperties],
          exclude: wholeRuns,
          maxWorkers: TEST_WORKERS,
          // One worker serves many unit files instead of a fresh one each (about 10 CPU-s of npm
          // test's worker start-ups): no unit file mocks modules, and the few that set variables,
          // fake timers or the environment put them back in a finally or afterEach.
          isolate: false,
          sequence: { groupOrder: 1 },
          ...busyMachineTimeouts,
        },
      },
      {
        test: {
          name: 'conformance',
          include: [suites],
          ...againstTarget,
        },
      },
      {
        test: {
          name: 'properties',
          include: [properties],
          exclude: harnessProperties,
          ...againstTarget,
        },
      },
      {
        test: {
          name: 'whole-runs',
          include: wholeRuns,
          exclude: timedRuns,
          // Before any file starts: one short run that fills Node's compile cache (test/compile-cache-warm-up.ts).
          globalSetup: ['test/compile-cache-warm-up.ts'],
          setupFiles: ['test/batch-priority.ts'],
          maxWorkers: TEST_WORKERS,
          sequence: { groupOrder: 1 },
          ...busyMachineTimeouts,
        },
      },
      {
        test: {
          name: 'timed-runs',
          include: timedRuns,
          maxWorkers: TEST_WORKERS,
          sequence: { groupOrder: 1 },
          ...busyMachineTimeouts,
        },
      },
      ...targetProject,
    ],
  },
});
