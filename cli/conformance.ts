/**
 * npm run conformance: runs the conformance suites and the properties against the configured
 * target (the embedded reference server when nothing is configured) and writes the reports.
 *
 * Exit codes: 0 every MUST requirement verified passed; 1 something failed; 2 a configuration
 * or usage error (one line on stderr, no stack trace); 130/143 interrupted (after cleanup).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { createVitest, type Vitest } from 'vitest/node';
import { ConfigError, positiveSeconds, type SuiteConfig } from '../harness/config/config.ts';
import { loadFromEnvironment, variablesSet } from '../harness/config/environment.ts';
import type { RunSettings } from '../harness/config/settings.ts';
import { budgetOf, EVERYTHING } from '../harness/scheduling/budget.ts';
import { parseSeed } from '../harness/scheduling/seed.ts';
import { budgetText, dryRunBudgetLines, partialPassLines, type BudgetSettings } from './budget-lines.ts';
import { createApiClient } from '../harness/http/client.ts';
import { createRedactor } from '../harness/http/redact.ts';
import { CheckCollector } from '../harness/report/collector.ts';
import {
  chartOnlyUnlessSince,
  loadProbeSummaries,
  previousRuns,
  runDirectoryName,
  unfinishedProbe,
  writeReports,
} from '../harness/report/files.ts';
import { buildReport, exitCodeOf } from '../harness/report/model.ts';
import { documentedVariables } from '../harness/config/documented.ts';
import { configurationFingerprint, gitCommit, writeEvidence } from '../harness/report/evidence.ts';
import {
  applyWaivers,
  describeWaiver,
  UNUSED_WAIVER,
  loadWaiverFile,
  updateWaiverFile,
  waiverModeText,
  WaiverError,
} from '../harness/report/waivers.ts';
import { readable } from '../harness/report/readable.ts';
import { ControlError, createControlTransport } from '../harness/seams/control-client.ts';
import { controlPreflight } from './control-check.ts';
import { sweepStates } from '../harness/seams/control-journal.ts';
import { outstandingHooks, sweepHooks } from '../harness/seams/hook-journal.ts';
import { Gate, startGate, type GateServer } from '../harness/scheduling/gate.ts';
import { enableTargetProject, TARGET_PROJECT } from '../harness/run/projects.ts';
import { acquireRun, releaseRun, type SharedRun } from '../harness/run/lifecycle.ts';
import { isRequirementId } from '../requirements/catalogue.ts';
import {
  formatPriorRequests,
  type PriorRequests,
  probeRequests,
  webhookRetryRequests,
} from '../load/lib/probe-shape.ts';
import { expectedWallTime, expectedWallTimeLines, measuredWallTimeLine } from './load-wall-time.ts';
import type { ControlCapability } from '../contract/control.ts';
import { startEmbeddedReference } from './embedded-reference.ts';
import { entryPoint, packageRoot, vitestConfigFile } from './package-root.ts';

/**
 * The flags of `occ run`, one entry each: the parser options and the usage text both come from
 * here, so a new flag is one entry plus its handling in parseOptions.
 */
const flags = {
  'dry-run': {
    type: 'boolean',
    default: false,
    usage: '--dry-run            list the checks and the requests they would send; send nothing',
  },
  only: {
    type: 'string',
    usage: '--only <ids>         run only the checks of these requirement ids (comma-separated)',
  },
  'reports-dir': {
    type: 'string',
    default: 'reports',
    usage: '--reports-dir <dir>  where reports go (default: reports)',
  },
  seed: {
    type: 'string',
    usage: '--seed <n>           seed of the property-based checks (default: PROPERTY_SEED or random)',
  },
  'no-properties': { type: 'boolean', default: false, usage: '--no-properties      run the conformance suites only' },
  'time-budget': {
    type: 'string',
    usage:
      '--time-budget <s>    seconds of requests a remote run may take at REQUESTS_PER_MINUTE (default: RUN_BUDGET_S, ' +
      '113: 150 requests at 80 per minute); rate × time sizes what it sends',
  },
  'all-probes': {
    type: 'boolean',
    default: false,
    usage: '--all-probes         send every probe and matrix cell in this run, whatever the budget',
  },
  'with-load': {
    type: 'boolean',
    default: false,
    usage:
      '--with-load          then run the k6 probes (webhook-retry, then rate-limit) against the same target; ' +
      'their verdicts join the report (with --dry-run: their requests are counted)',
  },
  waivers: { type: 'string', usage: '--waivers <file>     known failures to report as waived (default: WAIVERS_FILE)' },
  strict: {
    type: 'boolean',
    default: false,
    usage: '--strict             ignore every waiver (vendor acceptance); the report says so',
  },
  evidence: {
    type: 'boolean',
    default: false,
    usage: '--evidence           also write reports/<run>/evidence.zip: the reports and a manifest of their SHA-256',
  },
  'update-waivers': {
    type: 'boolean',
    default: false,
    usage: "--update-waivers     add this run's failures to the waiver file (reason, expiry left to fill)",
  },
  help: { type: 'boolean', short: 'h', default: false, usage: '-h, --help           this text' },
} as const satisfies Record<
  string,
  { type: 'boolean' | 'string'; short?: string; default?: boolean | string; usage: string }
