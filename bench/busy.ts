/**
 * A command on a busy machine: as many CPU-bound processes as the machine has cores run beside it
 * (each `yes > /dev/null`), and the command runs several times in a row. What it proves is that no
 * verdict depends on how fast the host is: every run must end with exit 0 (`npm test` green, `occ
 * run` with no failed requirement against the embedded reference, the self-proof with every fault
 * caught). Wall times are printed for reference only; they are not the figure.
 *
 *   npm run bench:busy -- --runs 3 -- npm test
 *   npm run bench:busy -- --runs 5 -- npx occ run
 *   npm run bench:busy -- --runs 5 -- npx occ self-proof
 *
 * `--hogs N` sets the number of CPU-bound processes (default: the core count).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordResult } from './results.ts';

interface Options {
  readonly runs: number;
  readonly hogs: number;
  readonly command: readonly string[];
}

function parseOptions(argv: readonly string[]): Options {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  const value = (flag: string, fallback: number): number => {
    const at = own.indexOf(flag);
    if (at < 0) return fallback;
    const n = Number(own[at + 1]);
    if (!Number.isSafeInteger(n) || n < 1) {
      process.stderr.write(`bench:busy: ${flag} takes a positive whole number, got "${own[at + 1] ?? ''}"\n`);
      process.exit(2);
    }
    return n;
  };
  if (command.length === 0) {
    process.stderr.write('bench:busy: name the command after --, e.g. npm run bench:busy -- --runs 3 -- npm test\n');
    process.exit(2);
  }
  return { runs: value('--runs', 3), hogs: value('--hogs', availableParallelism()), command };
}

/** The summary line a run prints last: npm test's closing line, the run's verdict line, the kill rate. */
function summaryOf(output: string): string {
  const lines = output.split('\n').filter((line) => /^(tests: |conformance: \d+ MUST|kill rate)/.test(line));
  return lines.at(-1) ?? '(no summary line)';
}

interface Outcome {
  readonly code: number | null;
  readonly seconds: number;
  readonly summary: string;
  /** The run's whole output, kept in a file for a run that did not exit 0. */
  readonly log: string;
}

const logs = mkdtempSync(join(tmpdir(), 'occ-bench-busy-'));

function runOnce(command: readonly string[], run: number): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), {
      cwd: join(import.meta.dirname, '..'),
      env: { ...process.env, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('close', (code) => {
      const log = join(logs, `run-${run}.log`);
      writeFileSync(log, output);
      resolve({ code, seconds: (performance.now() - started) / 1000, summary: summaryOf(output), log });
    });
  });
}

const options = parseOptions(process.argv.slice(2));
const hogs: ChildProcess[] = Array.from({ length: options.hogs }, () =>
  spawn('sh', ['-c', 'exec yes > /dev/null'], { stdio: 'ignore' }),
);
const stop = () => {
  for (const hog of hogs) hog.kill('SIGKILL');
};
process.on('SIGINT', () => {
  stop();
  process.exit(130);
});

const outcomes: Outcome[] = [];
try {
  for (let run = 1; run <= options.runs; run++) {
    const outcome = await runOnce(options.command, run);
    outcomes.push(outcome);
    process.stdout.write(
      `run ${run}/${options.runs}: exit ${outcome.code}, ${outcome.seconds.toFixed(1)} s wall; ${outcome.summary}` +
        `${outcome.code === 0 ? '' : ` (its output: ${outcome.log})`}\n`,
    );
  }
} finally {
  stop();
}

const passed = outcomes.filter((o) => o.code === 0).length;
const walls = outcomes.map((o) => o.seconds.toFixed(0)).join(', ');
const command = options.command.join(' ');
process.stdout.write(
  `${command}: ${passed} of ${options.runs} runs exit 0 with ${options.hogs} CPU-bound processes beside it\n`,
);
recordResult({
  goal:
    `\`${command}\` on a busy machine (${options.hogs} CPU-bound processes beside it, one per core): ` +
    `every run exits 0, ${options.runs} in a row`,
  command: `npm run bench:busy -- --runs ${options.runs} -- ${command}`,
  figure:
    `${passed === options.runs ? 'met' : 'not met'}: ${passed} of ${options.runs} exit 0 (${walls} s wall); ` +
    `last: ${outcomes.at(-1)?.summary ?? ''}`,
});
process.exitCode = passed === options.runs ? 0 : 1;
