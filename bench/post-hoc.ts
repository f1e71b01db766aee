/**
 * How well the method generalises: for each post-hoc fault
 * (reference/post-hoc-faults.ts, written after the operators, never tuned for), ONE full run of
 * the suite against a reference with that fault on, and one Schemathesis run against the same
 * process; caught or missed, side by side.
 *
 * The mode is the realistic one, a staging deployment: the reference as a SEPARATE PROCESS
 * (cli/remote-reference.ts) reached only through the variables a staging team sets (every
 * fixture, a receiver it delivers to, CONTROL_URL), enforcing the spec's 100 requests per a
 * documented 2.5 s window (RATE_LIMIT_WINDOW_MS), the run with `--all-probes --with-load`: the
 * configuration in which no MUST requirement is left not verifiable (bench/variable-unlocks.ts).
 *
 *   caught by the suite   the run exits 1 with a MUST requirement failed that the unfaulted
 *                         reference passed in the same configuration (checked first: a baseline
 *                         that fails stops the bench, so a catch is never noise);
 *   caught by Schemathesis  `schemathesis run openapi.json --url <base> --checks all` with the
 *                         fixture token of every scope, seed --seed, --max-examples per operation,
 *                         one worker, under the stand-in's limit, reports a failure (check code ×
 *                         operation) or an error that two runs against the unfaulted reference
 *                         (after its suite run, as each faulted one) did not.
 *
 * Schemathesis is not a dependency of the suite: install it from PyPI, e.g.
 *   python3 -m venv .venv-st && .venv-st/bin/pip install schemathesis==4.32.5
 * and pass `--schemathesis .venv-st/bin/schemathesis` (default: `schemathesis` on PATH).
 *
 *   npm run bench:post-hoc [-- --set post-hoc|rfc|rfc2] [-- --only id,id] [-- --concurrency 2] [-- --seed 1]
 *                          [-- --examples 100] [-- --schemathesis <command>] [-- --no-schemathesis]
 *                          [-- --keep <dir>]
 *
 * `--set` picks the list: `post-hoc` (the default, reference/post-hoc-faults.ts, written from the
 * spec's sentences), `rfc` (reference/post-hoc-faults-rfc.ts, written from the MUSTs of the
 * standards the spec stands on) or `rfc2` (reference/post-hoc-faults-rfc2.ts, more of those, written
 * after the protocol lint and the relations landed); each set has its own section of
 * bench/RESULTS.md and its own row.
 *
 * About four minutes per fault (the webhook watch holds a run for its 180 s), two at once by
 * default; every process on loopback, every run under a time limit. The figure goes to
 * bench/RESULTS.md: the totals as a row of its table, each fault in the post-hoc table below it.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { parseArgs } from 'node:util';
import { machineEnvironment } from '../cli/machine-environment.ts';
import { entryPoint, packageRoot } from '../cli/package-root.ts';
import { type RemoteReference, remoteRunEnvironment, startRemoteReference } from '../cli/remote-reference.ts';
import type { RunReport } from '../harness/report/model.ts';
import { postHocFaults, type PostHocFault } from '../reference/post-hoc-faults.ts';
import { rfcPostHocFaults } from '../reference/post-hoc-faults-rfc.ts';
import { rfc2PostHocFaults } from '../reference/post-hoc-faults-rfc2.ts';
import { RESULTS_FILE, recordResult } from './results.ts';

/** The stand-in's documented window: the spec's 100 requests per 2.5 s. */
const RATE_WINDOW_MS = 2_500;
const SUITE_ARGS = ['--all-probes', '--with-load'];
/** Schemathesis' own pace, under the stand-in's 100 per 2.5 s (a team sets it so against staging). */
const SCHEMATHESIS_RATE = '30/s';
const SUITE_RUN_MS = 15 * 60_000;
const SCHEMATHESIS_RUN_MS = 5 * 60_000;
const INSTALL =
  'install it from PyPI, e.g. `python3 -m venv .venv-st && .venv-st/bin/pip install schemathesis==4.32.5`, ' +
  'then pass `--schemathesis .venv-st/bin/schemathesis` (or run with --no-schemathesis)';

interface SuiteRun {
  readonly exitCode: number | null;
  /** MUST requirements the run failed. */
  readonly mustFailed: readonly string[];
  readonly problem?: string;
}

