/**
 * Benchmark of the main job: wall time of a full `npm run conformance` against the embedded
 * reference server (goal ≤ 3 s, median of 5 runs, on the 2-core machine), and of the whole fault
 * catalogue (`npm run self-proof`, goal ≤ 30 s: its long-lived runners, one per core).
 *
 *   npm run bench:conformance            # BENCH_RUNS=5 by default
 *   BENCH_SKIP_FAULTS=1 npm run bench:conformance
 *   BENCH_RUNS=0 npm run bench:conformance     # the self-proof alone
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childrenCpuSeconds, load, stolenCpuSeconds, stolenSince } from './cpu.ts';
import { recordResult } from './results.ts';

// The goals: a whole embedded run, median of 5, on a quiet host; the whole catalogue.
const RUN_GOAL_S = 3;
const SELF_PROOF_GOAL_S = 30;
const runs = Number(process.env.BENCH_RUNS ?? 5);
const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true' };
delete env.API_BASE_URL;
delete env.AUTH_URL;

/** CPU seconds the host may steal from a run before its wall time stops being this machine's figure. */
const STOLEN_TOLERANCE_S = 0.2;

function timed(args: string[]): {
  seconds: number;
  cpu: string;
  stolen: number | undefined;
  code: number | null;
  last: string;
} {
  const started = performance.now();
  const cpuBefore = childrenCpuSeconds();
  const stealBefore = stolenCpuSeconds();
  const result = spawnSync(process.execPath, args, { env, encoding: 'utf8', timeout: 600_000 });
  const cpuAfter = childrenCpuSeconds();
  const lines = `${result.stdout}`.trim().split('\n');
  const stealAfter = stolenCpuSeconds();
  const cpuSpent =
    cpuBefore === undefined || cpuAfter === undefined ? '' : `, ${(cpuAfter - cpuBefore).toFixed(1)} s CPU`;
  const cpu = `${cpuSpent}${stolenSince(stealBefore, stealAfter)}`;
  const stolen = stealBefore === undefined || stealAfter === undefined ? undefined : stealAfter - stealBefore;
  return {
    seconds: (performance.now() - started) / 1000,
    cpu,
    stolen,
    code: result.status,
    last: lines.filter((l) => /^(conformance|kill rate):/.test(l)).join(' | '),
  };
}

process.stdout.write(`load average ${load()} (1, 5, 15 min) before the runs\n`);

const walls: number[] = [];
let stolenRuns = 0;
for (let i = 0; i < runs; i += 1) {
  const reports = mkdtempSync(join(tmpdir(), 'occ-bench-'));
  // What `npm run conformance` runs: occ, whose start-up (the compile cache it turns on) is part of the run.
  const { seconds, cpu, stolen, code, last } = timed(['commands/occ.ts', 'run', '--reports-dir', reports]);
  rmSync(reports, { recursive: true, force: true });
  walls.push(seconds);
  if (stolen !== undefined && stolen > STOLEN_TOLERANCE_S) stolenRuns += 1;
  process.stdout.write(`run ${i + 1}: ${seconds.toFixed(2)} s wall${cpu}, exit ${code}, load ${load()}  ${last}\n`);
}
walls.sort((a, b) => a - b);
// BENCH_RUNS=0: the self-proof alone.
if (runs > 0) {
  const median = walls[Math.floor(walls.length / 2)]!;
  process.stdout.write(
    `npm run conformance (embedded): median ${median.toFixed(2)} s, best ${walls[0]!.toFixed(2)} s, ` +
      `worst ${walls.at(-1)!.toFixed(2)} s over ${runs} runs (goal ≤ ${RUN_GOAL_S} s, median of 5)\n`,
  );
  // The figure is the machine's only while the host gives it its cores: say so on the summary line's heels.
  if (stolenRuns > 0)
    process.stdout.write(
      `  ${stolenRuns} of ${runs} runs lost more than ${STOLEN_TOLERANCE_S} s of CPU to the host (steal): ` +
        `a busier host, not this machine's figure; compare runs that lost none\n`,
    );
  // The goal is a median of 5: other run counts are printed, not recorded.
  if (runs === 5) {
    recordResult({
      goal: `full \`npm run conformance\`, embedded target: ≤ ${RUN_GOAL_S} s wall, median of 5 runs`,
      command: 'npm run bench:conformance',
      figure:
        `${median <= RUN_GOAL_S ? 'met' : 'not met'}: median ${median.toFixed(2)} s ` +
        `(${walls[0]!.toFixed(2)}–${walls.at(-1)!.toFixed(2)} s over ${runs} runs); ` +
        `${stolenRuns === 0 ? 'no run' : `${stolenRuns} of ${runs} runs`} lost more than ${STOLEN_TOLERANCE_S} s ` +
        'of CPU to the host',
    });
  }
}

if (process.env.BENCH_SKIP_FAULTS !== '1') {
  const loadBefore = load();
  const { seconds, cpu, code, last } = timed(['commands/occ.ts', 'self-proof']);
  process.stdout.write(
    `npm run self-proof (whole fault catalogue): ${seconds.toFixed(1)} s wall${cpu}, exit ${code}, ` +
      `load ${loadBefore} before, ${load()} after  ${last} (goal ≤ ${SELF_PROOF_GOAL_S} s)\n`,
  );
  recordResult({
    goal: `the whole fault catalogue (\`npm run self-proof\`): ≤ ${SELF_PROOF_GOAL_S} s wall`,
    command: 'BENCH_RUNS=0 npm run bench:conformance',
    figure:
      `${code === 0 && seconds <= SELF_PROOF_GOAL_S ? 'met' : 'not met'}: ` +
      `${seconds.toFixed(1)} s wall${cpu}, exit ${code}; ${last}`,
  });
}
