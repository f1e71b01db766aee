/**
 * What a faulty network costs a remote run: for each toxic, one full remote run (`occ run
 * --all-probes`: every fixture, `CONTROL_URL`, a receiver) against a second reference process
 * (cli/remote-reference.ts), with Toxiproxy (bench/toxiproxy.ts) in front of all three of the
 * run's paths: the API and the token endpoint (API_BASE_URL, AUTH_URL), the control endpoint
 * (CONTROL_URL), and the webhook path (WEBHOOK_PUBLIC_URL is the proxy's port; the receiver
 * listens on RECEIVER_PORT behind it, so the reference's deliveries cross the proxy). Each run's
 * report.json gives its row: exit code, checks failed, MUST not verifiable, MUST passed against the
 * clean network's run, and the transport failures and retries when the report counts them.
 *
 *   npm run bench:network-faults [-- --toxics clean,reset_peer,slicer] [-- --runs 1] [-- --only <ids>]
 *                                [-- --faults id,id] [-- --reports-dir <dir>] [-- --seed 1] [-- --limit-s 900]
 *
 * --only is passed to `occ run --only`. --faults: a sample of the fault catalogue (reference/faults.ts,
 * reference/post-hoc-faults.ts), all switched on in one more reference per toxic and run; a fault is
 * caught under a toxic when that run exits 1 having failed a requirement the fault `violates` that
 * the fault-free run under the same toxic did not fail (the network alone does not count as a catch).
 * The faults are on together: pick ones whose requirements and paths differ (a wrong signature
 * makes every delivery refused, so a webhook fault beside it would say nothing).
 *
 * Bounded: every process on loopback (127.0.0.0/8, checked), every run under --limit-s, its whole
 * process group killed on overrun. The table goes to stdout and to bench/RESULTS.md (a row of its
 * table, keyed by the command, and the section below it).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { entryPoint, packageRoot } from '../cli/package-root.ts';
import {
  type RemoteReference,
  remoteRunEnvironment,
  startRemoteReference,
  throughRoutes,
} from '../cli/remote-reference.ts';
import type { RunReport } from '../harness/report/model.ts';
import { faults } from '../reference/faults.ts';
import { postHocFaults } from '../reference/post-hoc-faults.ts';
import { RESULTS_FILE, recordResult } from './results.ts';
import { loopbackAddress, startToxiproxy, type ToxicSpec, toxiproxyBinary } from './toxiproxy.ts';

/** Toxics both ways: the target's and the receiver's request parsers see them as much as the client does. */
const both = (toxic: Omit<ToxicSpec, 'stream'>): ToxicSpec[] => [
  { ...toxic, stream: 'downstream' },
  { ...toxic, stream: 'upstream' },
];

/**
 * The toxics measured, each applied to every proxy (API, control, webhook). Toxicity is drawn
 * once per connection, so with keep-alive a `reset_peer` at 0.05 resets about 5 % of connections,
 * not of requests. `limit_data` closes a connection after that many bytes towards the client, in
 * total over its requests: a large CDR list is always cut, a run of small answers now and then.
 */
export const TOXICS: Readonly<Record<string, readonly ToxicSpec[]>> = {
  clean: [],
  reset_peer: [{ type: 'reset_peer', stream: 'downstream', toxicity: 0.05, attributes: { timeout: 0 } }],
  timeout: [{ type: 'timeout', stream: 'downstream', toxicity: 0.03, attributes: { timeout: 2000 } }],
  slicer: both({ type: 'slicer', attributes: { average_size: 24, size_variation: 8, delay: 200 } }),
  bandwidth: both({ type: 'bandwidth', attributes: { rate: 64 } }),
  latency: [{ type: 'latency', stream: 'downstream', attributes: { latency: 60, jitter: 20 } }],
  limit_data: [{ type: 'limit_data', stream: 'downstream', attributes: { bytes: 131_072 } }],
};

/** A run's hang guard: a full remote run takes about 4 minutes; a slow toxic several times that. */
const DEFAULT_LIMIT_S = 900;
/** How long a run's process group has after SIGTERM (its sweep of the target) before SIGKILL. */
const KILL_GRACE_MS = 15_000;

/**
 * What a TCP proxy in front of the auth host makes every run fail, the clean one included: the
 * RFC 8414 metadata names the reference's own origin as issuer and token endpoint, and a TCP
 * proxy cannot rewrite it as a reverse proxy with forwarded-host headers would. Waived in every
 * run (`occ run --waivers`), so the exit code and the checks failed speak of the toxic alone.
 */