interface SchemathesisRun {
  /** `<check code> <operation>` of each failure, `error <title> <operation>` of each error. */
  readonly findings: readonly string[];
  readonly exitCode: number | null;
  readonly problem?: string;
}

export interface PostHocVerdict {
  /** `standard`: the RFC section a fault of the rfc set breaks (its column in that set's table). */
  readonly fault: Pick<PostHocFault, 'id' | 'class'> & { readonly standard?: string };
  /** MUST requirements failed that the baseline passed; caught when any and the run exited 1. */
  readonly suite: { readonly caught: boolean; readonly by: readonly string[]; readonly problem?: string };
  readonly schemathesis?: { readonly caught: boolean; readonly by: readonly string[]; readonly problem?: string };
}

/** The MUST requirements a report failed. Pure. */
export function mustFailed(report: Pick<RunReport, 'requirements'>): string[] {
  return report.requirements.filter((r) => r.level === 'MUST' && r.status === 'failed').map((r) => r.id);
}

/** The suite's verdict: a MUST failed that the baseline did not, and exit 1. Pure. */
export function suiteVerdict(run: SuiteRun, baseline: SuiteRun): PostHocVerdict['suite'] {
  const by = run.mustFailed.filter((id) => !baseline.mustFailed.includes(id));
  return { caught: run.exitCode === 1 && by.length > 0, by, ...(run.problem ? { problem: run.problem } : {}) };
}

/** Schemathesis' verdict: a finding no baseline run had. Pure. */
export function schemathesisVerdict(
  run: SchemathesisRun,
  baselines: readonly SchemathesisRun[],
): NonNullable<PostHocVerdict['schemathesis']> {
  const seen = new Set(baselines.flatMap((b) => b.findings));
  const by = run.findings.filter((finding) => !seen.has(finding));
  return { caught: by.length > 0, by, ...(run.problem ? { problem: run.problem } : {}) };
}

/** The findings of a Schemathesis JSON report (`--report json`). Pure. */
export function schemathesisFindings(report: {
  failures?: ReadonlyArray<{ code?: string; operations?: readonly string[] }>;
  errors?: ReadonlyArray<{ title?: string; type?: string; operations?: readonly string[]; operation?: string }>;
}): string[] {
  const failures = (report.failures ?? []).flatMap((f) => (f.operations ?? []).map((op) => `${f.code} ${op}`));
  const errors = (report.errors ?? []).flatMap((e) =>
    (e.operations ?? [e.operation ?? '']).map((op) => `error ${e.title ?? e.type} ${op}`.trim()),
  );
  return [...new Set([...failures, ...errors])].sort();
}

/** Runs a child process to its end (or its time limit); resolves with its exit code and the tail of stderr. */
function run(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  limitMs: number,
  cwd?: string,
): Promise<{ code: number | null; stderr: string; missing?: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'], ...(cwd ? { cwd } : {}) });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2_000);
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), limitMs);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ code: null, stderr: error.message, missing: error.code === 'ENOENT' });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

async function suiteRun(reference: RemoteReference, dir: string, seed: number): Promise<SuiteRun> {
  const args = [entryPoint('commands/run'), ...SUITE_ARGS, '--seed', String(seed), '--reports-dir', dir];
  const { code, stderr } = await run(process.execPath, args, remoteRunEnvironment(reference), SUITE_RUN_MS);
  try {
    const report = JSON.parse(readFileSync(join(dir, 'latest', 'report.json'), 'utf8')) as RunReport;
    const problem = report.interrupted ? `the run was cut short (exit ${code})` : undefined;
    return { exitCode: code, mustFailed: mustFailed(report), ...(problem ? { problem } : {}) };
  } catch {
    return { exitCode: code, mustFailed: [], problem: `no report (exit ${code}): ${stderr.trim().split('\n').at(-1)}` };
  }
}

interface SchemathesisOptions {
  readonly command: string;
  readonly seed: number;
  readonly examples: number;
}

/** The arguments of one Schemathesis run against `baseUrl` (the token is the fixture of every scope). Pure. */
export function schemathesisArgs(baseUrl: string, token: string, options: SchemathesisOptions, file: string): string[] {
  return [
    'run',
    join(packageRoot, 'openapi.json'),
    '--url',
    baseUrl,
    '--checks',
    'all',
    '-H',
    `Authorization: Bearer ${token}`,
    '--seed',
    String(options.seed),
    '--max-examples',
    String(options.examples),
    '--workers',
    '1',
    '--rate-limit',
    SCHEMATHESIS_RATE,
    '--generation-database',
    'none',
    '--no-color',
    '--report',
    'json',
    '--report-json-path',
    file,
  ];
}

