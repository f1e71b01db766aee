/**
 * `occ self-proof` (npm run self-proof): the suite proves itself against the reference server's
 * fault catalogue, which commands/self-proof.ts gives it (nothing here imports reference/).
 * Each fault is switched on alone and the conformance run must fail with at least one failing
 * check tagged with a requirement the fault violates. Prints the kill rate; exit 1 below 100 %.
 *
 * Each fault runs only the checks tagged with the requirements it violates (--only): a check
 * that fails there fails in a full run too, since checks undo every state they set, and the
 * catalogue is checked in a fraction of the time.
 *
 * Embedded (the default): one long-lived runner process per --concurrency slot
 * (./runner.ts, started as commands/self-proof-runner.ts), each with its own vitest instance,
 * its own embedded reference and receiver, takes the faults from a shared queue; for each it
 * starts a fresh reference with that fault alone on and runs the fault's checks in a fresh test
 * worker. A run of a fault pays its checks, not a process start. A runner that goes past a
 * fault's time limit or dies is ended and a new one takes the next fault.
 *
 * --remote: the same proof against the reference run as a REMOTE target: a separate process per
 * fault (cli/remote-reference.ts), reached only through API_BASE_URL, every fixture, CONTROL_URL
 * and a receiver it delivers to, as a staging build would be. A fault whose requirements a remote
 * run cannot verify at all (e.g. the rate limit, which needs --with-load) is listed as such and
 * left out of the kill rate; every other fault must be caught. The stand-in has no rate limit and
 * the run's rate is raised (REQUESTS_PER_MINUTE=6000), so its budget covers every probe: one run
 * per fault (harness/scheduling/budget.ts). With --default-budget the run gets the gate-sized 150
 * requests (RUN_BUDGET_S for that at the raised rate) and one run per fault, seed --seed (1): the
 * kill rate per run of a default configuration, the likeliest slips first. Should a run still
 * report rotated slices, a fault not caught is run again with the next seeds until every slice
 * was sent (at most MAX_REMOTE_SEEDS runs).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { embeddedRunEnvironment } from '../harness/config/environment.ts';
import type { RunReport } from '../harness/report/model.ts';
import { GATE_REQUESTS } from '../harness/scheduling/budget.ts';
import { compileCacheDirectory, entryPoint } from '../cli/package-root.ts';
import { remoteRunEnvironment, startRemoteReference } from '../cli/remote-reference.ts';
import { judgeFault } from './judge.ts';
import type { CheckSelection, Fault, FromRunner, ToRunner } from './runner.ts';

export type { Fault } from './runner.ts';

export interface FaultVerdict {
  readonly fault: string;
  readonly violates: readonly string[];
  readonly caught: boolean;
  /** Failing checks that carry a violated requirement id. */
  readonly caughtBy: readonly string[];
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly problem?: string;
  /** Not caught by a run that ended: what the fault's checks did (missedBecause). */
  readonly missed?: string;
  /** Remote mode: slices of the near-miss rotation the run reported. */
  readonly slices?: number;
  /** Remote mode: the seed of the run that caught it. */
  readonly seed?: number;
  /** Remote mode: none of the violated requirements was verifiable in the run (the reasons). */
  readonly notVerifiableRemotely?: string;
}

/** Remote mode: why none of the fault's requirements could be verified, or undefined when one was. Pure. */
export function unverifiable(violates: readonly string[], report: Pick<RunReport, 'requirements'>): string | undefined {
  const mine = report.requirements.filter((r) => violates.includes(r.id));
  if (mine.some((r) => r.status === 'passed' || r.status === 'failed')) return undefined;
  const reasons = [...new Set(mine.flatMap((r) => r.notVerifiableBecause))];
  return reasons.length > 0 ? reasons.join('; ') : 'no check of these requirements ran';
}

/** A bound on the remote runs of one fault (consecutive seeds, one per slice of the rotation). */
const MAX_REMOTE_SEEDS = 9;

