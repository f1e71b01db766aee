/**
 * `occ run`: the composition root of a conformance run. Everything the run is made of is built
 * here, once, and handed down by calls:
 *
 * 1. the command line (cli/run-options.ts) and the plan (cli/run-start.ts planRun): the
 *    configuration read once (harness/config/), the waivers, the seed, the control endpoint's
 *    capabilities;
 * 2. the run (harness/run/target.ts startRun, with the reference's starters injected from
 *    ./embedded-reference.ts): its channel, its target (reference and receiver, or the remote's),
 *    its context (the typed RunContext: target, budget, seed, channel), built once;
 * 3. the checks (cli/run-start.ts runChecks): vitest with the `target` project, the context
 *    provided to it, the files run, then the run's sweep;
 * 4. `--with-load`: the k6 probes (cli/run-load.ts);
 * 5. the summary (cli/run-summary.ts): the reports, the waivers, the evidence;
 * 6. the console (cli/run-console.ts).
 * A signal at any point interrupts it: what did not finish is reported not run, after the sweeps.
 *
 * Exit codes: 0 every MUST requirement verified passed; 1 something failed; 2 a configuration
 * or usage error (one line on stderr, no stack trace); 130/143 interrupted (after cleanup).
 */
import { ConfigError } from '../harness/config/config.ts';
import { createRedactor } from '../harness/http/redact.ts';
import { CheckCollector } from '../harness/report/collector.ts';
import { exitCodeOf } from '../harness/report/model.ts';
import { readable } from '../harness/report/readable.ts';
import { TransportFailure } from '../harness/http/transport.ts';
import { WaiverError } from '../harness/report/waivers.ts';
import { type Run, startRun } from '../harness/run/target.ts';
import type { PriorRequests } from '../load/lib/probe-shape.ts';
import { measuredWallTimeLine } from '../cli/load-wall-time.ts';
import { packageRoot } from '../cli/package-root.ts';
import { printDryRun, printFollowUps, printRunOutcome } from '../cli/run-console.ts';
import { runLoadProbes } from '../cli/run-load.ts';
import { parseOptions, usage, UsageError } from '../cli/run-options.ts';
import { interruptOnSignals, planRun, type RunPlan, type RunState, runChecks } from '../cli/run-start.ts';
import { updateWaivers, writeRunEvidence, writeRunReport } from '../cli/run-summary.ts';
import { referenceStarters } from './embedded-reference.ts';

/** Scrubs an unexpected error's message; knows the configured secrets once they are read. */
let redactErrors = createRedactor();

/** The run, built once from the plan: the target, the context the workers get, the channel they share. */
function startTheRun(plan: RunPlan): Promise<Run> {
  const { options, config, settings } = plan;
  return startRun({
    starters: referenceStarters,
    config,
    cacheDirectory: settings.cacheDirectory,
    dryRun: options.dryRun,
    hookFile: plan.hookFile,
    ...(plan.controlCapabilities === undefined ? {} : { controlCapabilities: plan.controlCapabilities }),
    faults: settings.referenceFaults,
    variants: settings.referenceVariants,
    seed: plan.seed,
    gated: plan.workers > 1,
  });
}

/** `occ run`: returns the exit code; usage and configuration errors throw (see `run`). */
export async function main(argv: readonly string[]): Promise<number> {
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
  let started: Run | undefined;
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
      hooksLeft = started?.channel.hooks.outstanding().length ?? 0;
    },
  });
  const targetLabel = config.target.kind === 'embedded' ? 'the embedded reference server' : config.target.baseUrl;
  process.stdout.write(
    `conformance: ${options.dryRun ? 'dry run against' : 'checking'} ${targetLabel}, seed ${plan.seed}\n`,
  );
  const state: RunState = { interrupted: false, signalCode: 0, vitest: undefined, probe: undefined };
  interruptOnSignals(state, collector);
  const starting = startTheRun(plan);
  starting.then((run) => (started = run)).catch(() => undefined);
  const checks = await runChecks(plan, starting, collector, state);
  // Only summaries the probes of this run write from here on decide requirements (cli/run-load.ts).
  const withLoad = options.withLoad && !options.dryRun;
  const probesSince = withLoad && !state.interrupted ? new Date().toISOString() : undefined;
  const load = withLoad
    ? await runLoadProbes(config, plan.reportsRoot, sent, hooksLeft + checks.sweepRequests, state)
    : undefined;
  if (load !== undefined && !state.interrupted)
    process.stdout.write(`conformance: --with-load wall time: ${measuredWallTimeLine(load.wallTime)}\n`);
  const { report, dir } = writeRunReport(
    plan,
    { collector, redact, durationMs: checks.durationMs, sweepRequests: checks.sweepRequests },
    { probesSince, unfinished: load?.unfinished ?? new Map(), interrupted: state.interrupted },
  );
  if (options.dryRun) printDryRun(report, config, checks.context.target, plan.settings, options.withLoad);
  else {
    printRunOutcome(report, checks.durationMs);
    if (options.updateWaivers && !state.interrupted) updateWaivers(plan, report);
  }
  printFollowUps(report, config, { dryRun: options.dryRun, dir, reportsDir: options.reportsDir });
  const exitCode = state.interrupted ? state.signalCode : exitCodeOf(report);
  if (options.evidence && !options.dryRun) writeRunEvidence(plan, report, dir, exitCode);
  return exitCode;
}

/** `occ run`: runs main and turns every error into one line on stderr and exit code 2. */
export async function run(argv: readonly string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    if (error instanceof ConfigError) process.stderr.write(`conformance: configuration error: ${error.message}\n`);
    else if (error instanceof TransportFailure) process.stderr.write(`conformance: unreachable: ${error.message}\n`);
    else if (error instanceof UsageError || error instanceof WaiverError)
      process.stderr.write(`conformance: ${error.message}\n`);
    else
      process.stderr.write(
        `conformance: ${readable(redactErrors(error instanceof Error ? error.message : String(error)))}\n`,
      );
    return 2;
  }
}

if (import.meta.main) process.exitCode = await run(process.argv.slice(2));
