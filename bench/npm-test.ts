/**
 * Benchmark of `npm test`, the README's command and what `.ci/run` runs after `npm ci` (goal:
 * ≤ 150 s of vitest's Duration and ≤ 300 CPU-seconds on the 2-core machine, chromium and k6
 * already there): BENCH_RUNS runs (default 3), each with vitest's JSON reporter beside the usual
 * ones; for each its Duration, wall time, the CPU seconds of the whole process tree (the
 * comparable figure on a shared machine) and the closing `tests:` line; then the medians, and each
 * test file's own time in the last run, longest first.
 *
 *   npm run bench:npm-test                 # from a fresh clone: git clone … && npm ci && npm run bench:npm-test
 *   BENCH_RUNS=1 npm run bench:npm-test
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { childrenCpuSeconds, load, stolenCpuSeconds, stolenSince } from './cpu.ts';
import { intFromEnv } from './options.ts';
import { recordResult } from './results.ts';

const GOAL_S = 150;
const GOAL_CPU_S = 300;
const root = join(import.meta.dirname, '..');

interface FileResult {
  name: string;
  startTime: number;
  endTime: number;
  status: string;
}

interface Run {
  readonly status: number | null;
  /** vitest's own Duration (its closing summary), else the wall time of npm test. */
  readonly duration: number;
  readonly wall: number;
  readonly cpu: number | undefined;
  readonly stolen: string;
  readonly closing: string;
  readonly files: FileResult[];
}

function runOnce(): Run {
  const dir = mkdtempSync(join(tmpdir(), 'occ-bench-npm-test-'));
  const json = join(dir, 'vitest.json');
  const cpuBefore = childrenCpuSeconds();
  const stealBefore = stolenCpuSeconds();
  const started = performance.now();
  const result = spawnSync(
    'npm',
    [
      'test',
      '--',
      '--reporter=default',
      '--reporter=./harness/report/closing-line.ts',
      '--reporter=json',
      `--outputFile.json=${json}`,
    ],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      timeout: 1_800_000,
      env: { ...process.env, CI: 'true' },
    },
  );
  const wall = (performance.now() - started) / 1000;
  const cpuAfter = childrenCpuSeconds();
  const stdout = `${result.stdout ?? ''}`.replace(/\x1b\[[0-9;]*m/g, '');
  const duration = Number(/Duration\s+([\d.]+)s/.exec(stdout)?.[1] ?? wall);
  let files: FileResult[] = [];
  try {
    files = (JSON.parse(readFileSync(json, 'utf8')) as { testResults: FileResult[] }).testResults;
  } catch {
    // No JSON report: the run failed before vitest wrote it; its closing line says why.
  }
  rmSync(dir, { recursive: true, force: true });
  return {
    status: result.status,
    duration,
    wall,
    cpu: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
    stolen: stolenSince(stealBefore),
    closing:
      stdout
        .split('\n')
        .filter((line) => line.startsWith('tests: '))
        .at(-1) ?? '(no tests: line)',
    files,
  };
}

/** Each file's own wall time and when it ran, from the first file's start: what ends last is the critical path. */
function printFiles(files: readonly FileResult[]): void {
  if (files.length === 0) return;
  const first = Math.min(...files.map((f) => f.startTime));
  const rows = files
    .map((f) => ({
      file: relative(root, f.name),
      s: (f.endTime - f.startTime) / 1000,
      from: (f.startTime - first) / 1000,
    }))
    .sort((a, b) => b.s - a.s);
  process.stdout.write(
    'per file in the last run (its own wall time, and from when to when after the first file started):\n',
  );
  for (const f of rows)
    process.stdout.write(
      `  ${f.s.toFixed(1).padStart(6)} s  ${f.from.toFixed(0).padStart(4)}–` +
        `${(f.from + f.s).toFixed(0).padEnd(4)} ${f.file}\n`,
    );
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const runs: Run[] = [];
const count = intFromEnv('BENCH_RUNS', 3);
const loadBefore = load();
for (let i = 1; i <= count; i++) {
  const run = runOnce();
  runs.push(run);
  const cpu = run.cpu === undefined ? '' : `, ${run.cpu.toFixed(0)} CPU-s`;
  process.stdout.write(
    `run ${i}/${count}: Duration ${run.duration.toFixed(1)} s (${run.wall.toFixed(1)} s wall${cpu}${run.stolen}), ` +
      `exit ${run.status}; ${run.closing}\n`,
  );
}
printFiles(runs.at(-1)!.files);
const green = runs.every((run) => run.status === 0);
const durations = runs.map((run) => run.duration);
const cpus = runs.flatMap((run) => (run.cpu === undefined ? [] : [run.cpu]));
const medianCpu = cpus.length === 0 ? undefined : median(cpus);
const met = green && median(durations) <= GOAL_S && (medianCpu === undefined || medianCpu <= GOAL_CPU_S);
const summary =
  `median Duration ${median(durations).toFixed(1)} s (${durations.map((d) => d.toFixed(1)).join(', ')} s)` +
  (medianCpu === undefined
    ? ''
    : `, median ${medianCpu.toFixed(0)} CPU-s (${cpus.map((c) => c.toFixed(0)).join(', ')})`) +
  ` over ${runs.length} run(s), ${green ? 'every run exit 0' : 'NOT every run exit 0'}; last: ${runs.at(-1)!.closing}`;
process.stdout.write(`npm test: ${summary}; load ${loadBefore} before, ${load()} after\n`);
recordResult({
  goal:
    `\`npm test\`, what \`.ci/run\` runs after \`npm ci\` (chromium and k6 already there): ≤ ${GOAL_S} s ` +
    `Duration and ≤ ${GOAL_CPU_S} CPU-s, median of ${runs.length}`,
  command: 'npm run bench:npm-test',
  figure: `${met ? 'met' : 'not met'}: ${summary}`,
});
process.exitCode = green ? 0 : 1;
