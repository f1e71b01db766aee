/**
 * What each variable unlocks, measured: full conformance runs (properties included) against the
 * reference run as a REMOTE target (a separate process, cli/remote-reference.ts). CONTROL_URL is
 * measured against every fixture; every other group against every fixture WITHOUT CONTROL_URL
 * (what a vendor without the protocol gets: the control states would otherwise stand in for some
 * fixtures). A MUST requirement is unlocked by a group when it is verified (passed or failed)
 * with the group and not without it. Prints the
 * Markdown table README.md carries ("What each variable unlocks"), and the counts of MUST
 * requirements not verifiable; the full configuration's figure goes to bench/RESULTS.md.
 * Each run gets a fresh reference process: a run that advanced the target's virtual clock
 * (clock-advanced) would otherwise move "now" under the next run's CDR window checks. Every run
 * has the same seed (BENCH_SEED, default 1): the event kinds watched, the near-miss probes and
 * the scope matrix rotate by seed, so runs with different seeds would differ by more than the
 * variables. Last, the full configuration (every fixture, CONTROL_URL, --with-load)
 * against a stand-in that enforces the spec's 100 requests per a documented 2.5 s window
 * (RATE_LIMIT_WINDOW_MS), with the watch budgets at their defaults.
 *
 *   npm run bench:variable-unlocks            (about three minutes per run, the default 180 s watch; 10 runs)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entryPoint } from '../cli/package-root.ts';
import { remoteRunEnvironment, startRemoteReference } from '../cli/remote-reference.ts';
import type { RunReport } from '../harness/report/model.ts';
import { recordResult } from './results.ts';

const CONTROL = ['CONTROL_URL', 'CONTROL_TOKEN'];
const groups: ReadonlyArray<{ label: string; variables: readonly string[] }> = [
  {
    label: '`WEBHOOK_PUBLIC_URL` (+ `RECEIVER_*`)',
    variables: ['WEBHOOK_PUBLIC_URL', 'RECEIVER_PORT', 'RECEIVER_TLS_CERT', 'RECEIVER_TLS_KEY'],
  },
  {
    label: '`TOKEN_NO_TRUNK` + `NO_TRUNK_AGENT_ID`, `TOKEN_NO_DIALER` + `NO_DIALER_AGENT_ID`',
    variables: ['TOKEN_NO_TRUNK', 'NO_TRUNK_AGENT_ID', 'TOKEN_NO_DIALER', 'NO_DIALER_AGENT_ID'],
  },
  {
    label: '`NO_TRUNK_AGENT_ID`, `NO_DIALER_AGENT_ID` (the tokens kept)',
    variables: ['NO_TRUNK_AGENT_ID', 'NO_DIALER_AGENT_ID'],
  },
  {
    label: '`ALLOW_ORIGINATE=true` + `TEST_DESTINATION_NUMBER`',
    variables: ['ALLOW_ORIGINATE', 'TEST_DESTINATION_NUMBER'],
  },
  {
    label: '`AUTH_URL` + `OAUTH_CLIENT_ID` + `OAUTH_CLIENT_SECRET` (+ `OAUTH_CLIENT_SCOPES`)',
    variables: ['AUTH_URL', 'OAUTH_CLIENT_ID', 'OAUTH_CLIENT_SECRET', 'OAUTH_CLIENT_SCOPES'],
  },
  { label: '`OAUTH_CLIENT_SCOPES` (the client kept)', variables: ['OAUTH_CLIENT_SCOPES'] },
  {
    label: '`TOKEN_SUSPENDED`, `TOKEN_REVOKED`, `TOKEN_EXPIRED`',
    variables: ['TOKEN_SUSPENDED', 'TOKEN_REVOKED', 'TOKEN_EXPIRED'],
  },
  {
    label: '`TEST_UNPROVISIONED_AGENT_ID`, `FOREIGN_AGENT_ID`',
    variables: ['TEST_UNPROVISIONED_AGENT_ID', 'FOREIGN_AGENT_ID'],
  },
];

const seed = process.env.BENCH_SEED ?? '1';

function run(env: NodeJS.ProcessEnv, reportsDir: string, extraArgs: readonly string[] = []): Promise<RunReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [entryPoint('commands/run'), '--reports-dir', reportsDir, '--seed', seed, ...extraArgs],
      { env, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const timer = setTimeout(() => child.kill('SIGTERM'), 1_800_000);
    child.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(readFileSync(join(reportsDir, 'latest', 'report.json'), 'utf8')) as RunReport);
      } catch (error) {
        reject(error);
      }
    });
  });
}

const verifiedMust = (report: RunReport) =>
  new Set(
    report.requirements
      .filter((r) => r.level === 'MUST' && (r.status === 'passed' || r.status === 'failed'))
      .map((r) => r.id),
  );
const must = (report: RunReport, status: string) =>
  report.requirements.filter((r) => r.level === 'MUST' && r.status === status).map((r) => r.id);
const summary = (report: RunReport) =>
  `${must(report, 'passed').length} MUST passed, ${must(report, 'failed').length} failed, ` +
  `${must(report, 'not_verifiable').length} not verifiable; ` +
  `${report.requests.sent} requests, ${report.requests.rateLimited} × 429, ${(report.durationMs / 1000).toFixed(0)} s`;

/** One conformance run against a fresh reference process, without the variables named. */
async function runWithout(variables: readonly string[], reportsDir: string): Promise<RunReport> {
  const reference = await startRemoteReference();
  try {
    const env = remoteRunEnvironment(reference);
    for (const name of variables) delete env[name];
    return await run(env, reportsDir);
  } finally {
    await reference.close();
  }
}