/** How many slices the run's rotating checks reported ("slice i of k"); 1 when none rotated. Pure. */
export function slicesReported(report: Pick<RunReport, 'checks'>): number {
  let slices = 1;
  for (const check of report.checks) {
    for (const o of check.observations) {
      const k = /\bslice \d+ of (\d+)\b/.exec(o.text)?.[1];
      if (k !== undefined) slices = Math.max(slices, Number(k));
    }
  }
  return slices;
}

/**
 * Why a fault was not caught, from what its checks did (the evidence a NOT CAUGHT line carries):
 * each check carrying a violated requirement with its status, and the reason of a skipped one. Pure.
 */
export function missedBecause(violates: readonly string[], report: Pick<RunReport, 'checks'>): string {
  const mine = report.checks.filter((check) => check.requirements.some((id) => violates.includes(id)));
  if (mine.length === 0) return `(violates ${violates.join(', ')}): no check of these requirements ran`;
  const shown = mine
    .slice(0, 3)
    .map((c) => `${c.status}${c.skipReason === undefined ? '' : ` (${c.skipReason.slice(0, 160)})`}: ${c.name}`);
  const more = mine.length > 3 ? `; and ${mine.length - 3} more` : '';
  return `(violates ${violates.join(', ')}): its checks ${shown.join('; ')}${more}`;
}

/** A verdict from a run's report and exit code: the one judgement of both modes. Pure. */
export function verdictOf(
  fault: Pick<Fault, 'id' | 'violates'>,
  report: RunReport,
  exitCode: number | null,
  durationMs: number,
  remote: boolean,
  seed?: number,
): FaultVerdict {
  const base = {
    fault: fault.id,
    violates: fault.violates,
    exitCode,
    durationMs,
    ...(seed === undefined ? {} : { seed }),
  };
  if (report.interrupted)
    return {
      ...base,
      caught: false,
      caughtBy: [],
      problem: `the run was cut short (exit ${exitCode}): over its time limit?`,
    };
  const caughtBy = judgeFault(fault.violates, report);
  const notVerifiableRemotely = remote && caughtBy.length === 0 ? unverifiable(fault.violates, report) : undefined;
  const caught = caughtBy.length > 0 && exitCode === 1;
  return {
    ...base,
    caught,
    caughtBy,
    ...(caught || notVerifiableRemotely !== undefined ? {} : { missed: missedBecause(fault.violates, report) }),
    slices: slicesReported(report),
    ...(notVerifiableRemotely === undefined ? {} : { notVerifiableRemotely }),
  };
}

/**
 * The environment of an embedded run: what `occ run` would read (the variables, then .env) with
 * the target's variables removed, since a configured remote target has no fault switches
 * (harness/config/environment.ts).
 */
export function embeddedEnvironment(): NodeJS.ProcessEnv {
  return embeddedRunEnvironment(compileCacheDirectory);
}

/** Bounds of the embedded runners: a start (vitest, the reference, collecting the checks) and one fault's run. */
const RUNNER_START_MS = 240_000;
const FAULT_RUN_MS = 120_000;

/** One runner process (./runner.ts, as commands/self-proof-runner.ts): started, asked one fault at a time, ended. */
export class RunnerProcess {
  readonly #child: ChildProcess;
  #waiting: ((message: FromRunner | { exited: string }) => void) | undefined;

