/**
 * npm run conformance: runs the conformance suites and the properties against the configured
 * target (the embedded reference server when nothing is configured) and writes the reports.
 *
 * One run, in order: its plan (the command line, the configuration, the waivers, the journals,
 * the control endpoint's capabilities), the checks (vitest, behind the check gate when
 * parallel), the sweeps, the k6 probes of --with-load (./run-load.ts), the reports, the console
 * lines (./run-console.ts) and the evidence. A signal at any point interrupts it: what did not
 * finish is reported not run, after the sweeps.
 *
 * Exit codes: 0 every MUST requirement verified passed; 1 something failed; 2 a configuration
 * or usage error (one line on stderr, no stack trace); 130/143 interrupted (after cleanup).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createVitest, type Vitest } from 'vitest/node';
import type { ControlCapability } from '../contract/control.ts';
import { ConfigError, type SuiteConfig } from '../harness/config/config.ts';
import { documentedVariables } from '../harness/config/documented.ts';
import { loadFromEnvironment, variablesSet } from '../harness/config/environment.ts';
import type { RunSettings } from '../harness/config/settings.ts';
import { createApiClient } from '../harness/http/client.ts';
import { createRedactor, type Redactor } from '../harness/http/redact.ts';
import { CheckCollector } from '../harness/report/collector.ts';
import { configurationFingerprint, gitCommit, writeEvidence } from '../harness/report/evidence.ts';
import { previousRuns, runDirectoryName, writeReports } from '../harness/report/files.ts';
import { buildReport, exitCodeOf, type RunReport } from '../harness/report/model.ts';
import { readable } from '../harness/report/readable.ts';
import type { Waiver } from '../harness/report/results.ts';
import { applyWaivers, loadWaiverFile, updateWaiverFile, WaiverError } from '../harness/report/waivers.ts';
import { acquireRun, releaseRun, type SharedRun } from '../harness/run/lifecycle.ts';
import { TARGET_PROJECT } from '../harness/run/projects.ts';
import { Gate, startGate, type GateServer } from '../harness/scheduling/gate.ts';
import { ControlError, createControlTransport } from '../harness/seams/control-client.ts';
import { sweepStates } from '../harness/seams/control-journal.ts';
import { outstandingHooks, sweepHooks } from '../harness/seams/hook-journal.ts';
import type { PriorRequests } from '../load/lib/probe-shape.ts';
import { controlPreflight } from './control-check.ts';
import { startEmbeddedReference } from './embedded-reference.ts';
import { measuredWallTimeLine } from './load-wall-time.ts';
import { packageRoot, vitestConfigFile } from './package-root.ts';
import { printDryRun, printFollowUps, printRunOutcome } from './run-console.ts';
import { type LoadProbe, loadSummaries, runLoadProbes } from './run-load.ts';
import { type Options, parseOptions, usage, UsageError } from './run-options.ts';

/** Scrubs an unexpected error's message; knows the configured secrets once they are read. */
let redactErrors = createRedactor();

/** What a run is, decided before anything is sent. */
interface RunPlan {
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
  readonly hookJournal: string;
  /** A private temporary directory (the control journal can hold tokens a state returned), not reports/. */
  readonly controlJournalDir: string;
  readonly controlJournal: string;
  readonly controlCapabilities: ControlCapability[] | undefined;
}

/** What a signal and the run's parts share: whether it was interrupted, and what is running. */
interface RunState {
  interrupted: boolean;
  signalCode: number;
  vitest: Vitest | undefined;
  probe: ChildProcess | undefined;
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
    if (error instanceof ControlError)
      throw new ConfigError(
        'CONTROL_URL',
        '',
        `CONTROL_URL: ${error.message}; check CONTROL_URL and CONTROL_TOKEN (protocol: control-openapi.json)`,
      );
    throw error;
  }
}