export const PROXY_WAIVERS = {
  waivers: ['AUTH-OAUTH-DISCOVERY', 'AUTH-OAUTH-METADATA-TOKEN-ENDPOINT'].map((requirement) => ({
    requirement,
    reason: 'bench/network-faults.ts: Toxiproxy in front of the auth host; the metadata names the host behind it',
  })),
};

export interface Options {
  readonly toxics: readonly string[];
  readonly runs: number;
  readonly only?: string;
  readonly faults: readonly string[];
  readonly reportsDir?: string;
  readonly seed: number;
  readonly limitS: number;
}

export interface Outcome {
  readonly toxic: string;
  /** 1-based, of --runs. */
  readonly run: number;
  /** The faults the reference had on (none: the toxic's own figure). */
  readonly faults: readonly string[];
  readonly exitCode: number | null;
  readonly report?: RunReport;
  readonly problem?: string;
  readonly wallMs: number;
}

/**
 * Every fault id either catalogue knows, with the requirements it violates; a post-hoc fault names
 * none (it was written to find out what catches it): any MUST requirement counts for it.
 */
const violated = new Map<string, readonly string[] | undefined>([
  ...faults.map((fault): [string, readonly string[]] => [fault.id, fault.violates]),
  ...postHocFaults.map((fault): [string, undefined] => [fault.id, undefined]),
]);

const list = (text: string | undefined): string[] => text?.split(',').filter((item) => item !== '') ?? [];

/** The options from argv; a wrong one throws one line naming what it takes. */
export function parseOptions(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      toxics: { type: 'string', default: Object.keys(TOXICS).join(',') },
      runs: { type: 'string', default: '1' },
      only: { type: 'string' },
      faults: { type: 'string' },
      'reports-dir': { type: 'string' },
      seed: { type: 'string', default: '1' },
      'limit-s': { type: 'string', default: String(DEFAULT_LIMIT_S) },
    },
    strict: true,
  });
  const whole = (name: string, text: string, min: number) => {
    if (!/^[0-9]+$/.test(text) || Number(text) < min) throw new Error(`--${name} must be a whole number >= ${min}`);
    return Number(text);
  };
  const toxics = list(values.toxics);
  const unknown = toxics.filter((name) => TOXICS[name] === undefined);
  if (toxics.length === 0 || unknown.length > 0)
    throw new Error(`--toxics takes some of ${Object.keys(TOXICS).join(', ')} (got "${values.toxics}")`);
  const sample = list(values.faults);
  const unknownFaults = sample.filter((id) => !violated.has(id));
  if (unknownFaults.length > 0) throw new Error(`--faults: no such fault: ${unknownFaults.join(', ')}`);
  return {
    toxics,
    runs: whole('runs', values.runs, 1),
    ...(values.only === undefined ? {} : { only: values.only }),
    faults: sample,
    ...(values['reports-dir'] === undefined ? {} : { reportsDir: values['reports-dir'] }),
    seed: whole('seed', values.seed, 0),
    limitS: whole('limit-s', values['limit-s'], 10),
  };
}

/**
 * Runs `occ run` in its own process group, to its end or its time limit: then SIGTERM to the group
 * (the run sweeps what it left on the target), SIGKILL after a grace. Resolves with its exit code
 * (null when killed) and the tail of its stderr.
 */
function runOcc(args: readonly string[], env: NodeJS.ProcessEnv, limitMs: number) {
  return new Promise<{ code: number | null; stderr: string; overran: boolean }>((resolve) => {
    const child = spawn(process.execPath, [entryPoint('commands/run'), ...args], {
      env,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let overran = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2_000);
    });
    const group = (signal: NodeJS.Signals) => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, signal);
    };
    const orphanGuard = () => group('SIGKILL');
    process.once('exit', orphanGuard);
    let grace: NodeJS.Timeout | undefined;
    const limit = setTimeout(() => {
      overran = true;
      group('SIGTERM');
      grace = setTimeout(() => group('SIGKILL'), KILL_GRACE_MS);
    }, limitMs);
    child.once('close', (code) => {
      clearTimeout(limit);
      clearTimeout(grace);
      process.off('exit', orphanGuard);
      resolve({ code, stderr, overran });
    });
  });
}

/**
 * Toxiproxy in front of the reference's three paths, each with `toxics`: the environment of a
 * remote run through them, and the server to stop after the run.
 */
