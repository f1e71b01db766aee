/**
 * `occ run --with-load`: the two k6 probes after the checks, against the same target, one at a
 * time (commands/load.ts in a child each), and which of their summaries decide requirements. Only
 * summaries the probes of this run write count, and only those of probes that finished: an
 * interrupted or broken probe's partial summary is no verdict.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { SuiteConfig } from '../harness/config/config.ts';
import { chartOnlyUnlessSince, loadProbeSummaries, unfinishedProbe } from '../harness/report/files.ts';
import type { LoadProbeSummary } from '../harness/report/model.ts';
import { formatPriorRequests, type PriorRequests, webhookRetryRequests } from '../load/lib/probe-shape.ts';
import { entryPoint } from './package-root.ts';

/** The k6 probes of --with-load, in the order they run (load/run.ts). */
export const LOAD_PROBES = ['webhook-retry', 'rate-limit'] as const;
export type LoadProbe = (typeof LOAD_PROBES)[number];
const PROBE_THRESHOLDS_CROSSED = 99;

/**
 * Runs one probe through commands/load.ts (same configuration, same environment); resolves with its exit
 * code. `started` receives the child, so that a signal to this process reaches the probe too.
 */
function runProbe(
  probe: LoadProbe,
  reportDir: string,
  started: (child: ChildProcess) => void,
  extraArgs: readonly string[] = [],
): Promise<number> {
  return new Promise((done) => {
    const args = [entryPoint('commands/load'), probe, '--report-dir', reportDir, ...extraArgs];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    started(child);
    child.on('error', () => done(1));
    child.on('close', (code) => done(code ?? 1));
  });
}

/** What the run and a signal share while the probes run: whether it was interrupted, and the probe running. */
export interface ProbeState {
  readonly interrupted: boolean;
  probe: ChildProcess | undefined;
}

export interface LoadRun {
  /** Probes that did not finish, each with why (their summaries decide nothing). */
  readonly unfinished: ReadonlyMap<LoadProbe, string>;
  /** Each part's wall time, from this process's start: the checks, then each probe. */
  readonly wallTime: ReadonlyArray<{ part: string; ms: number }>;
}

/**
 * Runs the probes after the checks, rate-limit last since it exhausts the target's window.
 * Remotely the target heard the checks (`sent`: their requests by when they were reported), the
 * hook sweeps (`afterChecks`: at most one DELETE per hook left, and this process's own) and the
 * webhook-retry probe: the rate-limit probe waits no longer than those need (load/run.ts).
 */
export async function runLoadProbes(
  config: SuiteConfig,
  reportsRoot: string,
  sent: PriorRequests[],
  afterChecks: number,
  state: ProbeState,
): Promise<LoadRun> {
  const unfinished = new Map<LoadProbe, string>();
  // From this process's start: the configuration, the target's start, the checks and the sweeps.
  const wallTime = [{ part: 'checks', ms: performance.now() }];
  sent.push({ atMs: Date.now(), requests: afterChecks });
  const webhookRetry = webhookRetryRequests(config.control === undefined ? 'watch' : 'control').total;
  for (const name of LOAD_PROBES) {
    if (state.interrupted) {
      unfinished.set(name, 'not run: the run was interrupted before this probe started');
      continue;
    }
    if (name === 'rate-limit') sent.push({ atMs: Date.now(), requests: webhookRetry });
    const recent = sent.filter((p) => p.atMs > Date.now() - config.rateWindowMs - 60_000);
    const quietArgs =
      name === 'rate-limit' && config.target.kind === 'remote' ? ['--prior-requests', formatPriorRequests(recent)] : [];
    const probeStarted = performance.now();
    const code = await runProbe(
      name,
      join(reportsRoot, 'latest'),
      (child) => {
        state.probe = child;
      },
      quietArgs,
    );
    wallTime.push({ part: `k6 ${name}`, ms: performance.now() - probeStarted });
    state.probe = undefined;
    if (state.interrupted) unfinished.set(name, 'not run: the run was interrupted while this probe ran');
    else if (code !== 0 && code !== PROBE_THRESHOLDS_CROSSED) {
      unfinished.set(name, `not run: the probe could not complete (k6 runner exit ${code})`);
      process.stderr.write(
        `conformance: --with-load: the ${name} probe could not run (exit ${code}); ` +
          "its requirements keep the checks' verdicts\n",
      );
    }
  }
  return { unfinished, wallTime };
}

/**
 * The probe summaries of the report: every one found (charted), deciding requirements only when
 * written since `probesSince` by a probe that finished; an unfinished probe is reported as not run.
 */
export function loadSummaries(
  reportsRoot: string,
  probesSince: string | undefined,
  unfinished: ReadonlyMap<LoadProbe, string>,
): LoadProbeSummary[] {
  const summaries = loadProbeSummaries(reportsRoot).map((summary) => chartOnlyUnlessSince(summary, probesSince));
  return [
    ...summaries.filter((summary) => !unfinished.has(summary.probe as LoadProbe)),
    ...[...unfinished].map(([name, reason]) =>
      unfinishedProbe(
        name,
        summaries.find((s) => s.probe === name),
        reason,
      ),
    ),
  ];
}
