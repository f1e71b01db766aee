import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { compileCacheDirectory } from './cli/package-root.ts';
import { shareCompileCache } from './harness/config/machine.ts';
import { TARGET_PROJECT } from './harness/run/projects.ts';
import { RunOrderSequencer } from './harness/scheduling/sequencer.ts';
import { requirements } from './requirements/catalogue.ts';

// Requirement ids are vitest tags: a check tagged with an id the catalogue lacks fails the run
// (strict tags), and `--tags-filter=CDRS-WINDOW-MAX-31D` runs the checks of one requirement.
const tags = requirements.map((requirement) => ({ name: requirement.id, description: requirement.text }));

// From a clone the suite is TypeScript; in the installed npm package it is the JavaScript that
// `npm pack` emitted into dist/ (packaging/build.ts), beside this file's own emitted copy.
const ext = import.meta.url.endsWith('.js') ? 'js' : 'ts';

// Starts the target and provides the run context to the projects that check it, when vitest runs
// directly: once for the whole vitest, since every such project shares one run (one reference, one
// receiver). `occ run` and the self-proof provide the run they started themselves instead
// (vitest.run.config.ts, vitest.self-proof.config.ts leave this out).
export const directRunSetup = [fileURLToPath(new URL(`./commands/vitest-global-setup.${ext}`, import.meta.url))];

const againstTarget = {
  // One worker and shared module state: one throttle and one request count for the whole run,
  // and control-API state changes that never race another file. `occ run` overrides this for the
  // embedded target only, whose files run in parallel behind the check gate (harness/scheduling/gate.ts).
  fileParallelism: false,
  isolate: false,
  tags,
};

// Forked workers get a larger young generation: they parse and validate megabytes of CDR lists a
// run, and the default semi-space spends noticeably more time collecting garbage. The self-proof's
// runners use worker threads (vitest.self-proof.config.ts), which refuse V8 flags.
const targetPools = {
  forks: { pool: 'forks' as const, execArgv: ['--max-semi-space-size=32'] },
  threads: { pool: 'threads' as const },
};

// The many Node processes of npm test (runs, CLIs, reference servers) compile the same modules: a
// V8 compile cache shared by them (and inherited by the tests' clean environments,
// test/commands/occ-process.ts) saves compiling them again. It caches code, not results.
shareCompileCache(compileCacheDirectory);

// The project's own tests fall in three classes, by file name:
// - `*.timed.test.ts`: whole runs that measure in real time (a k6 probe sending on a fixed schedule,
//   retry intervals, a receiver polled on a schedule), which a starved machine makes inconclusive;
// - `*.run.test.ts`: whole runs that are CPU-bound batches (the CLI, the fault catalogue, the packed
//   package), whose verdicts do not depend on how fast they get the CPU: they run at a lower
//   priority (test/batch-priority.ts), so the kernel serves the timed files first;
// - every other `*.test.ts`: unit files.
// Whole runs assert no speed, use ephemeral ports and folders of their own, and their timeouts are
// hang guards, so all three classes share one pool.
const timedRuns = 'test/**/*.timed.test.ts';
const wholeRuns = 'test/**/*.run.test.ts';

/** Timed runs first, then whole runs, then unit files: the long files start first, and no long file starts last. */
function testClassRank(moduleId: string): number {
  if (/\.timed\.test\.[jt]s$/.test(moduleId)) return 0;
  if (/\.run\.test\.[jt]s$/.test(moduleId)) return 1;
  return 2;
}

// Most of these files wait on child processes, sockets, rate windows and delivery timeouts rather
// than compute, so more workers than cores keep the cores busy (vitest's default is one per core but one).
// Not many more: each file's runs start processes of their own, which more workers only set
// contending for the same two cores; fewer leave the cores idle while files wait.
const TEST_WORKERS = 4;

/**
 * The longest hang guard a whole-run file declares (`timeout: N`): what its author expects it to
 * need on a busy machine, and so a stand-in for its length where vitest has no recorded duration.
 */
function declaredTimeout(moduleId: string): number {
  if (testClassRank(moduleId) === 2) return 0;
  const text = readFileSync(moduleId, 'utf8');
  // `{ timeout: N }` options, and the positional form `it(name, fn, N)` / `beforeAll(fn, N)`.
  const declared = [...text.matchAll(/timeout:\s*([\d_]+)|\}, ([\d_]{5,})\)/gi)];
  return Math.max(0, ...declared.map((m) => Number((m[1] ?? m[2])!.replaceAll('_', ''))));
}