  private constructor(child: ChildProcess) {
    this.#child = child;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4_000);
    });
    child.on('message', (message: FromRunner) => this.#waiting?.(message));
    child.on('exit', (code, signal) =>
      this.#waiting?.({
        exited:
          `the runner ended (${signal ?? `exit ${code}`})` +
          `${stderr.trim() === '' ? '' : `: ${stderr.trim().split('\n').at(-1)}`}`,
      }),
    );
  }

  /** How many checks each fault of the catalogue runs, as the runner collected them. */
  checks: Readonly<Record<string, number>> = {};

  static async start(env: NodeJS.ProcessEnv): Promise<RunnerProcess> {
    const runner = new RunnerProcess(
      fork(entryPoint('commands/self-proof-runner'), [], { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] }),
    );
    const first = await runner.#next(RUNNER_START_MS);
    if ('ready' in first) {
      runner.checks = first.checks;
      return runner;
    }
    runner.end();
    throw new Error(
      `the runner did not start: ${'error' in first ? first.error : 'exited' in first ? first.exited : 'no answer'}`,
    );
  }

  /** The fault's run, or why there is none (then the runner is ended: it may hold the fault on). */
  async run(
    fault: Pick<Fault, 'id' | 'violates'>,
    only?: CheckSelection,
    everyCheck = false,
  ): Promise<{ report: RunReport; exitCode: number } | { problem: string }> {
    this.#child.send({
      fault: { id: fault.id, violates: fault.violates },
      ...(only === undefined ? {} : { only }),
      everyCheck,
    } satisfies ToRunner);
    const answer = await this.#next(FAULT_RUN_MS);
    if ('run' in answer) return answer.run;
    await this.end();
    if ('error' in answer) return { problem: `the run failed: ${answer.error}` };
    return {
      problem: 'exited' in answer ? answer.exited : `no verdict within ${FAULT_RUN_MS / 1000} s: over its time limit?`,
    };
  }

  #next(timeoutMs: number): Promise<FromRunner | { exited: string } | { timedOut: true }> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting = undefined;
        resolve({ timedOut: true });
      }, timeoutMs);
      this.#waiting = (message) => {
        clearTimeout(timer);
        this.#waiting = undefined;
        resolve(message);
      };
    });
  }

  /** Asks it to close (vitest, the reference, the receiver); forces it after a grace period. */
  end(): Promise<void> {
    const child = this.#child;
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      if (child.connected) child.disconnect();
      else child.kill('SIGTERM');
    });
  }
}

/**
 * One --concurrency slot: takes faults from the queue until it is empty, through one runner at a time.
 * A fault's run stops at its first catch unless `everyCheck` (--every-check).
 */
export async function embeddedSlot(
  queue: Fault[],
  env: NodeJS.ProcessEnv,
  done: (verdict: FaultVerdict) => void,
  everyCheck = false,
): Promise<void> {
  let runner: RunnerProcess | undefined;
  try {
    while (queue.length > 0) {
      const started = Date.now();
      if (runner === undefined) {
        try {
          runner = await RunnerProcess.start(env);
        } catch (error) {
          // Charged to the fault it would have run next; the next fault tries a new runner.
          const fault = queue.shift();
          if (fault !== undefined)
            done({
              fault: fault.id,
              violates: fault.violates,
              caught: false,
              caughtBy: [],
              exitCode: null,
              durationMs: Date.now() - started,
              problem: (error as Error).message,
            });
          continue;
        }
        // The faults with the most checks first, so that no long one is left alone at the end (one
        // the runner did not count, as if it were the longest).
        const checks = runner.checks;
        const weight = (fault: Fault) => checks[fault.id] ?? Number.MAX_SAFE_INTEGER;
        queue.sort((a, b) => weight(b) - weight(a));
      }
      const fault = queue.shift();
      if (fault === undefined) break;
      const runStarted = Date.now();
      const outcome = await runner.run(fault, undefined, everyCheck);
      if ('problem' in outcome) {
        runner = undefined;
        done({
          fault: fault.id,
          violates: fault.violates,
          caught: false,
          caughtBy: [],
          exitCode: null,
          durationMs: Date.now() - runStarted,
          problem: outcome.problem,
        });
      } else {
        done(verdictOf(fault, outcome.report, outcome.exitCode, Date.now() - runStarted, false));
      }
    }
  } finally {
    await runner?.end();
  }
}

/** The remote runs' budget: every probe (the default), or the gate-sized one in a single run of `seed`. */
export type RemoteBudget = { readonly kind: 'all' } | { readonly kind: 'default'; readonly seed: number };

/** RUN_BUDGET_S that gives `requestsPerMinute` the gate-sized budget of a default run. Pure. */
export function defaultBudgetSeconds(requestsPerMinute: number): string {
  return String((GATE_REQUESTS * 60) / requestsPerMinute);
}