async function schemathesisRun(reference: RemoteReference, file: string, options: SchemathesisOptions) {
  const token = reference.fixtures.tokens.all;
  if (token === undefined) throw new Error('the reference printed no token with every scope ("all")');
  const args = schemathesisArgs(reference.fixtures.baseUrl, token, options, file);
  // The stand-in's window turns once after the suite's k6 burst, so Schemathesis starts under the limit.
  await new Promise((resolve) => setTimeout(resolve, RATE_WINDOW_MS + 500));
  // In the run's own folder: Schemathesis leaves a .schemathesis/ cache where it runs.
  const { code, stderr, missing } = await run(
    options.command,
    args,
    machineEnvironment(),
    SCHEMATHESIS_RUN_MS,
    dirname(file),
  );
  if (missing) throw new Error(`Schemathesis not found as "${options.command}": ${INSTALL}`);
  try {
    const findings = schemathesisFindings(JSON.parse(readFileSync(file, 'utf8')));
    return { exitCode: code, findings } satisfies SchemathesisRun;
  } catch {
    const why = stderr.trim().split('\n').at(-1) ?? '';
    return { exitCode: code, findings: [], problem: `no report (exit ${code}): ${why}` } satisfies SchemathesisRun;
  }
}

/** One stand-in with `faults` on: the suite's full run, then Schemathesis `times` times against the same process. */
async function measure(
  faults: readonly string[],
  dir: string,
  seed: number,
  schemathesis: SchemathesisOptions | undefined,
  times = 1,
): Promise<{ suite: SuiteRun; schemathesis: SchemathesisRun[] }> {
  mkdirSync(dir, { recursive: true });
  const reference = await startRemoteReference({ faults, rateWindowMs: RATE_WINDOW_MS });
  try {
    const suite = await suiteRun(reference, join(dir, 'suite'), seed);
    const runs: SchemathesisRun[] = [];
    for (let i = 0; schemathesis !== undefined && i < times; i++)
      runs.push(await schemathesisRun(reference, join(dir, `schemathesis-${i}.json`), schemathesis));
    return { suite, schemathesis: runs };
  } finally {
    await reference.close();
  }
}

/** The command a set's figures are recorded under (the key of its row). Pure. */
export function benchCommand(set: PostHocSet['name'], schemathesis: string | undefined): string {
  const flags = [
    ...(set === 'post-hoc' ? [] : ['--set', set]),
    ...(schemathesis === undefined || schemathesis === 'schemathesis' ? [] : ['--schemathesis', '<path>']),
  ];
  return `npm run bench:post-hoc${flags.length > 0 ? ` -- ${flags.join(' ')}` : ''}`;
}

const yes = (caught: boolean | undefined) => (caught === undefined ? '—' : caught ? 'caught' : 'missed');
const percent = (n: number, of: number) => `${n}/${of} (${((100 * n) / Math.max(1, of)).toFixed(1)} %)`;

export const POST_HOC_START = '<!-- post-hoc faults: written by bench/post-hoc.ts -->';
export const POST_HOC_END = '<!-- end of post-hoc faults -->';
export const RFC_START = '<!-- post-hoc rfc faults: written by bench/post-hoc.ts -->';
export const RFC_END = '<!-- end of post-hoc rfc faults -->';
export const RFC2_START = '<!-- post-hoc rfc2 faults: written by bench/post-hoc.ts -->';
export const RFC2_END = '<!-- end of post-hoc rfc2 faults -->';

/** A list of faults the bench measures, and where and how its figures are written. */
export interface PostHocSet {
  readonly name: 'post-hoc' | 'rfc' | 'rfc2';
  readonly faults: ReadonlyArray<PostHocVerdict['fault']>;
  readonly start: string;
  readonly end: string;
  readonly title: string;
  /** The paragraph under the title, one line each. */
  readonly intro: readonly string[];
  /** Whether the table has a column of the standard each fault breaks. */
  readonly standards: boolean;
  /** The goal of its row in the results table. */
  readonly goal: string;
}

