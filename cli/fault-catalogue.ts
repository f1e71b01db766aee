/**
 * npm run self-proof: the suite proves itself against the reference server's fault catalogue.
 * Each fault is switched on alone and the conformance run must fail with at least one failing
 * check tagged with a requirement the fault violates. Prints the kill rate; exit 1 below 100 %.
 *
 * Each fault runs only the checks tagged with the requirements it violates (--only): a check
 * that fails there fails in a full run too, since checks undo every state they set, and the
 * catalogue is checked in a fraction of the time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { faults } from '../reference/faults.ts';
import { requirementsFailedBy, type RunReport } from '../harness/report/model.ts';
import { entryPoint } from './package-root.ts';

export interface FaultVerdict {
  readonly fault: string;
  readonly violates: readonly string[];
  readonly caught: boolean;
  /** Failing checks that carry a violated requirement id. */
  readonly caughtBy: readonly string[];
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly problem?: string;
}

/** Caught when a failing check carries one of the requirement ids the fault names. Pure. */
export function judgeFault(violates: readonly string[], report: Pick<RunReport, 'checks'>): string[] {
  return report.checks
    // A check split by per-requirement verdicts catches the fault only through a requirement it failed.
    .filter((check) => requirementsFailedBy(check).some((id) => violates.includes(id)))
    .map((check) => check.name);
}

function runOne(fault: (typeof faults)[number], workDir: string): Promise<FaultVerdict> {
  const reportsDir = join(workDir, fault.id);
  const started = Date.now();
  const env: NodeJS.ProcessEnv = { ...process.env, OCC_REFERENCE_FAULTS: fault.id, CI: process.env.CI ?? 'true' };
  // Always the embedded reference: a configured remote target has no fault switches.
  delete env.API_BASE_URL;
  delete env.AUTH_URL;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entryPoint('cli/conformance'), '--only', fault.violates.join(','), '--reports-dir', reportsDir], {
      env, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const timer = setTimeout(() => child.kill('SIGTERM'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const base = { fault: fault.id, violates: fault.violates, exitCode: code, durationMs: Date.now() - started };
      try {
        const report = JSON.parse(readFileSync(join(reportsDir, 'latest', 'report.json'), 'utf8')) as RunReport;
        const caughtBy = judgeFault(fault.violates, report);
        resolve({ ...base, caught: caughtBy.length > 0 && code === 1, caughtBy });
      } catch {
        resolve({ ...base, caught: false, caughtBy: [], problem: `no report (exit ${code}): ${stderr.trim().split('\n').at(-1) ?? ''}` });
      }
    });
  });
}

const usage = `Usage: occ self-proof [options]   (npm run self-proof)

  --concurrency <n>  faults checked at once, 1 to 8 (default 2)
  --only <ids>       only these faults of the reference's catalogue (comma-separated)
  -h, --help         this text`;

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], options: { concurrency: { type: 'string', default: '2' }, only: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
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
        const verdict = await runOne(fault, workDir);
        verdicts.push(verdict);
        const line = verdict.caught ? `caught by: ${verdict.caughtBy[0]}${verdict.caughtBy.length > 1 ? ` (+${verdict.caughtBy.length - 1})` : ''}` : `NOT CAUGHT ${verdict.problem ?? `(violates ${verdict.violates.join(', ')})`}`;
        process.stdout.write(`${verdict.caught ? '✓' : '✗'} ${verdict.fault.padEnd(34)} ${(verdict.durationMs / 1000).toFixed(1).padStart(5)} s  ${line}\n`);
      }
    }));
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const caught = verdicts.filter((v) => v.caught).length;
  const rate = (100 * caught) / verdicts.length;
  process.stdout.write(`kill rate: ${caught}/${verdicts.length} faults caught (${rate.toFixed(1)} %) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return caught === verdicts.length ? 0 : 1;
}

if (import.meta.main) {
  main().then(
    (code) => { process.exitCode = code; },
    (error: unknown) => { process.stderr.write(`self-proof: ${(error as Error).message}\n`); process.exitCode = 2; },
  );
}
