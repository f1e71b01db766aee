/**
 * What the remote request budget buys: for the remote configurations (every fixture without
 * CONTROL_URL, and with it), a full conformance run (properties included) against the reference
 * run as a REMOTE target (a separate process, cli/remote-reference.ts), reporting the MUST
 * requirements verified (passed + failed) per request sent, the requests sent and planned
 * (`--dry-run`), the wall time the client's throttle alone imposes at the default rate (the
 * throttle itself on a virtual clock: harness/http/throttle.ts), and the measured wall time.
 *
 * The measured run goes at the default remote rate (80 requests/minute, what a staging team
 * gets), so it takes a few minutes per configuration; `--fast` keeps the stand-in's unthrottled
 * rate (the throttle figure is computed either way). Wall time also holds the webhook watch
 * (WEBHOOK_BUDGET_S, default 180 s), which overlaps the other checks.
 *
 *   npm run bench:remote-budget [-- --seed 1] [-- --fast] [-- --only control|no-control] [-- --keep <dir>]
 *
 * --keep writes each run's reports under <dir> (to compare which requirements two versions verify).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { entryPoint } from '../cli/package-root.ts';
import { remoteRunEnvironment, startRemoteReference } from '../cli/remote-reference.ts';
import { defaults } from '../harness/config/config.ts';
import { throttledDurationMs } from '../harness/http/throttle.ts';
import type { RunReport } from '../harness/report/model.ts';
import { recordResult } from './results.ts';

interface Measured {
  readonly label: string;
  readonly mustVerified: number;
  readonly mustTotal: number;
  readonly sent: number;
  readonly planned: number;
  readonly throttleMs: number;
  readonly wallMs: number;
  readonly exitCode: number | null;
}

const configurations = [
  {
    key: 'no-control',
    label: 'every fixture, no `CONTROL_URL`',
    withControl: false,
    goal:
      'remote run, every fixture, no `CONTROL_URL`, at the default 80 requests/minute: ≤ 150 requests planned, ' +
      'as many MUST requirements verified per request as the budget allows',
  },
  {
    key: 'control',
    label: 'every fixture, `CONTROL_URL` set',
    withControl: true,
    goal: 'remote run, every fixture, `CONTROL_URL` set, at the default 80 requests/minute: ≤ 150 requests planned',
  },
] as const;

function conformance(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  reportsDir: string,
): Promise<{ report: RunReport; wallMs: number; code: number | null }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [entryPoint('commands/run'), ...args, '--reports-dir', reportsDir], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), 900_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        resolve({
          report: JSON.parse(readFileSync(join(reportsDir, 'latest', 'report.json'), 'utf8')) as RunReport,
          wallMs: performance.now() - started,
          code,
        });
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** MUST requirements with a verdict (passed or failed; waived ones failed too), and how many MUST there are. Pure. */
export function mustVerified(report: Pick<RunReport, 'requirements'>): { verified: number; total: number } {
  const must = report.requirements.filter((r) => r.level === 'MUST');
  return {
    verified: must.filter((r) => r.status === 'passed' || r.status === 'failed' || r.status === 'waived').length,
    total: must.length,
  };
}

async function measure(
  configuration: (typeof configurations)[number],
  seed: number,
  fast: boolean,
  work: string,
): Promise<Measured> {
  const reference = await startRemoteReference({ withControl: configuration.withControl });
  try {
    const env = remoteRunEnvironment(reference);
    // The default remote rate, as against staging (the stand-in itself has no limit).
    if (!fast) delete env.REQUESTS_PER_MINUTE;
    const seedArgs = ['--seed', String(seed)];
    const dry = await conformance(['--dry-run', ...seedArgs], env, join(work, `${configuration.key}-dry`));
    const run = await conformance(seedArgs, env, join(work, configuration.key));
    const { verified, total } = mustVerified(run.report);
    return {
      label: configuration.label,
      mustVerified: verified,
      mustTotal: total,
      sent: run.report.requests.sent,
      planned: dry.report.requests.planned,
      throttleMs: await throttledDurationMs(run.report.requests.sent, {
        requestsPerMinute: defaults.remoteRequestsPerMinute,
      }),
      wallMs: run.wallMs,
      exitCode: run.code,
    };
  } finally {
    await reference.close();
  }
}

const minutes = (ms: number) =>
  `${Math.floor(ms / 60_000)} min ${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')} s`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      fast: { type: 'boolean', default: false },
      only: { type: 'string' },
      keep: { type: 'string' },
    },
    strict: true,
  });
  const seed = Number(values.seed);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`--seed must be a whole number, got "${values.seed}"`);
  const chosen = configurations.filter((c) => values.only === undefined || c.key === values.only);
  if (chosen.length === 0) throw new Error(`--only must be one of ${configurations.map((c) => c.key).join(', ')}`);
  const work = values.keep ?? mkdtempSync(join(tmpdir(), 'occ-remote-budget-'));
  const rows: Measured[] = [];
  try {
    for (const configuration of chosen) {
      const m = await measure(configuration, seed, values.fast, work);
      rows.push(m);
      process.stdout.write(
        `${m.label}: ${m.mustVerified} of ${m.mustTotal} MUST verified, ` +
          `${m.sent} requests sent (${m.planned} planned), ${(m.mustVerified / m.sent).toFixed(2)} MUST per request, ` +
          `throttle alone ${minutes(m.throttleMs)} at ${defaults.remoteRequestsPerMinute}/min, ` +
          `measured ${minutes(m.wallMs)}` +
          `${values.fast ? ' (unthrottled)' : ` at ${defaults.remoteRequestsPerMinute}/min`}, exit ${m.exitCode}\n`,
      );
      // The figures are for the default rate, seed and property runs: other options are printed, not recorded.
      if (!values.fast && seed === 1 && process.env.PROPERTY_NUM_RUNS === undefined) {
        recordResult({
          goal: configuration.goal,
          command: `npm run bench:remote-budget -- --only ${configuration.key}`,
          figure:
            `${m.mustVerified} of ${m.mustTotal} MUST verified for ${m.sent} requests (${m.planned} planned) = ` +
            `${(m.mustVerified / m.sent).toFixed(2)} MUST per request; ` +
            `throttle alone ${minutes(m.throttleMs)}, measured ${minutes(m.wallMs)}, exit ${m.exitCode}`,
        });
      }
    }
  } finally {
    if (values.keep === undefined) rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(
    `\nseed ${seed}, ` +
      `PROPERTY_NUM_RUNS ${process.env.PROPERTY_NUM_RUNS ?? `default (${defaults.remotePropertyNumRuns})`}\n`,
  );
  process.stdout.write(
    '| configuration | MUST verified | requests sent (planned) | MUST per request | ' +
      'throttle alone at 80/min | measured wall |\n' +
      '|---|---|---|---|---|---|\n',
  );
  for (const m of rows) {
    process.stdout.write(
      `| ${m.label} | ${m.mustVerified} of ${m.mustTotal} | ${m.sent} (${m.planned}) | ` +
        `${(m.mustVerified / m.sent).toFixed(2)} | ${minutes(m.throttleMs)} | ${minutes(m.wallMs)} |\n`,
    );
  }
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench:remote-budget: ${(error as Error).message}\n`);
    process.exitCode = 2;
  });
}