const HOW =
  'Each: one full run of the suite against a second reference process with that fault on (every fixture, a ' +
  'receiver, `CONTROL_URL`, the stand-in enforcing 100 requests per 2.5 s, `--all-probes --with-load`), then ' +
  'one Schemathesis run against the same process; in brackets, what failed that the unfaulted reference passed: ' +
  'MUST requirements (ours, the first three) or check code × operation (Schemathesis).';

export const postHocSets: Readonly<Record<PostHocSet['name'], PostHocSet>> = {
  'post-hoc': {
    name: 'post-hoc',
    faults: postHocFaults,
    start: POST_HOC_START,
    end: POST_HOC_END,
    title: 'Post-hoc faults: caught in one run each',
    intro: [
      'Faults written after the near-miss operators, in classes none was designed for',
      '(`reference/post-hoc-faults.ts`; what the misses say: docs/near-misses.md, "Measured on faults',
      'written after the operators"). Each: one full run of the suite against a second reference process',
      'with that fault on (every fixture, a receiver, `CONTROL_URL`, the stand-in enforcing 100 requests per',
      '2.5 s, `--all-probes --with-load`), then one Schemathesis run against the same process; in',
      'brackets, what failed that the unfaulted reference passed: MUST requirements (ours, the first',
      'three) or check code × operation (Schemathesis).',
    ],
    standards: false,
    goal:
      'post-hoc faults (written after the operators, classes none was designed for): caught in one full run each ' +
      '(a second reference process, every fixture, `CONTROL_URL`, `--all-probes --with-load`), beside Schemathesis ' +
      '4.x `--checks all` on the same faults; per fault in the table below',
  },
  rfc: {
    name: 'rfc',
    faults: rfcPostHocFaults,
    start: RFC_START,
    end: RFC_END,
    title: 'Post-hoc faults from the standards (RFC set): caught in one run each',
    intro: [
      'A second held-out set, written from the MUST-level requirements of the standards the spec stands on',
      '(RFC 9110, 9112, 8259, 6749, 6750, 8414, 3339; the webhook sender as an HTTP client), in classes',
      'neither operators/, reference/faults.ts nor the first post-hoc set covers',
      '(`reference/post-hoc-faults-rfc.ts`: each names its section and quotes its sentence). The suite was',
      `not changed for them. ${HOW}`,
    ],
    standards: true,
    goal:
      'post-hoc faults from the standards (RFC 9110/9112/8259/6749/6750/8414/3339 MUSTs, the webhook sender ' +
      'included): caught in one full run each (a second reference process, every fixture, `CONTROL_URL`, ' +
      '`--all-probes --with-load`), beside Schemathesis 4.x `--checks all`; per fault in the RFC table below',
  },
  rfc2: {
    name: 'rfc2',
    faults: rfc2PostHocFaults,
    start: RFC2_START,
    end: RFC2_END,
    title: 'Post-hoc faults from the standards, third set (rfc2): caught in one run each',
    intro: [
      'A third held-out set, written after issue 45 built the protocol lint, the relations and the',
      '"every element of a kind" operators, from the MUSTs of RFC 9110, 9112, 6749, 8414 and 9562 and the',
      'webhook sender as an HTTP client (`reference/post-hoc-faults-rfc2.ts`: each names its section and',
      `quotes its sentence). The suite was not changed for them. ${HOW}`,
    ],
    standards: true,
    goal:
      'post-hoc faults from the standards, third set (RFC 9110/9112/6749/8414/9562 MUSTs, written after issue ' +
      "45's build): caught in one full run each (a second reference process, every fixture, `CONTROL_URL`, " +
      '`--all-probes --with-load`), beside Schemathesis 4.x `--checks all`; per fault in the rfc2 table below',
  },
};

