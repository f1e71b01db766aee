/**
 * Benchmark of `npm test`, the README's command and what `.ci/run` runs after `npm ci` (goal:
 * ≤ 3 minutes on the 2-core machine with chromium and k6 already there): one run, with vitest's
 * JSON reporter beside the usual ones, then its wall time, the CPU seconds of the whole process
 * tree (the comparable figure on a shared machine), the load average before and after, the closing
 * `tests:` line, and each test file's own time, longest first.
 *
 *   npm run bench:npm-test
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { childrenCpuSeconds, load, stolenCpuSeconds, stolenSince } from './cpu.ts';
import { recordResult } from './results.ts';

const GOAL_S = 180;
const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'occ-bench-npm-test-'));
const json = join(dir, 'vitest.json');

const loadBefore = load();
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
const seconds = (performance.now() - started) / 1000;
const cpuAfter = childrenCpuSeconds();
const cpuSpent =
  cpuBefore === undefined || cpuAfter === undefined ? '' : `, ${(cpuAfter - cpuBefore).toFixed(0)} s CPU`;
const cpu = `${cpuSpent}${stolenSince(stealBefore)}`;
const closing =
  `${result.stdout ?? ''}`
    .split('\n')
    .filter((line) => line.startsWith('tests: '))
    .at(-1) ?? '(no tests: line)';

interface FileResult {
  name: string;
  startTime: number;
  endTime: number;
  status: string;
}
try {
  const results = (JSON.parse(readFileSync(json, 'utf8')) as { testResults: FileResult[] }).testResults;
  const first = Math.min(...results.map((f) => f.startTime));
  const files = results
    .map((f) => ({
      file: relative(root, f.name),
      s: (f.endTime - f.startTime) / 1000,
      from: (f.startTime - first) / 1000,
      status: f.status,
    }))
    .sort((a, b) => b.s - a.s);
  // When each file ran, from the first file's start: what ends last is the run's critical path.
  process.stdout.write(
    'per file (its own wall time, and from when to when after the first file started; files run side by side):\n',
  );
  for (const f of files)
    process.stdout.write(
      `  ${f.s.toFixed(1).padStart(6)} s  ${f.from.toFixed(0).padStart(4)}–${(f.from + f.s).toFixed(0).padEnd(4)} ` +
        `${f.file}${f.status === 'passed' ? '' : `  (${f.status})`}\n`,
    );
} catch (error) {
  process.stdout.write(`no per-file figures: ${(error as Error).message}\n`);
}
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `npm test: ${seconds.toFixed(1)} s wall${cpu}, exit ${result.status}, ` +
    `load ${loadBefore} before, ${load()} after; ${closing} (goal ≤ ${GOAL_S} s)\n`,
);
recordResult({
  goal: `\`npm test\`, what \`.ci/run\` runs after \`npm ci\` (chromium and k6 already there): ≤ ${GOAL_S / 60} min`,
  command: 'npm run bench:npm-test',
  figure:
    `${result.status === 0 && seconds <= GOAL_S ? 'met' : 'not met'}: ` +
    `${seconds.toFixed(1)} s wall${cpu}, exit ${result.status}; ${closing}`,
});
process.exitCode = result.status === 0 ? 0 : 1;