async function behindToxiproxy(reference: RemoteReference, toxics: readonly ToxicSpec[]) {
  const apiUpstream = loopbackAddress(new URL(reference.fixtures.baseUrl).host);
  const controlUpstream = loopbackAddress(new URL(reference.fixtures.controlUrl).host);
  const server = await startToxiproxy(toxiproxyBinary({ build: true }));
  try {
    const api = await server.createProxy('api', apiUpstream);
    const control = await server.createProxy('control', controlUpstream);
    const webhook = await server.createProxy('webhook', `127.0.0.1:${reference.env.RECEIVER_PORT}`);
    for (const proxy of [api, control, webhook]) for (const toxic of toxics) await server.addToxic(proxy.name, toxic);
    const origin = (scheme: string, port: number) => `${scheme}://127.0.0.1:${port}`;
    const routes = {
      api: origin('http', api.port),
      auth: origin('http', api.port),
      control: origin('http', control.port),
      webhook: origin('https', webhook.port),
    };
    const env = { ...remoteRunEnvironment(reference), ...throughRoutes(reference.env, routes) };
    return { env, server };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** One run of `occ run --all-probes` under `toxic`, against a fresh reference with `faultIds` on. */
async function measure(
  toxic: string,
  run: number,
  faultIds: readonly string[],
  dir: string,
  options: Options,
): Promise<Outcome> {
  const started = performance.now();
  const reference = await startRemoteReference({ faults: faultIds });
  try {
    const { env, server } = await behindToxiproxy(reference, TOXICS[toxic]!);
    // A report left in the folder by an earlier invocation must never stand for this run's.
    rmSync(join(dir, 'latest'), { recursive: true, force: true });
    const waivers = `${dir}-waivers.json`;
    writeFileSync(waivers, JSON.stringify(PROXY_WAIVERS));
    const args = ['--all-probes', '--seed', String(options.seed), '--reports-dir', dir, '--waivers', waivers];
    if (options.only !== undefined) args.push('--only', options.only);
    try {
      const { code, stderr, overran } = await runOcc(args, env, options.limitS * 1000);
      const outcome = { toxic, run, faults: faultIds, exitCode: code, wallMs: performance.now() - started };
      const why = overran ? `killed after ${options.limitS} s` : stderr.trim().split('\n').at(-1);
      try {
        const report = JSON.parse(readFileSync(join(dir, 'latest', 'report.json'), 'utf8')) as RunReport;
        return { ...outcome, report, ...(overran ? { problem: why } : {}) } satisfies Outcome;
      } catch {
        return { ...outcome, problem: `no report (exit ${code}): ${why}` } satisfies Outcome;
      }
    } finally {
      await server.stop();
    }
  } finally {
    await reference.close();
  }
}

const withStatus = (report: RunReport, status: string, level?: string) =>
  report.requirements.filter((r) => r.status === status && (level === undefined || r.level === level)).map((r) => r.id);

/** What the network broke and what was sent again, as report.json's `requests` counts them; else —. Pure. */
export function transportCell(report: RunReport | undefined): string {
  const requests = report?.requests as Partial<RunReport['requests']> | undefined;
  const { transportFailures, retries } = requests ?? {};
  if (typeof transportFailures !== 'number' || typeof retries !== 'number') return '—';
  return `${transportFailures} broken, ${retries} sent again`;
}

/** MUST passed, against the clean network's run when there is one: the count and what it lost. Pure. */
export function passedCell(report: RunReport, clean: RunReport | undefined): string {
  const passed = withStatus(report, 'passed', 'MUST');
  if (clean === undefined) return String(passed.length);
  const lost = withStatus(clean, 'passed', 'MUST').filter((id) => !passed.includes(id));
  const named = lost.length === 0 ? '' : ` (not: ${lost.slice(0, 4).join(', ')}${lost.length > 4 ? ', …' : ''})`;
  return `${passed.length} of the clean run's ${passed.length + lost.length}${named}`;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
const runLabel = (o: Outcome, runs: number) => `\`${o.toxic}\`${runs > 1 ? ` #${o.run}` : ''}`;

/** The table of the fault-free runs, one row each. Pure. */
export function networkTable(outcomes: readonly Outcome[], runs: number): string {
  const plain = outcomes.filter((o) => o.faults.length === 0);
  const clean = plain.find((o) => o.toxic === 'clean' && o.report !== undefined)?.report;
  const rows = plain.map((o) => {
    const exit = o.exitCode === null ? 'killed' : String(o.exitCode);
    const problem = o.problem === undefined ? '' : ` (${o.problem.replace(/\|/g, '/')})`;
    if (o.report === undefined)
      return `| ${runLabel(o, runs)} | ${exit}${problem} | — | — | — | — | — | ${seconds(o.wallMs)} |`;
    const notRun = o.report.counts.requirements.notRun;
    const notRunNote = notRun > 0 ? ` (+${notRun} not run)` : '';
    const notVerifiable = `${withStatus(o.report, 'not_verifiable', 'MUST').length}${notRunNote}`;
    return (
      `| ${runLabel(o, runs)} | ${exit}${problem} | ${o.report.counts.checks.failed} | ` +
      `${withStatus(o.report, 'failed', 'MUST').length} | ${notVerifiable} | ` +
      `${passedCell(o.report, clean)} | ${transportCell(o.report)} | ${seconds(o.wallMs)} |`
    );
  });
  return [
    '| toxic | exit code | checks failed | MUST failed | MUST not verifiable | MUST passed (vs the clean run) | ' +
      'transport | wall |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/**
 * Whether the faulted run caught `fault`: it exited 1 having failed a requirement the fault
 * violates (any MUST for a post-hoc fault) that the fault-free run under the same toxic did not. Pure.
 */
export function faultVerdict(fault: string, faulted: Outcome, baseline: Outcome | undefined): string {
  if (faulted.report === undefined) return '— (no report)';
  if (baseline?.report === undefined) return '— (no fault-free run to compare)';
  const before = withStatus(baseline.report, 'failed');
  const candidates = violated.get(fault) ?? withStatus(faulted.report, 'failed', 'MUST');
  const by = withStatus(faulted.report, 'failed').filter((id) => candidates.includes(id) && !before.includes(id));
  return faulted.exitCode === 1 && by.length > 0 ? `caught (${by.slice(0, 3).join(', ')})` : 'missed';
}

/** Fault × toxic: caught or missed in each faulted run. Pure. */
export function faultTable(outcomes: readonly Outcome[], runs: number): string {
  const faulted = outcomes.filter((o) => o.faults.length > 0);
  const ids = [...new Set(faulted.flatMap((o) => o.faults))];
  const baseline = (o: Outcome) =>
    outcomes.find((b) => b.faults.length === 0 && b.toxic === o.toxic && b.run === o.run);
  return [
    `| fault | ${faulted.map((o) => runLabel(o, runs)).join(' | ')} |`,
    `|---|${faulted.map(() => '---|').join('')}`,
    ...ids.map((id) => `| \`${id}\` | ${faulted.map((o) => faultVerdict(id, o, baseline(o))).join(' | ')} |`),
  ].join('\n');
}

/** The command as a user types it for these options (the row's key): the defaults left out. Pure. */
export function commandOf(options: Options): string {
  const args = [
    ...(options.toxics.join(',') === Object.keys(TOXICS).join(',') ? [] : ['--toxics', options.toxics.join(',')]),
    ...(options.runs === 1 ? [] : ['--runs', String(options.runs)]),
    ...(options.only === undefined ? [] : ['--only', options.only]),
    ...(options.faults.length === 0 ? [] : ['--faults', options.faults.join(',')]),
    ...(options.seed === 1 ? [] : ['--seed', String(options.seed)]),
  ];
  return `npm run bench:network-faults${args.length === 0 ? '' : ` -- ${args.join(' ')}`}`;
}

/** The commit measured: its short hash, marked when tracked files differ from it. */
function commitMeasured(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: packageRoot, encoding: 'utf8' }).trim();
  try {
    const changed = git('status', '--porcelain', '--untracked-files=no') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${changed ? '+changes' : ''}`;
  } catch {
    return 'an unknown commit';
  }
}

/**
 * The markers of the section one command writes: each command (set of options) keeps its own
 * section, as it keeps its own row, so a run with --faults does not erase the other toxics' table.
 */
export function sectionMarkers(command: string): { start: string; end: string } {
  return { start: `<!-- network faults: ${command} -->`, end: `<!-- end of network faults: ${command} -->` };
}

/** The section of bench/RESULTS.md this bench writes for these options, between its markers. Pure. */
export function networkSection(outcomes: readonly Outcome[], options: Options, commit: string): string {
  const faulted = outcomes.some((o) => o.faults.length > 0);
  const markers = sectionMarkers(commandOf(options));
  return [
    markers.start,
    '',
    `## Network faults (Toxiproxy): \`${commandOf(options)}\``,
    '',
    'Each row: one `occ run --all-probes` against a second reference process (every fixture, a receiver,',
    '`CONTROL_URL`), Toxiproxy in front of the API and token endpoint, the control endpoint and the webhook',
    'path, the toxic on each (bench/network-faults.ts, `TOXICS`). "transport": the failures and retries',
    'the report counts (— when it does not count them). Waived in every run: the two OAuth metadata',
    `requirements a TCP proxy in front of the auth host fails (\`PROXY_WAIVERS\`). Measured at ${commit}.`,
    '',
    networkTable(outcomes, options.runs),
    ...(faulted
      ? ['', 'Faults switched on together, caught under each toxic:', '', faultTable(outcomes, options.runs)]
      : []),
    '',
    markers.end,
  ].join('\n');
}

/** `markdown` with the section of `command` replaced (or added at its end). Pure. */
export function withSection(markdown: string, command: string, section: string): string {
  const { start: open, end: close } = sectionMarkers(command);
  const start = markdown.indexOf(open);
  const end = markdown.indexOf(close);
  if (start === -1 || end === -1) return `${markdown.trimEnd()}\n\n${section}\n`;
  return `${markdown.slice(0, start)}${section}${markdown.slice(end + close.length)}`;
}

/** The figure of the results row: each toxic's exit, checks failed and MUST passed, in one line. Pure. */
export function figureOf(outcomes: readonly Outcome[], commit: string): string {
  const parts = outcomes
    .filter((o) => o.faults.length === 0)
    .map((o) =>
      o.report === undefined
        ? `${o.toxic}: exit ${o.exitCode ?? 'killed'}, no report`
        : `${o.toxic}: exit ${o.exitCode ?? 'killed'}, ${o.report.counts.checks.failed} checks failed, ` +
          `${withStatus(o.report, 'passed', 'MUST').length} MUST passed`,
    );
  return `at ${commit}: ${parts.join('; ')} (per toxic: the network-faults table below)`;
}

const GOAL =
  'a full remote run (every fixture, a receiver, `CONTROL_URL`, `--all-probes`) per network toxic, Toxiproxy in ' +
  'front of the API, the control endpoint and the webhook path: under every toxic 0 checks failed and at least ' +
  "90 % of the clean run's MUST requirements passed; a sample of faults still caught";

/** Every run the options ask for, in order: per toxic and run, the fault-free one, then the faulted one. */
async function measureAll(options: Options, work: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const toxic of options.toxics)
    for (let run = 1; run <= options.runs; run++)
      for (const faultIds of options.faults.length === 0 ? [[]] : [[], options.faults]) {
        const dir = join(work, `${toxic}-${run}${faultIds.length === 0 ? '' : '-faults'}`);
        mkdirSync(dir, { recursive: true });
        const o = await measure(toxic, run, faultIds, dir, options);
        outcomes.push(o);
        const failed = o.report === undefined ? o.problem : `${o.report.counts.checks.failed} checks failed`;
        process.stdout.write(
          `${toxic} #${run}${faultIds.length === 0 ? '' : ' (faults on)'}: exit ${o.exitCode ?? 'killed'}, ` +
            `${failed}, ${seconds(o.wallMs)}\n`,
        );
      }
  return outcomes;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  // A signal ends the bench through process.exit, so that every child's exit guard runs: the run
  // has a process group of its own, which Ctrl-C at the terminal does not reach.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      process.stderr.write(`bench:network-faults: ${signal}, stopping the run, the proxy and the reference\n`);
      process.exit(130);
    });
  const commit = commitMeasured();
  // Built (or found) before the first run, so that a missing Go toolchain stops the bench at once.
  toxiproxyBinary({ build: true });
  const work = options.reportsDir ?? mkdtempSync(join(tmpdir(), 'occ-network-faults-'));
  let outcomes: Outcome[];
  try {
    outcomes = await measureAll(options, work);
  } finally {
    if (options.reportsDir === undefined) rmSync(work, { recursive: true, force: true });
  }
  const section = networkSection(outcomes, options, commit);
  process.stdout.write(`\n${section}\n`);
  recordResult({ goal: GOAL, command: commandOf(options), figure: figureOf(outcomes, commit) });
  writeFileSync(RESULTS_FILE, withSection(readFileSync(RESULTS_FILE, 'utf8'), commandOf(options), section));
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench:network-faults: ${(error as Error).message}\n`);
    process.exitCode = 2;
  });
}