/** A set's table of bench/RESULTS.md, between its markers. Pure. */
export function postHocSection(
  verdicts: readonly PostHocVerdict[],
  commands: readonly string[],
  set: PostHocSet = postHocSets['post-hoc'],
): string {
  const suite = verdicts.filter((v) => v.suite.caught).length;
  const st = verdicts.filter((v) => v.schemathesis?.caught).length;
  const rows = verdicts.map((v) => {
    const by = (list: readonly string[] | undefined) => (list?.length ? ` (${list.slice(0, 3).join(', ')})` : '');
    const problem = (p: string | undefined) => (p ? ` — ${p.replace(/\|/g, '/')}` : '');
    const standard = set.standards ? ` ${v.fault.standard ?? '—'} |` : '';
    return (
      `| \`${v.fault.id}\` |${standard} ${v.fault.class} | ` +
      `${yes(v.suite.caught)}${by(v.suite.by)}${problem(v.suite.problem)} | ` +
      `${yes(v.schemathesis?.caught)}${by(v.schemathesis?.by)}${problem(v.schemathesis?.problem)} |`
    );
  });
  return [
    set.start,
    '',
    `## ${set.title}`,
    '',
    ...set.intro,
    '',
    `Totals: **the suite ${percent(suite, verdicts.length)}**, **Schemathesis ${percent(st, verdicts.length)}**.`,
    '',
    ...commands.map((command) => `- \`${command}\``),
    '',
    set.standards
      ? '| fault | standard | class | the suite, one run | Schemathesis, one run |'
      : '| fault | class | the suite, one run | Schemathesis, one run |',
    set.standards ? '|---|---|---|---|---|' : '|---|---|---|---|',
    ...rows,
    '',
    set.end,
  ].join('\n');
}

/** `markdown` with a set's section replaced (or added at its end); the other set's is left as it is. Pure. */
export function withPostHocSection(
  markdown: string,
  section: string,
  set: Pick<PostHocSet, 'start' | 'end'> = postHocSets['post-hoc'],
): string {
  const start = markdown.indexOf(set.start);
  const end = markdown.indexOf(set.end);
  if (start === -1 || end === -1) return `${markdown.trimEnd()}\n\n${section}\n`;
  return `${markdown.slice(0, start)}${section}${markdown.slice(end + set.end.length)}`;
}

/**
 * A command given as a path made absolute against `cwd`: Schemathesis runs in each run's own
 * folder, where a relative path (`.venv-st/bin/schemathesis`) names nothing. A bare name is
 * left to PATH. Pure.
 */
export function resolvedCommand(command: string, cwd: string = process.cwd()): string {
  return command.includes('/') ? resolvePath(cwd, command) : command;
}

/** The set `--set` names. Pure. */
export function postHocSetNamed(name: string): PostHocSet {
  if (name !== 'post-hoc' && name !== 'rfc' && name !== 'rfc2')
    throw new Error(`--set must be post-hoc, rfc or rfc2, got "${name}"`);
  return postHocSets[name];
}

function options() {
  const { values } = parseArgs({
    options: {
      set: { type: 'string', default: 'post-hoc' },
      only: { type: 'string' },
      concurrency: { type: 'string', default: '2' },
      seed: { type: 'string', default: '1' },
      examples: { type: 'string', default: '100' },
      schemathesis: { type: 'string', default: 'schemathesis' },
      'no-schemathesis': { type: 'boolean', default: false },
      keep: { type: 'string' },
    },
    strict: true,
  });
  const whole = (name: string, text: string, min: number, max: number) => {
    const n = Number(text);
    if (!/^[0-9]+$/.test(text) || n < min || n > max)
      throw new Error(`--${name} must be ${min} to ${max}, got "${text}"`);
    return n;
  };
  const set = postHocSetNamed(values.set);
  const only = values.only?.split(',').filter((id) => id !== '');
  const unknown = only?.filter((id) => !set.faults.some((f) => f.id === id)) ?? [];
  if (unknown.length > 0) throw new Error(`not a fault of the ${set.name} set: ${unknown.join(', ')}`);
  const seed = whole('seed', values.seed, 0, 2 ** 31);
  return {
    set,
    faults: set.faults.filter((f) => only === undefined || only.includes(f.id)),
    concurrency: whole('concurrency', values.concurrency, 1, 4),
    seed,
    schemathesis: values['no-schemathesis']
      ? undefined
      : { command: resolvedCommand(values.schemathesis), seed, examples: whole('examples', values.examples, 1, 1000) },
    keep: values.keep,
  };
}