// By class, then, within a class, the longest declared hang guard first (so that a long file does
// not start last), then a run's file order (harness/scheduling/run-order.ts: what a run watches is
// opened first and judged last), then vitest's own order: the durations it recorded last time,
// longest first, or the file size where it has none (a fresh clone). One exception: the whole run
// with the longest hang guard (the kill rate, the whole fault catalogue) starts before every other
// file. It is npm test's critical path, and the timed files it starts beside mostly wait on real
// time, leaving the cores it needs; behind them it started only when the first timed file ended.
class TestClassSequencer extends RunOrderSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const position = new Map(base.map((spec, index) => [spec, index]));
    const budget = new Map(base.map((spec) => [spec, declaredTimeout(spec.moduleId)]));
    const wholeRuns = base.filter((spec) => testClassRank(spec.moduleId) === 1);
    const longest = wholeRuns.reduce<TestSpecification | undefined>(
      (best, spec) => (best === undefined || budget.get(spec)! > budget.get(best)! ? spec : best),
      undefined,
    );
    const rank = (spec: TestSpecification) => (spec === longest ? -1 : testClassRank(spec.moduleId));
    return [...base].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        rank(a) - rank(b) ||
        budget.get(b)! - budget.get(a)! ||
        position.get(a)! - position.get(b)!,
    );
  }
}

// Hang guards, not speed limits: a busy machine may take many times as long, and must stay green.
const busyMachineTimeouts = { testTimeout: 60_000, hookTimeout: 120_000 };

// npm test's temporary folders, all in one of this run, removed at its end (test/scratch-folder.ts).
const scratchFolder = 'test/scratch-folder.ts';

// The HMAC round trips prove our own signer and verifier, not the target: they belong to the
// project's tests, not to a conformance run.
const harnessProperties = [`properties/hmac-signing.property.${ext}`];

const suites = `suites/**/*.suite.${ext}`;
const properties = `properties/**/*.property.${ext}`;

/**
 * The project `occ run` and the self-proof run the suites and the properties as, in forked
 * processes or worker threads: only their own configurations (vitest.run.config.ts,
 * vitest.self-proof.config.ts) add it, so that plain `vitest run` does not run every check twice
 * (harness/run/projects.ts).
 */
export function targetProject(pool: keyof typeof targetPools) {
  return {
    test: {
      name: TARGET_PROJECT,
      include: [suites, properties],
      exclude: harnessProperties,
      ...againstTarget,
      ...targetPools[pool],
    },
  };
}

// One vitest project per concern; each can be run alone with `vitest run --project <name>`.
// `npm test` names unit, whole-runs and timed-runs (package.json), which share one pool (same
// group), so the short unit files fill the gaps beside the long runs. conformance and properties
// (the suite against the embedded reference, one check at a time) would run first, on one core:
// test/commands/vitest-projects.run.test.ts runs them in the pool instead, as the README shows them.
export default defineConfig({
  test: {
    globalSetup: directRunSetup,
    reporters: ['default', './harness/report/closing-line.ts'],
    sequence: { sequencer: TestClassSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', ...harnessProperties],
          exclude: [wholeRuns, timedRuns],
          globalSetup: [scratchFolder],
          maxWorkers: TEST_WORKERS,
          // One worker serves many unit files instead of a fresh one each: no unit file mocks
          // modules, and the few that set variables, fake timers or the environment put them back.
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
          include: [wholeRuns],
          // Before any file starts: one short run that fills Node's compile cache (test/compile-cache-warm-up.ts).
          globalSetup: [scratchFolder, 'test/compile-cache-warm-up.ts'],
          setupFiles: ['test/batch-priority.ts'],
          maxWorkers: TEST_WORKERS,
          sequence: { groupOrder: 1 },
          ...busyMachineTimeouts,
        },
      },
      {
        test: {
          name: 'timed-runs',
          include: [timedRuns],
          globalSetup: [scratchFolder],
          maxWorkers: TEST_WORKERS,
          sequence: { groupOrder: 1 },
          ...busyMachineTimeouts,
        },
      },
    ],
  },
});
