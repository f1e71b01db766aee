/**
 * The self-proof's long-lived runner: one process per --concurrency slot (commands/self-proof-runner.ts,
 * started by ./catalogue.ts over IPC), holding one vitest instance and one embedded run
 * (harness/run/target.ts, started once with the starters its composition root injects) for many
 * faults, so a fault costs its own checks and a fresh test worker instead of a whole process,
 * vitest and global set-up start.
 *
 * A fault's run sees what a run of its own (`OCC_REFERENCE_FAULTS=<id> occ run --only <ids>`) sees:
 * - a FRESH reference server with that fault alone on (switchFaults: the previous one is swept
 *   and closed, never reset, so its virtual clock, pending deliveries, tokens and control states
 *   go with it), and the receiver's deliveries and seen eventIds forgotten;
 * - a new test worker: vitest starts one (a worker thread) per test run and ends it with the run
 *   (a worker is only reused for the next file queued in the same run), so no module state crosses faults;
 * - a new property seed, only the checks tagged with a requirement the fault violates (the same
 *   tag filter as --only, on the files holding such a check), and the same report model, exit
 *   code and judge (judgeFault) as a run of its own; only a failing property's counterexample is
 *   left unshrunk (the run context's `shrink`): the verdict does not depend on it.
 * Waivers are not applied: the self-proof judges the suite against our own reference.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createVitest, type Reporter, type TestModule, type TestSpecification, type Vitest } from 'vitest/node';
import { loadFromProcessEnvironment } from '../harness/config/environment.ts';
import { TARGET_PROJECT } from '../harness/run/projects.ts';
import { type ReferenceStarters, type Run, startRun } from '../harness/run/target.ts';
import { createRedactor } from '../harness/http/redact.ts';
import { CheckCollector } from '../harness/report/collector.ts';
import { buildReport, exitCodeOf, type RunReport } from '../harness/report/model.ts';
import { judgeFault } from './judge.ts';
import { packageRoot, vitestConfigFile } from '../cli/package-root.ts';

/** A fault of the reference's catalogue as the self-proof knows it: its id and the requirements it violates. */
export interface Fault {
  readonly id: string;
  readonly violates: readonly string[];
}

/** What one fault's run produced: the report a run of its own would write, and its exit code. */
export interface FaultRun {
  readonly report: RunReport;
  readonly exitCode: 0 | 1;
}

/**
 * The checks whose full name matches a pattern, with a fixed property seed, instead of the checks
 * tagged with the fault's requirements: what `PROPERTY_SEED=<seed> vitest run -t <pattern>` runs
 * (test/properties/properties-catch-faults.run.test.ts proves each property on its fault this way).
 */
export interface CheckSelection {
  /** A regular expression, as vitest's -t takes it. */
  readonly testNamePattern: string;
  readonly seed: number;
}

export interface FaultRunner {
  /** How many checks carry one of these requirement ids (what a fault's run will run). */
  checksOf(ids: readonly string[]): number;
  /**
   * Runs the fault's checks (or the one selected) against a fresh reference with that fault alone on,
   * up to the first that catches it, or every one (`everyCheck`).
   */
  run(fault: Pick<Fault, 'id' | 'violates'>, only?: CheckSelection, everyCheck?: boolean): Promise<FaultRun>;
  close(): Promise<void>;
}

/** The test files holding a check tagged with one of `ids`, from the tags collected per file. Pure. */
export function filesFor(ids: readonly string[], tagsByFile: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  return [...tagsByFile].filter(([, tags]) => ids.some((id) => tags.has(id))).map(([file]) => file);
}

/** The tag expression of `occ run --only <ids>`: any of the ids. Pure. */
export function onlyFilter(ids: readonly string[]): string[] {
  return [ids.join(' || ')];
}

const specKey = (spec: Pick<TestSpecification, 'moduleId'> & { project: { name: string } }) =>
  `${spec.project.name}\u0000${spec.moduleId}`;

/** Once: which requirement tags each file's checks carry, and their names (collecting runs no check). */
async function collectTags(vitest: Vitest, specifications: TestSpecification[]) {
  const collected = await vitest.collectTests(specifications);
  const tagsByFile = new Map<string, Set<string>>();
  const namesByFile = new Map<string, string[]>();
  const tagsByCheck: string[][] = [];
  for (const module of collected.testModules) {
    const tests = [...module.children.allTests()];
    tagsByFile.set(specKey(module), new Set(tests.flatMap((test) => test.tags)));
    namesByFile.set(
      specKey(module),
      tests.map((test) => test.fullName),
    );
    tagsByCheck.push(...tests.map((test) => test.tags));
  }
  return { tagsByFile, namesByFile, tagsByCheck };
}

/**
 * Starts a runner in this process, its run started once with `starters`. The embedded target
 * needs no variable; the caller clears API_BASE_URL and the like (a configured remote target has
 * no fault switches).
 */