/** The run's plan: the configuration with the command line's overrides, the waivers, the journals, the control. */
async function planRun(options: Options): Promise<RunPlan> {
  const { config: loaded, settings } = loadFromEnvironment();
  const config: SuiteConfig = {
    ...loaded,
    runBudgetS: options.timeBudgetS ?? loaded.runBudgetS,
    allProbes: options.allProbes,
  };
  // An embedded run's files run in parallel behind the check gate (harness/scheduling/gate.ts;
  // docs/architecture.md, "Why the embedded run is parallel"). A remote run keeps one worker: one
  // throttle and one request count against the target's rate limit.
  const workers = config.target.kind === 'embedded' && !options.dryRun ? settings.embeddedWorkers : 1;
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
  const seed = options.seed ?? settings.propertySeed ?? Math.floor(Math.random() * 2 ** 31);
  const runDir = join(reportsRoot, runDirectoryName(startedAt));
  mkdirSync(runDir, { recursive: true });
  const controlJournalDir = mkdtempSync(join(tmpdir(), 'occ-control-'));
  let controlCapabilities: ControlCapability[] | undefined;
  try {
    controlCapabilities = options.dryRun ? undefined : await controlCapabilitiesOf(config);
  } catch (error) {
    rmSync(controlJournalDir, { recursive: true, force: true });
    throw error;
  }
  return {
    ...{ options, config, settings, workers, configuration, waiverFile, waivers, reportsRoot, startedAt, seed },
    hookJournal: join(runDir, 'hooks.jsonl'),
    controlJournalDir,
    controlJournal: join(controlJournalDir, 'states.jsonl'),
    controlCapabilities,
  };
}

/**
 * From here on a signal interrupts the run (reports written, hooks and states swept), whenever it
 * comes. Vitest installs handlers that exit the process on SIGINT/SIGTERM as soon as it is created;
 * a run that created hooks must first delete them and write its reports, so every other handler
 * is taken off again before any signal can reach it (signals arrive as macrotasks).
 */
