/**
 * npm run self-proof: the suite proves itself against the reference server's fault catalogue.
 * Each fault is switched on alone and the conformance run must fail with at least one failing
 * check tagged with a requirement the fault violates. Prints the kill rate; exit 1 below 100 %.
 *
 * Each fault runs only the checks tagged with the requirements it violates (--only): a check
 * that fails there fails in a full run too, since checks undo every state they set, and the
 * catalogue is checked in a fraction of the time.
 *
 * --remote: the same proof against the reference run as a REMOTE target: a separate process per
 * fault (./remote-reference.ts), reached only through API_BASE_URL, every fixture, CONTROL_URL
 * and a receiver it delivers to, as a staging build would be. A fault whose requirements a remote
 * run cannot verify at all (e.g. the rate limit, which needs --with-load) is listed as such and
 * left out of the kill rate; every other fault must be caught. A remote run sends only its
 * seed's slice of some checks' near-miss probes (the request budget, harness/suite/rotation.ts),
 * so a fault not caught is run again with the next seeds until every slice the run reported has
 * been sent (at most MAX_REMOTE_SEEDS runs): caught by one of them means caught by the runs a CI
 * schedule makes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { faults } from '../reference/faults.ts';
import { requirementsFailedBy, type RunReport } from '../harness/report/model.ts';
import { entryPoint } from './package-root.ts';
import { remoteRunEnvironment, startRemoteReference } from './remote-reference.ts';

export interface FaultVerdict {
  readonly fault: string;
  readonly violates: readonly string[];
  readonly caught: boolean;
  /** Failing checks that carry a violated requirement id. */
  readonly caughtBy: readonly string[];
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly problem?: string;
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

/** Caught when a failing check carries one of the requirement ids the fault names. Pure. */
export function judgeFault(violates: readonly string[], report: Pick<RunReport, 'checks'>): string[] {
  return report.checks
    // A check split by per-requirement verdicts catches the fault only through a requirement it failed.
    .filter((check) => requirementsFailedBy(check).some((id) => violates.includes(id)))
    .map((check) => check.name);
}

/** A bound on the remote runs of one fault (consecutive seeds, one per slice of the rotation). */
const MAX_REMOTE_SEEDS = 8;

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

async function runOne(fault: (typeof faults)[number], workDir: string, remote: boolean): Promise<FaultVerdict> {
  if (!remote) {
    const env: NodeJS.ProcessEnv = { ...process.env, OCC_REFERENCE_FAULTS: fault.id, CI: process.env.CI ?? 'true' };
    // The embedded reference: a configured remote target has no fault switches.
    delete env.API_BASE_URL;
    delete env.AUTH_URL;
    delete env.CONTROL_URL;
    delete env.CONTROL_TOKEN;
    return runAgainst(fault, workDir, env, false);
  }
  let verdict: FaultVerdict | undefined;
  let durationMs = 0;
  let slices = 1;
  for (let seed = 1; seed <= Math.min(slices, MAX_REMOTE_SEEDS); seed++) {
    const reference = await startRemoteReference({ faults: [fault.id] });
    try {
      verdict = await runAgainst(fault, join(workDir, `seed-${seed}`), remoteRunEnvironment(reference), true, seed);
    } finally {
      await reference.close();
    }
    durationMs += verdict.durationMs;
    slices = Math.max(slices, verdict.slices ?? 1);
    if (verdict.caught || verdict.notVerifiableRemotely !== undefined || verdict.problem !== undefined) break;
  }
  return { ...verdict!, durationMs };
}

