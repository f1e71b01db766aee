/**
 * `occ run`'s plan and its checks. The plan is decided before anything is sent: the command line
 * merged with the configuration (read once, harness/config/), the waivers, the seed, the reports'
 * folder, the control endpoint's capabilities. The checks are vitest's run of the `target`
 * project against the run that commands/run.ts started (harness/run/target.ts), provided to the
 * project by call (`provide`), behind the check gate when the run is parallel.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createVitest, type Reporter, type Vitest } from 'vitest/node';
import type { ControlCapability } from '../contract/control.ts';
import { ControlError } from '../harness/seams/control-client.ts';
import { START_UP_PATIENCE, TransportFailure } from '../harness/http/transport.ts';

import { ConfigError, type SuiteConfig } from '../harness/config/config.ts';
import { documentedVariables } from '../harness/config/documented.ts';
import { loadFromEnvironment, variablesSet } from '../harness/config/environment.ts';
import { embeddedWorkerCount, type RunSettings } from '../harness/config/settings.ts';
import type { CheckCollector } from '../harness/report/collector.ts';
import { configurationFingerprint } from '../harness/report/evidence.ts';
import { runDirectoryName } from '../harness/report/files.ts';
import type { Waiver } from '../harness/report/results.ts';
import { loadWaiverFile } from '../harness/report/waivers.ts';
import type { RunContext } from '../harness/run/context.ts';
import { TARGET_PROJECT } from '../harness/run/projects.ts';
import type { Run } from '../harness/run/target.ts';
import { controlPreflight } from '../control-check/check.ts';
import { packageRoot, vitestConfigFile } from './package-root.ts';
import { type Options, UsageError } from './run-options.ts';

/** What a run is, decided before anything is sent. */
export interface RunPlan {
  readonly options: Options;
  readonly config: SuiteConfig;
  readonly settings: RunSettings;
  /** Test workers: several for an embedded run (its files run in parallel behind the check gate), else one. */
  readonly workers: number;
  readonly configuration: ReturnType<typeof configurationFingerprint>;
  readonly waiverFile: string | undefined;
  readonly waivers: Waiver[] | undefined;
  readonly reportsRoot: string;
  readonly startedAt: string;
  readonly seed: number;
  /** The hook journal as the user reads it: reports/<run>/hooks.jsonl. */
  readonly hookFile: string;
  readonly controlCapabilities: ControlCapability[] | undefined;
}

/** What a signal and the run's parts share: whether it was interrupted, and what is running. */
export interface RunState {
  interrupted: boolean;
  signalCode: number;
  vitest: Vitest | undefined;
  probe: ChildProcess | undefined;
}

/** "5 attempts over about 8 s": what START_UP_PATIENCE tried, from its own figures. Pure. */
function startUpAttempts(): string {
  const { retries, delayMs } = START_UP_PATIENCE;
  let waited = 0;
  for (let attempt = 1; attempt <= retries; attempt += 1) waited += delayMs(attempt);
  return `${retries + 1} attempts over about ${Math.round(waited / 1000)} s`;
}

/**
 * CONTROL_URL is read once, here, so that a broken endpoint (no answer, a wrong token, one that
 * serves anyone, malformed capabilities) stops the run with one line rather than false verdicts.
 */
async function controlCapabilitiesOf(config: SuiteConfig): Promise<ControlCapability[] | undefined> {
  if (config.control === undefined) return undefined;
  try {
    const { states, inspections } = await controlPreflight(config.control);
    return [...states, ...inspections];
  } catch (error) {
    // The network, after the start-up's retries: unreachable, not a configuration error.
    if (error instanceof TransportFailure)
      throw new TransportFailure(
        error.kind,
        `CONTROL_URL: ${error.message} (${startUpAttempts()}); is the control endpoint up and reachable?`,
      );
    if (error instanceof ControlError)
      throw new ConfigError(
        'CONTROL_URL',
        '',
        `CONTROL_URL: ${error.message}; check CONTROL_URL and CONTROL_TOKEN (protocol: control-openapi.json)`,
      );
    throw error;
  }
}