const work = mkdtempSync(join(tmpdir(), 'occ-unlocks-'));
try {
  const row = (label: string, withIt: RunReport, without: RunReport): string => {
    const verified = verifiedMust(without);
    const unlocked = [...verifiedMust(withIt)].filter((id) => !verified.has(id)).sort();
    return `| ${label} | ${unlocked.length} | ${unlocked.join(', ') || '–'} |`;
  };
  const full = await runWithout([], join(work, 'full'));
  process.stdout.write(`every fixture, CONTROL_URL set: ${summary(full)}\n`);
  const noControl = await runWithout(CONTROL, join(work, 'no-control'));
  process.stdout.write(`every fixture, no CONTROL_URL: ${summary(noControl)}\n`);
  process.stdout.write(`  MUST not verifiable without CONTROL_URL: ${must(noControl, 'not_verifiable').join(', ')}\n`);
  process.stdout.write(
    `  the report's missing states: ` +
      `${noControl.controlGaps.map((g) => `${g.capability} (${g.unlocks.length})`).join(', ')}\n`,
  );
  process.stdout.write(`  left to --with-load: ${noControl.loadWouldDecide.join(', ')}\n`);
  const rows = [row('`CONTROL_URL` + `CONTROL_TOKEN`', full, noControl)];
  for (const [index, group] of groups.entries()) {
    const without = await runWithout([...CONTROL, ...group.variables], join(work, String(index)));
    process.stdout.write(`no CONTROL_URL, without ${group.variables.join(', ')}: ${summary(without)}\n`);
    rows.push(row(group.label, noControl, without));
  }
  process.stdout.write(`\n| variable | MUST requirements it unlocks | which |\n|---|---|---|\n${rows.join('\n')}\n`);
  const limited = await startRemoteReference({ rateWindowMs: 2_500 });
  try {
    const began = Date.now();
    const withLoad = await run(remoteRunEnvironment(limited), join(work, 'with-load'), ['--with-load']);
    process.stdout.write(
      `\nevery fixture, CONTROL_URL, --with-load, the stand-in's limit 100 per 2.5 s: ${summary(withLoad)}; ` +
        `${((Date.now() - began) / 1000).toFixed(0)} s with the probes\n`,
    );
    process.stdout.write(
      `  MUST not verifiable: ${must(withLoad, 'not_verifiable').join(', ') || 'none'}; ` +
        `failed: ${must(withLoad, 'failed').join(', ') || 'none'}\n`,
    );
    // Recorded for the default seed, the one the README's table is measured with.
    if (seed === '1') {
      const counts = (report: RunReport) =>
        `${must(report, 'passed').length} / ${must(report, 'failed').length} / ` +
        `${must(report, 'not_verifiable').length}`;
      const met = must(withLoad, 'failed').length === 0 && must(withLoad, 'not_verifiable').length === 0;
      recordResult({
        goal:
          'the full configuration (every fixture, `CONTROL_URL`, `--with-load`, ' +
          'against a stand-in enforcing 100 requests per 2.5 s): 0 MUST requirements not verifiable, 0 failed',
        command: 'npm run bench:variable-unlocks',
        figure:
          `${met ? 'met' : 'not met'}: ${counts(withLoad)} MUST passed / failed / not verifiable; ` +
          `every fixture and \`CONTROL_URL\` without \`--with-load\`: ${counts(full)}; ` +
          `without \`CONTROL_URL\`: ${counts(noControl)}`,
      });
    }
  } finally {
    await limited.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