function runAgainst(fault: (typeof faults)[number], workDir: string, env: NodeJS.ProcessEnv, remote: boolean, seed?: number): Promise<FaultVerdict> {
  const reportsDir = join(workDir, fault.id);
  const started = Date.now();
  const seedArgs = seed === undefined ? [] : ['--seed', String(seed)];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entryPoint('cli/conformance'), '--only', fault.violates.join(','), ...seedArgs, '--reports-dir', reportsDir], {
      env, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    // A remote run is a second process and real TLS deliveries: more room on a loaded machine.
    const timer = setTimeout(() => child.kill('SIGTERM'), remote ? 300_000 : 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const base = { fault: fault.id, violates: fault.violates, exitCode: code, durationMs: Date.now() - started, ...(seed === undefined ? {} : { seed }) };
      try {
        const report = JSON.parse(readFileSync(join(reportsDir, 'latest', 'report.json'), 'utf8')) as RunReport;
        if (report.interrupted) return resolve({ ...base, caught: false, caughtBy: [], problem: `the run was cut short (exit ${code}): over its time limit?` });
        const caughtBy = judgeFault(fault.violates, report);
        const notVerifiableRemotely = remote && caughtBy.length === 0 ? unverifiable(fault.violates, report) : undefined;
        resolve({ ...base, caught: caughtBy.length > 0 && code === 1, caughtBy, slices: slicesReported(report), ...(notVerifiableRemotely === undefined ? {} : { notVerifiableRemotely }) });
      } catch {
        resolve({ ...base, caught: false, caughtBy: [], problem: `no report (exit ${code}): ${stderr.trim().split('\n').at(-1) ?? ''}` });
      }
    });
  });
}

const usage = `Usage: occ self-proof [options]   (npm run self-proof)

  --concurrency <n>  faults checked at once, 1 to 8 (default 2)
  --only <ids>       only these faults of the reference's catalogue (comma-separated)
  --remote           against the reference run as a remote target (a separate process per fault,
                     every fixture, CONTROL_URL, a receiver it delivers to)
  -h, --help         this text`;

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], options: { concurrency: { type: 'string', default: '2' }, only: { type: 'string' }, remote: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (error) {
    throw new Error(`${(error as Error).message.split('\n')[0]!.replace(/\.$/, '')}; run occ self-proof --help for the options`);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 8) throw new Error('--concurrency must be a whole number from 1 to 8');
  const selected = values.only === undefined ? faults : faults.filter((f) => values.only!.split(',').includes(f.id));
  if (selected.length === 0) throw new Error(`--only names no fault of reference/faults.ts`);
  const workDir = mkdtempSync(join(tmpdir(), 'occ-self-proof-'));
  const started = Date.now();
  const verdicts: FaultVerdict[] = [];
  try {
    const queue = [...selected];
    await Promise.all(Array.from({ length: concurrency }, async () => {
      for (let fault = queue.shift(); fault !== undefined; fault = queue.shift()) {
        const verdict = await runOne(fault, workDir, values.remote === true);
        verdicts.push(verdict);
        if (verdict.notVerifiableRemotely !== undefined) {
          process.stdout.write(`- ${verdict.fault.padEnd(34)} ${(verdict.durationMs / 1000).toFixed(1).padStart(5)} s  not verifiable remotely: ${verdict.notVerifiableRemotely}\n`);
          continue;
        }
        const line = verdict.caught ? `caught by${verdict.seed !== undefined && verdict.seed > 1 ? ` (seed ${verdict.seed})` : ''}: ${verdict.caughtBy[0]}${verdict.caughtBy.length > 1 ? ` (+${verdict.caughtBy.length - 1})` : ''}` : `NOT CAUGHT ${verdict.problem ?? `(violates ${verdict.violates.join(', ')})`}`;
        process.stdout.write(`${verdict.caught ? '✓' : '✗'} ${verdict.fault.padEnd(34)} ${(verdict.durationMs / 1000).toFixed(1).padStart(5)} s  ${line}\n`);
      }
    }));
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const judged = verdicts.filter((v) => v.notVerifiableRemotely === undefined);
  const caught = judged.filter((v) => v.caught).length;
  const rate = judged.length === 0 ? 100 : (100 * caught) / judged.length;
  const skipped = verdicts.length - judged.length;
  process.stdout.write(`kill rate${values.remote ? ' (remote target)' : ''}: ${caught}/${judged.length} faults caught (${rate.toFixed(1)} %)${skipped > 0 ? `, ${skipped} not verifiable remotely` : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return caught === judged.length ? 0 : 1;
}

if (import.meta.main) {
  main().then(
    (code) => { process.exitCode = code; },
    (error: unknown) => { process.stderr.write(`self-proof: ${(error as Error).message}\n`); process.exitCode = 2; },
  );
}