async function main(): Promise<void> {
  const o = options();
  const work = o.keep ?? mkdtempSync(join(tmpdir(), 'occ-post-hoc-'));
  const started = performance.now();
  try {
    if (o.schemathesis !== undefined) {
      const probe = await run(o.schemathesis.command, ['--version'], machineEnvironment(), 60_000);
      if (probe.missing || probe.code !== 0)
        throw new Error(`Schemathesis not found as "${o.schemathesis.command}": ${INSTALL}`);
    }
    process.stdout.write('baseline: the unfaulted reference, same configuration …\n');
    const baseline = await measure([], join(work, 'baseline'), o.seed, o.schemathesis, 2);
    if (baseline.suite.exitCode !== 0 || baseline.suite.mustFailed.length > 0 || baseline.suite.problem)
      throw new Error(
        `the unfaulted reference does not pass (exit ${baseline.suite.exitCode}, MUST failed: ` +
          `${baseline.suite.mustFailed.join(', ') || 'none'}` +
          `${baseline.suite.problem ? `; ${baseline.suite.problem}` : ''}): ` +
          'a catch would be noise',
      );
    process.stdout.write(
      `baseline: suite exit 0, 0 MUST failed; Schemathesis findings on the unfaulted reference: ` +
        `${[...new Set(baseline.schemathesis.flatMap((r) => r.findings))].join('; ') || 'none'}\n`,
    );
    const queue = [...o.faults];
    const verdicts = new Map<string, PostHocVerdict>();
    const slot = async () => {
      for (let fault = queue.shift(); fault !== undefined; fault = queue.shift()) {
        const m = await measure([fault.id], join(work, fault.id), o.seed, o.schemathesis);
        const verdict: PostHocVerdict = {
          fault,
          suite: suiteVerdict(m.suite, baseline.suite),
          ...(m.schemathesis[0] ? { schemathesis: schemathesisVerdict(m.schemathesis[0], baseline.schemathesis) } : {}),
        };
        verdicts.set(fault.id, verdict);
        process.stdout.write(
          `${fault.id.padEnd(44)} suite ${yes(verdict.suite.caught).padEnd(7)} ${verdict.suite.by.join(', ')}` +
            `${verdict.suite.problem ? ` (${verdict.suite.problem})` : ''}  |  Schemathesis ` +
            `${yes(verdict.schemathesis?.caught)} ${verdict.schemathesis?.by.join('; ') ?? ''}` +
            `${verdict.schemathesis?.problem ? ` (${verdict.schemathesis.problem})` : ''}\n`,
        );
      }
    };
    await Promise.all(Array.from({ length: o.concurrency }, slot));
    report(
      o.faults.map((f) => verdicts.get(f.id)!),
      o,
      performance.now() - started,
    );
  } finally {
    if (o.keep === undefined) rmSync(work, { recursive: true, force: true });
  }
}

function report(verdicts: readonly PostHocVerdict[], o: ReturnType<typeof options>, wallMs: number): void {
  const suite = verdicts.filter((v) => v.suite.caught).length;
  const st = verdicts.filter((v) => v.schemathesis?.caught).length;
  const minutes = `${Math.round(wallMs / 60_000)} min`;
  process.stdout.write(
    `\n${o.set.name} faults caught in one run each: the suite ${percent(suite, verdicts.length)}` +
      `${o.schemathesis ? `, Schemathesis ${percent(st, verdicts.length)}` : ''}; ${minutes} wall\n`,
  );
  if (o.faults.length !== o.set.faults.length) return; // a partial bench records nothing
  const command = benchCommand(o.set.name, o.schemathesis?.command);
  const schemathesisCommand =
    `schemathesis run openapi.json --url <base> --checks all -H "Authorization: Bearer <TOKEN_ALL>" ` +
    `--seed ${o.seed} --max-examples ${o.schemathesis?.examples ?? 100} --workers 1 --rate-limit ${SCHEMATHESIS_RATE}`;
  const suiteCommand =
    `npm run conformance:remote-reference -- --rate-window-ms ${RATE_WINDOW_MS} --faults <id> -- ` +
    `${SUITE_ARGS.join(' ')} --seed ${o.seed}`;
  writeFileSync(
    RESULTS_FILE,
    withPostHocSection(
      readFileSync(RESULTS_FILE, 'utf8'),
      postHocSection(verdicts, [command, suiteCommand, schemathesisCommand], o.set),
      o.set,
    ),
  );
  recordResult({
    goal: o.set.goal,
    command,
    figure:
      `the suite ${percent(suite, verdicts.length)}, ` +
      `Schemathesis ${o.schemathesis ? percent(st, verdicts.length) : 'not run'}; ` +
      `seed ${o.seed}, ${o.schemathesis?.examples ?? '—'} examples per operation; ${minutes} wall`,
  });
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench:post-hoc: ${(error as Error).message}\n`);
    process.exitCode = 2;
  });
}