export async function startFaultRunner(starters: ReferenceStarters): Promise<FaultRunner> {
  const suiteVersion = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string })
    .version;
  // Held by this runner for its whole life, provided to its projects below. Its configuration is
  // the environment its parent chose (./catalogue.ts, embeddedRunEnvironment).
  const { config, settings } = loadFromProcessEnvironment();
  const run: Run = await startRun({
    starters,
    config,
    cacheDirectory: settings.cacheDirectory,
    variants: settings.referenceVariants,
    dryRun: false,
    // A fault is caught or not whatever the counterexample: a failing property ends at its first
    // failure instead of shrinking it (a run of its own would shrink; the verdict is the same).
    shrink: false,
  });
  if (run.context.target.kind !== 'embedded') {
    await run.end();
    throw new Error('the self-proof runs against the embedded reference server: unset API_BASE_URL');
  }
  let current: CheckCollector | undefined;
  /** Set while a fault runs: whether its results so far catch it (its run then stops: the verdict is in). */
  let caughtSoFar: ((checks: CheckCollector['results']) => boolean) | undefined;
  let vitest: Vitest | undefined;
  // vitest's reporters are fixed at creation: this one hands each fault's events to that fault's collector.
  const relay: Reporter = {
    onTestModuleCollected: (module: TestModule) => current?.onTestModuleCollected(module),
    onTestCaseResult: (test) => {
      current?.onTestCaseResult(test);
      if (current !== undefined && caughtSoFar?.(current.results)) {
        caughtSoFar = undefined;
        // Not awaited: it waits for the run this callback belongs to.
        void vitest?.cancelCurrentRun('test-failure');
      }
    },
    onTestRunEnd: (modules, errors, reason) => current?.onTestRunEnd(modules, errors, reason),
  };
  try {
    vitest = await createVitest({
      root: packageRoot,
      // A worker thread per fault rather than a forked process: the same fresh module graph and
      // environment (vitest hands each run's worker the environment of that run), without a Node
      // process start per fault (the self-proof's CPU: bench/RESULTS.md).
      config: vitestConfigFile('self-proof'),
      configLoader: 'native',
      run: true,
      watch: false,
      project: [TARGET_PROJECT],
      reporters: [relay],
      passWithNoTests: true,
    });
    // Every fault's run is given the run's context; switchFaults and setSeed provide the next one.
    for (const project of vitest.projects) run.provideTo(project);
    const specifications = await vitest.globTestSpecifications();
    const { tagsByFile, namesByFile, tagsByCheck } = await collectTags(vitest, specifications);
    const bySpecKey = new Map(specifications.map((spec) => [specKey(spec), spec]));
    const v = vitest;
    return {
      checksOf: (ids) => tagsByCheck.filter((tags) => tags.some((tag) => ids.includes(tag))).length,
      async run(fault, only, everyCheck = false) {
        await run.switchFaults([fault.id]);
        const seed = only?.seed ?? Math.floor(Math.random() * 2 ** 31);
        // Provided to the worker vitest starts for this run (vitest reads the provided context at each run).
        run.setSeed(seed);
        const collector = new CheckCollector({ root: packageRoot, redact: createRedactor(run.context.target.secrets) });
        current = collector;
        // Once caught, the rest of its checks cannot change the verdict: the run stops (exit code 1 stands).
        caughtSoFar =
          only === undefined && !everyCheck ? (checks) => judgeFault(fault.violates, { checks }).length > 0 : undefined;
        const startedAt = new Date().toISOString();
        const started = performance.now();
        try {
          const pattern = only === undefined ? undefined : new RegExp(only.testNamePattern);
          const [files, filter] =
            pattern === undefined
              ? [filesFor(fault.violates, tagsByFile), { testTagsFilter: onlyFilter(fault.violates) }]
              : [
                  [...namesByFile]
                    .filter(([, names]) => names.some((name) => pattern.test(name)))
                    .map(([file]) => file),
                  { testNamePattern: pattern },
                ];
          const mine = files
            .map((key) => bySpecKey.get(key)!)
            .map((spec) => spec.project.createSpecification(spec.moduleId, filter));
          await v.runTestSpecifications(mine);
        } finally {
          current = undefined;
          caughtSoFar = undefined;
        }
        const report = buildReport({
          tool: 'outbound-calling-conformance',
          suiteVersion,
          target: { kind: 'embedded', baseUrl: 'embedded reference server' },
          startedAt,
          durationMs: Math.round(performance.now() - started),
          seed,
          dryRun: false,
          checks: collector.results,
          load: [],
          previous: [],
          requestsSent: collector.results.reduce((sum, c) => sum + c.requests, 0),
          unhandledErrors: collector.unhandledErrors,
          interrupted: false,
        });
        return { report, exitCode: exitCodeOf(report) };
      },
      async close() {
        await v.close();
        await run.end();
      },
    };
  } catch (error) {
    await vitest?.close();
    await run.end();
    throw error;
  }
}

/** Messages between ./catalogue.ts and a runner process. */
export type ToRunner = {
  readonly fault: Pick<Fault, 'id' | 'violates'>;
  readonly only?: CheckSelection;
  readonly everyCheck?: boolean;
};
export type FromRunner =
  /** Started; `checks`: how many checks each fault of the catalogue will run (to start the longest first). */
  | { readonly ready: true; readonly checks: Readonly<Record<string, number>> }
  | { readonly fault: string; readonly run: FaultRun }
  | { readonly fault?: string; readonly error: string };

/**
 * A runner process's life (commands/self-proof-runner.ts): start, say how many checks each fault of
 * `catalogue` runs, then run one fault per message until the parent disconnects.
 */
export async function serveRunner(catalogue: readonly Fault[], starters: ReferenceStarters): Promise<void> {
  const send = (message: FromRunner) => process.send!(message);
  try {
    const runner = await startFaultRunner(starters);
    // One fault at a time; the parent sends the next after the verdict.
    process.on('message', (message: ToRunner) => {
      runner.run(message.fault, message.only, message.everyCheck).then(
        (result) => send({ fault: message.fault.id, run: result }),
        (error: unknown) => send({ fault: message.fault.id, error: (error as Error).message.split('\n')[0]! }),
      );
    });
    process.once('disconnect', () => {
      void runner.close().finally(() => process.exit(0));
    });
    send({ ready: true, checks: Object.fromEntries(catalogue.map((f) => [f.id, runner.checksOf(f.violates)])) });
  } catch (error) {
    send({ error: (error as Error).message.split('\n')[0]! });
    process.disconnect();
  }
}