function interruptOnSignals(state: RunState, collector: CheckCollector): void {
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

/** The checks: the target started beside vitest, vitest run with the collector; resolves with their duration in ms. */
async function runChecks(plan: RunPlan, collector: CheckCollector, state: RunState): Promise<number> {
  const { options, config, settings } = plan;
  // The embedded reference has no rate limit and nothing shared but what the gate guards: its
  // files run in parallel. A dry run sends nothing and lists checks in order: sequential.
  const parallel = plan.workers > 1;
  let gate: GateServer | undefined;
  let ownRun: Promise<SharedRun | undefined> | undefined;
  let runStarted: SharedRun | undefined;
  const started = performance.now();
  try {
    if (parallel) gate = await startGate(new Gate(() => runStarted?.callsInProgress() ?? 0));
    // The run's target starts now, beside vitest's own start: natively, from the compile cache,
    // rather than through vitest's module runner once vitest is up (harness/run/lifecycle.ts).
    const acquiring = acquireRun({
      startEmbedded: startEmbeddedReference,
      config,
      dryRun: options.dryRun,
      hookJournal: plan.hookJournal,
      controlJournal: plan.controlJournal,
      ...(plan.controlCapabilities === undefined ? {} : { controlCapabilities: plan.controlCapabilities }),
      faults: settings.referenceFaults,
      variants: settings.referenceVariants,
      cacheDirectory: settings.cacheDirectory,
      seed: plan.seed,
      ...(gate === undefined ? {} : { gate: gate.address, watchFile: join(plan.controlJournalDir, 'watch.json') }),
    });
    ownRun = acquiring.then(
      (run) => (runStarted = run),
      () => undefined,
    );
    state.vitest = await createVitest({
      root: packageRoot,
      // The project's own configuration and the `target` project that runs the suites and the properties as one.
      config: vitestConfigFile('run'),
      run: true,
      watch: false,
      project: options.properties ? [TARGET_PROJECT] : ['conformance'],
      reporters: gate === undefined ? [collector] : [collector, gate.reporter],
      ...(options.only.length > 0 ? { tagsFilter: [options.only.join(' || ')] } : {}),
      ...(parallel ? { fileParallelism: true, maxWorkers: plan.workers } : {}),
      passWithNoTests: true,
    });
    // What the workers are given: the run context (harness/run/context.ts), through vitest's provide.
    // A target that fails to start ends the run here, with its one line.
    const run = await acquiring;
    for (const project of state.vitest.projects) {
      run.projects.add(project);
      project.provide('run', run.context);
    }
    if (!state.interrupted) await state.vitest.start();
  } finally {
    await state.vitest?.close();
    const run = await ownRun;
    if (run !== undefined) await releaseRun(run);
    await gate?.close();
  }
  return Math.round(performance.now() - started);
}

/**
 * The sweeps after the checks: the global teardown sweeps hooks and tears down control states;
 * these cover a teardown that never ran. Resolves with the requests the hook sweep sent.
 */
async function sweepAfterChecks(plan: RunPlan): Promise<number> {
  const { config, options } = plan;
  let sweepRequests = 0;
  if (config.target.kind === 'remote' && !options.dryRun) {
    const api = createApiClient({
      baseUrl: config.target.baseUrl,
      timeoutMs: config.requestTimeoutMs,
      requestsPerMinute: config.requestsPerMinute,
      rateWindowMs: config.rateWindowMs,
      secrets: config.secrets,
    });
    const { failed } = await sweepHooks(plan.hookJournal, api, config.tokens);
    sweepRequests = api.stats.requestsSent;
    await api.close();
    for (const line of failed) process.stderr.write(`conformance: could not delete hook ${line}: delete it by hand\n`);
  }
  if (config.control !== undefined && !options.dryRun) {
    for (const line of await sweepStates(plan.controlJournal, createControlTransport(config.control))) {
      process.stderr.write(`conformance: could not tear down control state ${line}\n`);
    }
  }
  rmSync(plan.controlJournalDir, { recursive: true, force: true });
  return sweepRequests;
}

/** The run's report, waivers applied, written to reports/<run>/ and reports/latest/. */
function writeRunReport(
  plan: RunPlan,
  run: { collector: CheckCollector; redact: Redactor; durationMs: number; sweepRequests: number },
  load: { probesSince: string | undefined; unfinished: ReadonlyMap<LoadProbe, string>; interrupted: boolean },
): { report: RunReport; dir: string } {
  const { options, config } = plan;
  const waived = applyWaivers(run.collector.results, plan.waivers, {
    strict: options.strict,
    today: plan.startedAt.slice(0, 10),
    file: plan.waiverFile,
  });
  const target = {
    kind: config.target.kind,
    baseUrl: config.target.kind === 'remote' ? config.target.baseUrl : 'embedded reference server',
  } as const;
  const report = buildReport({
    tool: 'outbound-calling-conformance',
    suiteVersion: (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version,
    target,
    startedAt: plan.startedAt,
    durationMs: run.durationMs,
    seed: plan.seed,
    dryRun: options.dryRun,
    checks: waived.checks,
    waivers: waived.summary,
    // Written by k6 with its own redaction; scrubbed once more of the configured secrets.
    load: options.dryRun ? [] : run.redact.value(loadSummaries(plan.reportsRoot, load.probesSince, load.unfinished)),
    previous: previousRuns(plan.reportsRoot, target),
    requestsSent: run.collector.results.reduce((sum, c) => sum + c.requests, 0) + run.sweepRequests,
    unhandledErrors: run.collector.unhandledErrors,
    interrupted: load.interrupted,
    withLoad: options.withLoad,
  });
  return { report, dir: writeReports(report, plan.reportsRoot).dir };
}

/** `--evidence`: the reports and a manifest of their SHA-256 in reports/<run>/evidence.zip. */
function writeRunEvidence(plan: RunPlan, report: RunReport, dir: string, exitCode: number): void {
  const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { name: string; version: string };
  const { path } = writeEvidence({
    runDir: dir,
    report,
    exitCode,
    suite: { name: pkg.name, version: pkg.version, gitCommit: gitCommit(packageRoot) },
    openapi: readFileSync(join(packageRoot, 'openapi.json')),
    configuration: plan.configuration,
  });
  process.stdout.write(`conformance: evidence in ${path} (check it with occ verify ${path})\n`);
}

/** `occ run`: returns the exit code; usage and configuration errors throw (see runAsEntryPoint). */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const options = parseOptions(argv);
  if (options === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const plan = await planRun(options);
  const { config } = plan;
  const redact = createRedactor(config.secrets);
  redactErrors = redact;
  // The run's requests by when each check that sent them was reported (none of them later), and how many
  // hooks the sweep may still delete then: the rate-limit probe of --with-load starts its "under" phase
  // late enough after them (load/run.ts).
  const sent: PriorRequests[] = [];
  let hooksLeft = 0;
  const collector = new CheckCollector({
    root: packageRoot,
    redact,
    progress: {
      interactive: process.stdout.isTTY === true && !plan.settings.ci,
      write: (t) => process.stdout.write(t),
    },
    requestsPerMinute: config.requestsPerMinute,
    onRequestsReported: (requests) => {
      if (!options.withLoad) return;
      sent.push({ atMs: Date.now(), requests });
      hooksLeft = outstandingHooks(plan.hookJournal).length;
    },
  });
  const targetLabel = config.target.kind === 'embedded' ? 'the embedded reference server' : config.target.baseUrl;
  process.stdout.write(
    `conformance: ${options.dryRun ? 'dry run against' : 'checking'} ${targetLabel}, seed ${plan.seed}\n`,
  );
  const state: RunState = { interrupted: false, signalCode: 0, vitest: undefined, probe: undefined };
  interruptOnSignals(state, collector);
  const durationMs = await runChecks(plan, collector, state);
  const sweepRequests = await sweepAfterChecks(plan);
  // Only summaries the probes of this run write from here on decide requirements (./run-load.ts).
  const withLoad = options.withLoad && !options.dryRun;
  const probesSince = withLoad && !state.interrupted ? new Date().toISOString() : undefined;
  const load = withLoad
    ? await runLoadProbes(config, plan.reportsRoot, sent, hooksLeft + sweepRequests, state)
    : undefined;
  if (load !== undefined && !state.interrupted)
    process.stdout.write(`conformance: --with-load wall time: ${measuredWallTimeLine(load.wallTime)}\n`);
  const { report, dir } = writeRunReport(
    plan,
    { collector, redact, durationMs, sweepRequests },
    { probesSince, unfinished: load?.unfinished ?? new Map(), interrupted: state.interrupted },
  );
  if (options.dryRun) printDryRun(report, config, plan.settings, options.withLoad);
  else {
    printRunOutcome(report, durationMs);
    if (options.updateWaivers && plan.waiverFile !== undefined && !state.interrupted) {
      const added = updateWaiverFile(plan.waiverFile, report.checks);
      process.stdout.write(
        `conformance: --update-waivers: ${added} failure${added === 1 ? '' : 's'} added to ${plan.waiverFile} ` +
          '(fill in reason, ticket and expires)\n',
      );
    }
  }
  printFollowUps(report, config, { dryRun: options.dryRun, dir, reportsDir: options.reportsDir });
  const exitCode = state.interrupted ? state.signalCode : exitCodeOf(report);
  if (options.evidence && !options.dryRun) writeRunEvidence(plan, report, dir, exitCode);
  return exitCode;
}

/** Runs main and turns every error into one line on stderr and exit code 2. */
export async function runAsEntryPoint(argv: readonly string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    if (error instanceof ConfigError) process.stderr.write(`conformance: configuration error: ${error.message}\n`);
    else if (error instanceof UsageError || error instanceof WaiverError)
      process.stderr.write(`conformance: ${error.message}\n`);
    else
      process.stderr.write(
        `conformance: ${readable(redactErrors(error instanceof Error ? error.message : String(error)))}\n`,
      );
    return 2;
  }
}

if (import.meta.main) process.exitCode = await runAsEntryPoint(process.argv.slice(2));
