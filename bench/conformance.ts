/**
 * Benchmark of the main job: wall time of a full `npm run conformance` against the embedded
 * reference server (goal ≤ 10 s on the 2-core machine), and of the whole fault catalogue
 * (`npm run self-proof`, goal ≤ 120 s).
 *
 *   npm run bench:conformance            # BENCH_RUNS=3 by default
 *   BENCH_SKIP_FAULTS=1 npm run bench:conformance
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true' };
delete env.API_BASE_URL;
delete env.AUTH_URL;

function timed(args: string[]): { seconds: number; code: number | null; last: string } {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env, encoding: 'utf8', timeout: 600_000 });
  const lines = `${result.stdout}`.trim().split('\n');
  return { seconds: (performance.now() - started) / 1000, code: result.status, last: lines.filter((l) => /^(conformance|kill rate):/.test(l)).join(' | ') };
}

const walls: number[] = [];
for (let i = 0; i < runs; i += 1) {
  const reports = mkdtempSync(join(tmpdir(), 'occ-bench-'));
  const { seconds, code, last } = timed(['cli/conformance.ts', '--reports-dir', reports]);
  rmSync(reports, { recursive: true, force: true });
  walls.push(seconds);
  process.stdout.write(`run ${i + 1}: ${seconds.toFixed(2)} s wall, exit ${code}  ${last}\n`);
}
walls.sort((a, b) => a - b);
process.stdout.write(`npm run conformance (embedded): median ${walls[Math.floor(walls.length / 2)]!.toFixed(2)} s, best ${walls[0]!.toFixed(2)} s, worst ${walls.at(-1)!.toFixed(2)} s over ${runs} runs (goal ≤ 10 s)\n`);

if (process.env.BENCH_SKIP_FAULTS !== '1') {
  const { seconds, code, last } = timed(['cli/fault-catalogue.ts']);
  process.stdout.write(`npm run self-proof (whole fault catalogue): ${seconds.toFixed(1)} s wall, exit ${code}  ${last} (goal ≤ 120 s)\n`);
}