async function runRemote(fault: Fault, workDir: string, budget: RemoteBudget): Promise<FaultVerdict> {
  let verdict: FaultVerdict | undefined;
  let durationMs = 0;
  let slices = 1;
  const first = budget.kind === 'default' ? budget.seed : 1;
  const last = budget.kind === 'default' ? budget.seed : MAX_REMOTE_SEEDS;
  for (let seed = first; seed <= Math.min(first + slices - 1, last); seed++) {
    const reference = await startRemoteReference({ faults: [fault.id] });
    try {
      const env = remoteRunEnvironment(reference);
      if (budget.kind === 'default') env.RUN_BUDGET_S = defaultBudgetSeconds(Number(env.REQUESTS_PER_MINUTE));
      verdict = await runAgainst(fault, join(workDir, `seed-${seed}`), env, seed);
    } finally {
      await reference.close();
    }
    durationMs += verdict.durationMs;
    slices = Math.max(slices, verdict.slices ?? 1);
    if (verdict.caught || verdict.notVerifiableRemotely !== undefined || verdict.problem !== undefined) break;
  }
  return { ...verdict!, durationMs };
}

/** One remote run: `occ run --only <violated ids>` as a process of its own, judged from its report.json. */
function runAgainst(fault: Fault, workDir: string, env: NodeJS.ProcessEnv, seed: number): Promise<FaultVerdict> {
  const reportsDir = join(workDir, fault.id);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        entryPoint('commands/run'),
        '--only',
        fault.violates.join(','),
        '--seed',
        String(seed),
        '--reports-dir',
        reportsDir,
      ],
      {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // A remote run is a second process and real TLS deliveries: room on a loaded machine.
    const timer = setTimeout(() => child.kill('SIGTERM'), 300_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const durationMs = Date.now() - started;
      let report: RunReport;
      try {
        report = JSON.parse(readFileSync(join(reportsDir, 'latest', 'report.json'), 'utf8')) as RunReport;
      } catch {
        return resolve({
          fault: fault.id,
          violates: fault.violates,
          exitCode: code,
          durationMs,
          seed,
          caught: false,
          caughtBy: [],
          problem: `no report (exit ${code}): ${stderr.trim().split('\n').at(-1) ?? ''}`,
        });
      }
      resolve(verdictOf(fault, report, code, durationMs, true, seed));
    });
  });
}

/** The line printed for a fault as its verdict arrives. Pure. */
export function verdictLine(verdict: FaultVerdict): string {
  if (verdict.notVerifiableRemotely !== undefined)
    return (
      `- ${verdict.fault.padEnd(34)} ${(verdict.durationMs / 1000).toFixed(1).padStart(5)} s  ` +
      `not verifiable remotely: ${verdict.notVerifiableRemotely}`
    );
  const line = verdict.caught
    ? `caught by${verdict.seed !== undefined && verdict.seed > 1 ? ` (seed ${verdict.seed})` : ''}: ` +
      `${verdict.caughtBy[0]}${verdict.caughtBy.length > 1 ? ` (+${verdict.caughtBy.length - 1})` : ''}`
    : `NOT CAUGHT ${verdict.problem ?? verdict.missed ?? `(violates ${verdict.violates.join(', ')})`}`;
  return (
    `${verdict.caught ? '✓' : '✗'} ${verdict.fault.padEnd(34)} ` +
    `${(verdict.durationMs / 1000).toFixed(1).padStart(5)} s  ${line}`
  );
}

const usage = `Usage: occ self-proof [options]   (npm run self-proof)

  --concurrency <n>  faults checked at once, 1 to 8 (default 2)
  --only <ids>       only these faults of the reference's catalogue (comma-separated)
  --remote           against the reference run as a remote target (a separate process per fault,
                     every fixture, CONTROL_URL, a receiver it delivers to), every probe sent
  --default-budget   with --remote: the gate-sized budget of a default run (150 requests), one run
                     per fault: the kill rate per run
  --seed <n>         with --default-budget: the seed of that run (default 1)
  --every-check      run each fault's checks to the end and list every check that catches it
                     (by default a fault's embedded run stops at its first catch: the verdict is in)
  -h, --help         this text`;