>;

const usage = `Usage: occ run [options]   (npm run conformance -- [options])

${Object.values(flags)
  .map((flag) => `  ${flag.usage}`)
  .join('\n')}

Configuration comes from the environment and .env (see .env.example); with nothing set the
suite runs against the embedded reference server.`;

class UsageError extends Error {}

/** The k6 probes of --with-load, in the order they run (load/run.ts). */
const LOAD_PROBES = ['webhook-retry', 'rate-limit'] as const;
const PROBE_THRESHOLDS_CROSSED = 99;

/**
 * Runs one probe through load/run.ts (same configuration, same environment); resolves with its exit
 * code. `started` receives the child, so that a signal to this process reaches the probe too.
 */
function runProbe(
  probe: (typeof LOAD_PROBES)[number],
  reportDir: string,
  started: (child: ChildProcess) => void,
  extraArgs: readonly string[] = [],
): Promise<number> {
  return new Promise((done) => {
    const args = [entryPoint('load/run'), probe, '--report-dir', reportDir, ...extraArgs];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    started(child);
    child.on('error', () => done(1));
    child.on('close', (code) => done(code ?? 1));
  });
}

/** Scrubs an unexpected error's message; knows the configured secrets once they are read. */
let redactErrors = createRedactor();

interface Options {
  readonly dryRun: boolean;
  readonly only: readonly string[];
  readonly reportsDir: string;
  /** --seed (PROPERTY_SEED is the settings'). */
  readonly seed: number | undefined;
  readonly properties: boolean;
  readonly withLoad: boolean;
  /** The waiver file named by --waivers (WAIVERS_FILE is read after .env is loaded). */
  readonly waivers: string | undefined;
  readonly strict: boolean;
  readonly updateWaivers: boolean;
  readonly evidence: boolean;
  /** --time-budget: seconds, overriding RUN_BUDGET_S. */
  readonly timeBudgetS: number | undefined;
  readonly allProbes: boolean;
}