/** The run's plan: the configuration with the command line's overrides, the waivers, the seed, the control. */
export async function planRun(options: Options): Promise<RunPlan> {
  const { config: loaded, settings } = loadFromEnvironment();
  const config: SuiteConfig = {
    ...loaded,
    runBudgetS: options.timeBudgetS ?? loaded.runBudgetS,
    allProbes: options.allProbes,
  };
  // An embedded run's files run in parallel behind the check gate (harness/scheduling/gate.ts;
  // docs/architecture.md, "Why the embedded run is parallel"). A remote run keeps one worker: one
  // throttle and one request count against the target's rate limit.
  const workers =
    config.target.kind === 'embedded' && !options.dryRun
      ? embeddedWorkerCount(settings.embeddedWorkers, options.only)
      : 1;
  // The configuration as the user gave it (this process sets no variable of its own).
  const documented = documentedVariables(readFileSync(join(packageRoot, '.env.example'), 'utf8'));
  const configuration = configurationFingerprint(documented, variablesSet(documented));
  const waiverFile = options.waivers ?? settings.waiversFile;
  if (options.updateWaivers && waiverFile === undefined)
    throw new UsageError('--update-waivers needs a waiver file: --waivers <file> or WAIVERS_FILE');
  // Read (and validated) before anything is sent, even in strict mode: a broken file is an error either way.
  const waivers =
    waiverFile === undefined || (options.updateWaivers && !existsSync(waiverFile))
      ? undefined
      : loadWaiverFile(waiverFile);
  const reportsRoot = resolve(options.reportsDir);
  const startedAt = new Date().toISOString();
  // The seed, decided once: --seed, else PROPERTY_SEED (both read by the one rule, harness/scheduling/seed.ts).
  const seed = options.seed ?? settings.propertySeed ?? Math.floor(Math.random() * 2 ** 31);
  const runDir = join(reportsRoot, runDirectoryName(startedAt));
  mkdirSync(runDir, { recursive: true });
  const controlCapabilities = options.dryRun ? undefined : await controlCapabilitiesOf(config);
  return {
    ...{ options, config, settings, workers, configuration, waiverFile, waivers, reportsRoot, startedAt, seed },
    hookFile: join(runDir, 'hooks.jsonl'),
    controlCapabilities,
  };
}

/**
 * From here on a signal interrupts the run (reports written, hooks and states swept), whenever it
 * comes. Vitest installs handlers that exit the process on SIGINT/SIGTERM as soon as it is created;
 * a run that created hooks must first delete them and write its reports, so every other handler
 * is taken off again before any signal can reach it (signals arrive as macrotasks).
 */
export function interruptOnSignals(state: RunState, collector: CheckCollector): void {
  const onSignal = (signal: NodeJS.Signals): void => {
    if (state.interrupted) return;
    state.interrupted = true;
    state.signalCode = signal === 'SIGINT' ? 130 : 143;
    collector.interrupt();
    process.stderr.write(`\nconformance: ${signal} received, stopping the run and deleting the hooks it created…\n`);
    void state.vitest?.cancelCurrentRun('keyboard-input');
    // A k6 probe stops, cleans up and writes a partial summary, which counts for nothing (./run-load.ts).
    if (state.probe?.exitCode === null) state.probe.kill(signal);
  };
  const ownSignals = (event: string | symbol, listener: (...args: unknown[]) => void): void => {
    if ((event === 'SIGINT' || event === 'SIGTERM') && listener !== onSignal)
      queueMicrotask(() => process.off(event, listener));
  };
  process.on('newListener', ownSignals);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, onSignal);
}

/** What the checks leave: their duration, the requests the run's sweep sent, the context they ran with. */
export interface ChecksRun {
  readonly durationMs: number;
  readonly sweepRequests: number;
  readonly context: RunContext;
}

/**
 * The checks: vitest created beside the run's start (`starting`: the target starts natively, from
 * the compile cache, rather than through vitest's module runner once vitest is up), the run's
 * context provided to its project, the files run; then the run ended (its sweep).
 */
export async function runChecks(
  plan: RunPlan,
  starting: Promise<Run>,
  collector: CheckCollector,
  state: RunState,
): Promise<ChecksRun> {
  const { options } = plan;
  // The embedded reference has no rate limit and nothing shared but what the gate guards: its
  // files run in parallel. A dry run sends nothing and lists checks in order: sequential.
  const parallel = plan.workers > 1;
  let run: Run | undefined;
  const started = performance.now();
  const ended = starting.then(
    (r) => (run = r),
    () => undefined,
  );
  // The gate learns the run's files and when each ended from vitest (the channel's reporter).
  const gate: Reporter = {
    onTestRunStart: (specifications) => run?.channel.reporter.onTestRunStart(specifications),
    onTestModuleEnd: (module) => run?.channel.reporter.onTestModuleEnd(module),
  };
  let sweepRequests = 0;
  try {
    state.vitest = await createVitest({
      root: packageRoot,
      // The project's own configuration and the `target` project that runs the suites and the properties as one.
      config: vitestConfigFile('run'),
      // Node loads it as it is (type stripping, or the package's JavaScript): not bundled by vite first.
      configLoader: 'native',
      run: true,
      watch: false,
      project: options.properties ? [TARGET_PROJECT] : ['conformance'],
      reporters: parallel ? [collector, gate] : [collector],
      ...(options.only.length > 0 ? { tagsFilter: [options.only.join(' || ')] } : {}),
      ...(parallel ? { fileParallelism: true, maxWorkers: plan.workers } : {}),
      passWithNoTests: true,
    });
    // A target that fails to start ends the run here, with its one line.
    run = await starting;
    for (const project of state.vitest.projects) run.provideTo(project);
    if (!state.interrupted) await state.vitest.start();
  } finally {
    await state.vitest?.close();
    await ended;
    if (run !== undefined) sweepRequests = await run.end();
  }
  return { durationMs: Math.round(performance.now() - started), sweepRequests, context: run.context };
}