/** What `occ self-proof` was asked: 'help', or the options (a usage error throws). */
interface SelfProofOptions {
  readonly concurrency: number;
  readonly only?: string;
  readonly remote: boolean;
  readonly budget: RemoteBudget;
  readonly everyCheck: boolean;
}

function parseSelfProofArgs(argv: readonly string[]): SelfProofOptions | 'help' {
  const config = {
    args: [...argv],
    options: {
      concurrency: { type: 'string', default: '2' },
      only: { type: 'string' },
      remote: { type: 'boolean', default: false },
      'default-budget': { type: 'boolean', default: false },
      seed: { type: 'string', default: '1' },
      'every-check': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  } satisfies ParseArgsConfig;
  let values: ReturnType<typeof parseArgs<typeof config>>['values'];
  try {
    values = parseArgs(config).values;
  } catch (error) {
    throw new Error(
      `${(error as Error).message.split('\n')[0]!.replace(/\.$/, '')}; run occ self-proof --help for the options`,
    );
  }
  if (values.help) return 'help';
  if (values['default-budget'] && !values.remote) throw new Error('--default-budget goes with --remote');
  if (!/^\d+$/.test(values.seed) || Number(values.seed) >= 2 ** 31)
    throw new Error(`--seed must be a whole number below 2^31 (got "${values.seed}")`);
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 8)
    throw new Error('--concurrency must be a whole number from 1 to 8');
  return {
    concurrency,
    ...(values.only === undefined ? {} : { only: values.only }),
    remote: values.remote,
    budget: values['default-budget'] ? { kind: 'default', seed: Number(values.seed) } : { kind: 'all' },
    everyCheck: values['every-check'],
  };
}

/** `occ self-proof` over `catalogue` (the reference's faults): the exit code; a usage error throws. */
export async function main(argv: readonly string[], catalogue: readonly Fault[]): Promise<number> {
  const options = parseSelfProofArgs(argv);
  if (options === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const { concurrency, budget } = options;
  const selected =
    options.only === undefined ? catalogue : catalogue.filter((f) => options.only!.split(',').includes(f.id));
  if (selected.length === 0) throw new Error(`--only names no fault of reference/faults.ts`);
  const started = Date.now();
  const verdicts: FaultVerdict[] = [];
  const done = (verdict: FaultVerdict): void => {
    verdicts.push(verdict);
    process.stdout.write(`${verdictLine(verdict)}\n`);
  };
  const queue: Fault[] = [...selected];
  if (options.remote) {
    const workDir = mkdtempSync(join(tmpdir(), 'occ-self-proof-'));
    try {
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let fault = queue.shift(); fault !== undefined; fault = queue.shift())
            done(await runRemote(fault, workDir, budget));
        }),
      );
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  } else {
    const env = embeddedEnvironment();
    // No more runners than faults: a runner's start is the one fixed cost left.
    await Promise.all(
      Array.from({ length: Math.min(concurrency, queue.length) }, () =>
        embeddedSlot(queue, env, done, options.everyCheck),
      ),
    );
  }
  const judged = verdicts.filter((v) => v.notVerifiableRemotely === undefined);
  const caught = judged.filter((v) => v.caught).length;
  const rate = judged.length === 0 ? 100 : (100 * caught) / judged.length;
  const skipped = verdicts.length - judged.length;
  const mode = budget.kind === 'all' ? 'every probe' : `default budget, one run: seed ${budget.seed}`;
  process.stdout.write(
    `kill rate${options.remote ? ` (remote target, ${mode})` : ''}: ` +
      `${caught}/${judged.length} faults caught ` +
      `(${rate.toFixed(1)} %)${skipped > 0 ? `, ${skipped} not verifiable remotely` : ''} ` +
      `in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return caught === judged.length ? 0 : 1;
}