function parseOptions(argv: readonly string[]): Options | 'help' {
  const config = {
    args: [...argv],
    strict: true,
    allowPositionals: false,
    // parseArgs rejects the extra `usage` key, so strip it.
    options: Object.fromEntries(Object.entries(flags).map(([name, { usage: _, ...option }]) => [name, option])) as {
      [K in keyof typeof flags]: Omit<(typeof flags)[K], 'usage'>;
    },
  } satisfies ParseArgsConfig;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message.split('\n')[0]!.replace(/\.$/, '')}; run occ run --help for the options`,
    );
  }
  const { values } = parsed;
  if (values.help) return 'help';
  const only = (values.only ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const unknown = only.filter((id) => !isRequirementId(id));
  if (unknown.length > 0)
    throw new UsageError(
      `--only: unknown requirement id ${unknown.join(', ')}; the ids are in requirements/catalogue.ts`,
    );
  let seed: number | undefined;
  if (values.seed !== undefined && values.seed !== '') {
    seed = parseSeed(values.seed);
    if (seed === undefined) throw new UsageError(`--seed must be a whole number below 2^31 (got "${values.seed}")`);
  }
  if (values.waivers !== undefined && values.waivers.trim() === '') throw new UsageError('--waivers needs a file path');
  return {
    dryRun: values['dry-run'],
    only,
    reportsDir: values['reports-dir'],
    seed,
    properties: !values['no-properties'],
    withLoad: values['with-load'],
    waivers: values.waivers,
    strict: values.strict,
    updateWaivers: values['update-waivers'],
    evidence: values.evidence,
    timeBudgetS: values['time-budget'] === undefined ? undefined : timeBudget(values['time-budget']),
    allProbes: values['all-probes'],
  };
}

/** --time-budget by RUN_BUDGET_S's rule, its error naming the flag. */
function timeBudget(text: string): number {
  try {
    return positiveSeconds('--time-budget', text.trim());
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `occ run`: returns the exit code; usage and configuration errors throw (see runAsEntryPoint). */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const options = parseOptions(argv);
  if (options === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
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
  const root = packageRoot;
  const reportsRoot = resolve(options.reportsDir);
  const startedAt = new Date().toISOString();
  const seed = options.seed ?? settings.propertySeed ?? Math.floor(Math.random() * 2 ** 31);
  const runDir = join(reportsRoot, runDirectoryName(startedAt));
  mkdirSync(runDir, { recursive: true });

  // vitest.config.ts defines the project that runs the suites and the properties as one.
  enableTargetProject();
  const hookJournal = join(runDir, 'hooks.jsonl');
  // The control journal can hold tokens a state returned: a private temporary directory, not reports/.
  const controlJournalDir = mkdtempSync(join(tmpdir(), 'occ-control-'));
  const controlJournal = join(controlJournalDir, 'states.jsonl');
  // CONTROL_URL is read once, here, so that a broken endpoint (no answer, a wrong token, one that
  // serves anyone, malformed capabilities) stops the run with one line rather than false verdicts.
  let controlCapabilities: ControlCapability[] | undefined;
  if (config.control !== undefined && !options.dryRun) {
    try {
      const { states, inspections } = await controlPreflight(config.control);
      controlCapabilities = [...states, ...inspections];
    } catch (error) {
      rmSync(controlJournalDir, { recursive: true, force: true });
      if (error instanceof ControlError)
        throw new ConfigError(
          'CONTROL_URL',
          '',
          `CONTROL_URL: ${error.message}; check CONTROL_URL and CONTROL_TOKEN (protocol: control-openapi.json)`,
        );
      throw error;
    }
  }

  const redact = createRedactor(config.secrets);
  redactErrors = redact;
  const interactive = process.stdout.isTTY === true && !settings.ci;
  // The run's requests by when each check that sent them was reported (none of them later), and how many
  // hooks the sweep may still delete then: the rate-limit probe of --with-load starts its "under" phase
  // late enough after them (load/run.ts).
  const sent: PriorRequests[] = [];
  let hooksLeft = 0;
  const collector = new CheckCollector({
    root,
    redact,
    progress: { interactive, write: (text) => process.stdout.write(text) },
    requestsPerMinute: config.requestsPerMinute,
    onRequestsReported: (requests) => {
      if (!options.withLoad) return;
      sent.push({ atMs: Date.now(), requests });
      hooksLeft = outstandingHooks(hookJournal).length;
    },
  });
  const targetLabel = config.target.kind === 'embedded' ? 'the embedded reference server' : config.target.baseUrl;
  process.stdout.write(
    `conformance: ${options.dryRun ? 'dry run against' : 'checking'} ${targetLabel}, seed ${seed}\n`,
  );

  let vitest: Vitest | undefined;
  let probe: ChildProcess | undefined;
  let interrupted = false;
  let signalCode = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) return;
    interrupted = true;
    signalCode = signal === 'SIGINT' ? 130 : 143;
    collector.interrupt();
    process.stderr.write(`\nconformance: ${signal} received, stopping the run and deleting the hooks it created…\n`);
    void vitest?.cancelCurrentRun('keyboard-input');
    // A k6 probe stops, cleans up and writes a partial summary, which counts for nothing (below).
    if (probe?.exitCode === null) probe.kill(signal);
  };
  // From here on a signal interrupts the run (reports written, hooks and states swept), whenever it
  // comes. Vitest installs handlers that exit the process on SIGINT/SIGTERM as soon as it is created;
  // a run that created hooks must first delete them and write its reports, so every other handler
  // is taken off again before any signal can reach it (signals arrive as macrotasks).
  const ownSignals = (event: string | symbol, listener: (...args: unknown[]) => void): void => {
    if ((event === 'SIGINT' || event === 'SIGTERM') && listener !== onSignal)
      queueMicrotask(() => process.off(event, listener));
  };
  process.on('newListener', ownSignals);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, onSignal);

  // The embedded reference has no rate limit and nothing shared but what the gate guards: its
  // files run in parallel. A dry run sends nothing and lists checks in order: sequential.
  const parallel = workers > 1;
  let gate: GateServer | undefined;
  let ownRun: Promise<SharedRun | undefined> | undefined;
  let runStarted: SharedRun | undefined;
  const started = performance.now();
  try {
    if (parallel) gate = await startGate(new Gate(() => runStarted?.callsInProgress() ?? 0));
    // The run's target starts now, beside vitest's own start: natively, from the compile cache,
    // rather than through vitest's module runner once vitest is up. The global set-up finds it
    // started (harness/run/lifecycle.ts); a target that fails to start fails there.
    // What the workers are given: the run context (harness/run/context.ts), through vitest's provide.
    ownRun = acquireRun({
      startEmbedded: startEmbeddedReference,
      config,
      dryRun: options.dryRun,
      hookJournal,
      controlJournal,
      ...(controlCapabilities === undefined ? {} : { controlCapabilities }),
      faults: settings.referenceFaults,
      variants: settings.referenceVariants,
      cacheDirectory: settings.cacheDirectory,
      seed,
      ...(gate === undefined ? {} : { gate: gate.address, watchFile: join(controlJournalDir, 'watch.json') }),
    }).then(
      (run) => (runStarted = run),
      () => undefined,
    );
    vitest = await createVitest({
      root,
      config: vitestConfigFile(),
      run: true,
      watch: false,
      project: options.properties ? [TARGET_PROJECT] : ['conformance'],
      reporters: gate === undefined ? [collector] : [collector, gate.reporter],
      ...(options.only.length > 0 ? { tagsFilter: [options.only.join(' || ')] } : {}),
      ...(parallel ? { fileParallelism: true, maxWorkers: workers } : {}),
      passWithNoTests: true,
    });
    if (!interrupted) await vitest.start();
  } finally {
    await vitest?.close();
    const run = await ownRun;
    if (run !== undefined) await releaseRun(run);
    await gate?.close();
  }
  const durationMs = Math.round(performance.now() - started);

  // The global teardown sweeps hooks; this second sweep covers a teardown that never ran.
  let sweepRequests = 0;
  if (config.target.kind === 'remote' && !options.dryRun) {
    const api = createApiClient({
      baseUrl: config.target.baseUrl,
      timeoutMs: config.requestTimeoutMs,
      requestsPerMinute: config.requestsPerMinute,
      rateWindowMs: config.rateWindowMs,
      secrets: config.secrets,
    });
    const { failed } = await sweepHooks(hookJournal, api, config.tokens);
    sweepRequests = api.stats.requestsSent;
    await api.close();
    for (const line of failed) process.stderr.write(`conformance: could not delete hook ${line}: delete it by hand\n`);
  }
  // Likewise for test-control states (the global teardown tears down; this covers one that never ran).
  if (config.control !== undefined && !options.dryRun) {
    for (const line of await sweepStates(controlJournal, createControlTransport(config.control))) {
      process.stderr.write(`conformance: could not tear down control state ${line}\n`);
    }
  }
  rmSync(controlJournalDir, { recursive: true, force: true });

  // Only summaries the probes of this run write from here on decide requirements, and only those
  // of probes that finished: an interrupted or broken probe's partial summary is no verdict.
  const probesSince = options.withLoad && !options.dryRun && !interrupted ? new Date().toISOString() : undefined;
  const unfinished = new Map<(typeof LOAD_PROBES)[number], string>();
  // From this process's start: the configuration, the target's start, the checks and the sweeps.
  const wallTime = [{ part: 'checks', ms: performance.now() }];
  if (options.withLoad && !options.dryRun) {
    // After the checks, one probe at a time; rate-limit last, since it exhausts the target's window.
    // Remotely the target heard the checks, the hook sweeps (at most one DELETE per hook left, and
    // this process's own) and the webhook-retry probe: the rate-limit probe waits no longer than those
    // need (load/run.ts).
    sent.push({ atMs: Date.now(), requests: hooksLeft + sweepRequests });
    const webhookRetry = webhookRetryRequests(config.control === undefined ? 'watch' : 'control').total;
    for (const name of LOAD_PROBES) {
      if (interrupted) {
        unfinished.set(name, 'not run: the run was interrupted before this probe started');
        continue;
      }
      if (name === 'rate-limit') sent.push({ atMs: Date.now(), requests: webhookRetry });
      const recent = sent.filter((p) => p.atMs > Date.now() - config.rateWindowMs - 60_000);
      const quietArgs =
        name === 'rate-limit' && config.target.kind === 'remote'
          ? ['--prior-requests', formatPriorRequests(recent)]
          : [];
      const probeStarted = performance.now();
      const code = await runProbe(
        name,
        join(reportsRoot, 'latest'),
        (child) => {
          probe = child;
        },
        quietArgs,
      );
      wallTime.push({ part: `k6 ${name}`, ms: performance.now() - probeStarted });
      probe = undefined;
      if (interrupted) unfinished.set(name, 'not run: the run was interrupted while this probe ran');
      else if (code !== 0 && code !== PROBE_THRESHOLDS_CROSSED) {
        unfinished.set(name, `not run: the probe could not complete (k6 runner exit ${code})`);
        process.stderr.write(
          `conformance: --with-load: the ${name} probe could not run (exit ${code}); ` +
            "its requirements keep the checks' verdicts\n",
        );
      }
    }
  }
  if (options.withLoad && !options.dryRun && !interrupted)
    process.stdout.write(`conformance: --with-load wall time: ${measuredWallTimeLine(wallTime)}\n`);
  const summaries = loadProbeSummaries(reportsRoot).map((summary) => chartOnlyUnlessSince(summary, probesSince));
  const loadSummaries = [
    ...summaries.filter((summary) => !unfinished.has(summary.probe as (typeof LOAD_PROBES)[number])),
    ...[...unfinished].map(([name, reason]) =>
      unfinishedProbe(
        name,
        summaries.find((s) => s.probe === name),
        reason,
      ),
    ),
  ];

  const waived = applyWaivers(collector.results, waivers, {
    strict: options.strict,
    today: startedAt.slice(0, 10),
    file: waiverFile,
  });
  const target = {
    kind: config.target.kind,
    baseUrl: config.target.kind === 'remote' ? config.target.baseUrl : 'embedded reference server',
  } as const;
  const report = buildReport({
    tool: 'outbound-calling-conformance',
    suiteVersion: (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version,
    target,
    startedAt,
    durationMs,
    seed,
    dryRun: options.dryRun,
    checks: waived.checks,
    waivers: waived.summary,
    // Written by k6 with its own redaction; scrubbed once more of the configured secrets.
    load: options.dryRun ? [] : redact.value(loadSummaries),
    previous: previousRuns(reportsRoot, target),
    requestsSent: collector.results.reduce((sum, c) => sum + c.requests, 0) + sweepRequests,
    unhandledErrors: collector.unhandledErrors,
    interrupted,
    withLoad: options.withLoad,
  });
  const { dir } = writeReports(report, reportsRoot);

  if (options.dryRun) {
    process.stdout.write(
      `\n${report.checks.length} checks, ${report.requests.planned} requests planned against a remote target:\n`,
    );
    for (const c of report.checks) {
      const why = c.skipReason !== undefined && c.skipReason !== 'dry run' ? `  (${c.skipReason})` : '';
      process.stdout.write(
        `${readable(`  ${String(c.plannedRequests).padStart(3)}  ${c.name}  [${c.requirements.join(', ')}]${why}`)}\n`,
      );
    }
  }
  const r = report.counts.requirements;
  if (options.dryRun) {
    if (config.target.kind === 'remote')
      process.stdout.write(`\n${dryRunBudgetLines(report, budgetSettings(config)).map(readable).join('\n')}\n`);
    const unverifiable = report.checks.filter((c) => c.skipReason !== undefined && c.skipReason !== 'dry run').length;
    process.stdout.write(
      `conformance: dry run, nothing sent: ${report.checks.length - unverifiable} checks would run, ` +
        `${unverifiable} are not verifiable with this configuration\n`,
    );
    if (options.withLoad) {
      // The probes are bounded by design, not by the checks' budget: counted apart, as upper bounds.
      const probes = probeRequests({
        remote: config.target.kind === 'remote',
        control: config.control !== undefined,
        limit: config.rateLimitPerWindow,
        windowMs: config.rateWindowMs,
      });
      process.stdout.write(
        `\nthen --with-load, outside the checks' request budget (${budgetText(budgetSettings(config))}; ` +
          "upper bounds from each probe's own bounded loops):\n",
      );
      for (const p of probes)
        process.stdout.write(`  ${String(p.maxRequests).padStart(3)}  k6 ${p.probe}: ${p.detail}\n`);
      process.stdout.write(
        `conformance: --with-load would send at most ${probes.reduce((sum, p) => sum + p.maxRequests, 0)} ` +
          `more requests (k6 probes), after the checks' ${report.requests.planned}\n`,
      );
      printExpectedWallTime(config, settings, report.requests.planned);
    }
  } else
    process.stdout.write(
      `conformance: ${r.passed} MUST passed, ${r.failed} failed, ${r.waived} waived, ` +
        `${r.notVerifiable} not verifiable, ${r.observed} observed` +
        ` · checks ${report.counts.checks.passed} passed, ${report.counts.checks.failed} failed, ` +
        `${report.counts.checks.skipped} skipped` +
        (report.counts.checks.notRun > 0 ? `, ${report.counts.checks.notRun} not run (interrupted)` : '') +
        ` · ${report.requests.sent} requests, ${report.requests.rateLimited} × 429` +
        ` · ${(durationMs / 1000).toFixed(1)} s\n`,
    );
  if (!options.dryRun) for (const line of partialPassLines(report)) process.stdout.write(`${readable(line)}\n`);
  if (!options.dryRun) {
    process.stdout.write(`conformance: waivers: ${waiverModeText(report.waivers)}\n`);
    for (const w of report.waivers.expired)
      process.stdout.write(`conformance: EXPIRED waiver (fails the run; renew or remove it): ${describeWaiver(w)}\n`);
    for (const w of report.waivers.unused)
      process.stdout.write(`conformance: unused waiver (${UNUSED_WAIVER}): ${describeWaiver(w)}\n`);
    if (options.updateWaivers && waiverFile !== undefined && !interrupted) {
      const added = updateWaiverFile(waiverFile, report.checks);
      process.stdout.write(
        `conformance: --update-waivers: ${added} failure${added === 1 ? '' : 's'} added to ${waiverFile} ` +
          '(fill in reason, ticket and expires)\n',
      );
    }
  }
  if (!options.dryRun && report.controlGaps.length > 0) {
    const endpointState =
      config.control === undefined && config.target.kind === 'remote'
        ? 'is not configured (CONTROL_URL)'
        : 'does not offer';
    process.stdout.write(`conformance: the target's test-control endpoint ${endpointState}; each would unlock:\n`);
    for (const gap of report.controlGaps)
      process.stdout.write(
        `  ${gap.capability.padEnd(26)} ${gap.unlocks.join(', ') || '(nothing more in this run)'}\n`,
      );
  }
  if (report.loadWouldDecide.length > 0)
    process.stdout.write(
      `conformance: --with-load (the k6 probes) would decide: ${report.loadWouldDecide.join(', ')}\n`,
    );
  if (report.regressions.length > 0)
    process.stdout.write(`conformance: regressions since the previous run: ${report.regressions.join(', ')}\n`);
  process.stdout.write(`conformance: reports in ${dir} (and ${join(options.reportsDir, 'latest')})\n`);
  const exitCode = interrupted ? signalCode : exitCodeOf(report);
  if (options.evidence && !options.dryRun) {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
    const { path } = writeEvidence({
      runDir: dir,
      report,
      exitCode,
      suite: { name: pkg.name, version: pkg.version, gitCommit: gitCommit(root) },
      openapi: readFileSync(join(root, 'openapi.json')),
      configuration,
    });
    process.stdout.write(`conformance: evidence in ${path} (check it with occ verify ${path})\n`);
  }
  return exitCode;
}

/** `--dry-run --with-load`: the wall time each part of the run is expected to take (./load-wall-time.ts). */
function printExpectedWallTime(config: SuiteConfig, settings: RunSettings, plannedRequests: number): void {
  const parts = expectedWallTime({
    remote: config.target.kind === 'remote',
    control: config.control !== undefined,
    plannedRequests,
    requestsPerMinute: config.target.kind === 'remote' ? config.requestsPerMinute : undefined,
    rateWindowMs: config.rateWindowMs,
    limit: config.rateLimitPerWindow,
    webhookBudgetS: config.webhookBudgetS,
    timeBudgetS: settings.timeBudgetS,
  });
  process.stdout.write('\nexpected wall time of the run with --with-load, part by part:\n');
  for (const line of expectedWallTimeLines(parts)) process.stdout.write(`${line}\n`);
}

/**
 * The checks' request budget, as the run applies it (harness/run/target.ts): rate × time
 * remotely, everything embedded.
 */
function budgetSettings(config: SuiteConfig): BudgetSettings {
  if (config.target.kind === 'embedded')
    return { budget: EVERYTHING, requestsPerMinute: undefined, rateWindowMs: config.rateWindowMs };
  const budget = budgetOf(config.requestsPerMinute, config.rateWindowMs, config.runBudgetS, config.allProbes);
  return { budget, requestsPerMinute: config.requestsPerMinute, rateWindowMs: config.rateWindowMs };
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
