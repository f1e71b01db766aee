/**
 * Benchmark (not a test): `npm run bench:reference` [env BENCH_SECONDS=10, BENCH_CONNECTIONS=32,
 * BENCH_PIPELINING=1].
 *
 * Starts the reference server in a CHILD process (`node reference/cli.ts --json --rate-limit 0`,
 * so its memory is its own), reads the fixtures line, then runs autocannon in this process
 * against GET /v1/me with a valid token. Reports requests/s, latency p50/p99, non-2xx, and the
 * server's RSS (VmRSS and VmHWM from /proc/<pid>/status) before and after the run.
 * Goals on a 2-core machine: >= 15,000 requests/s, p99 < 5 ms, server RSS < 150 MB.
 * Exit code 0 even when a goal is missed (it is a measurement); the verdict is printed.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { autocannon } from './autocannon.ts';
import { intFromEnv } from './options.ts';
import { recordResult } from './results.ts';

const seconds = intFromEnv('BENCH_SECONDS', 10);
const connections = intFromEnv('BENCH_CONNECTIONS', 32);
const pipelining = intFromEnv('BENCH_PIPELINING', 1);

function memory(pid: number): { rssMb: number; hwmMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

const cli = fileURLToPath(new URL('../reference/cli.ts', import.meta.url));
const child = spawn(process.execPath, [cli, '--json', '--rate-limit', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const fixtures = await new Promise<{ baseUrl: string; tokens: { all: string } }>((resolve, reject) => {
  let buffer = '';
  const timer = setTimeout(
    () => reject(new Error('the reference server did not print its fixtures within 15 s')),
    15_000,
  );
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const newline = buffer.indexOf('\n');
    if (newline >= 0) {
      clearTimeout(timer);
      child.stdout.resume();
      try {
        resolve(JSON.parse(buffer.slice(0, newline)));
      } catch (e) {
        reject(e);
      }
    }
  });
  child.once('exit', (code) => reject(new Error(`the reference server exited (${code}) before printing its fixtures`)));
});
child.stdout.removeAllListeners('data');
child.stdout.resume();

try {
  const before = memory(child.pid!);
  const url = `${fixtures.baseUrl}/me`;
  const headers = { authorization: `Bearer ${fixtures.tokens.all}` };
  // Warm-up (JIT), not measured.
  await autocannon({ url, headers, connections, pipelining, duration: 2 });
  const result = await autocannon({ url, headers, connections, pipelining, duration: seconds });
  const after = memory(child.pid!);
  const rps = result.requests.average;
  const p99 = result.latency.p99;
  const lines = [
    `GET /v1/me, ${connections} connections, pipelining ${pipelining}, ${seconds} s (after a 2 s warm-up)`,
    `  requests/s   ${rps.toFixed(0)} (total ${result.requests.total})            ` +
      `goal >= 15000: ${rps >= 15_000 ? 'met' : 'MISSED'}`,
    `  latency      p50 ${result.latency.p50} ms, p99 ${p99} ms, mean ${result.latency.average} ms   ` +
      `goal p99 < 5 ms: ${p99 < 5 ? 'met' : 'MISSED'}`,
    `  non-2xx      ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}`,
    `  server RSS   ${before.rssMb.toFixed(1)} MB idle (seeded), ${after.rssMb.toFixed(1)} MB after, ` +
      `peak ${after.hwmMb.toFixed(1)} MB   goal < 150 MB: ${after.hwmMb < 150 ? 'met' : 'MISSED'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  // The goals are for the default load: a run with other options is printed, not recorded.
  if (seconds === 10 && connections === 32 && pipelining === 1) {
    recordResult({
      goal: 'reference server, GET /v1/me, rate limit off, 32 connections: ≥ 15,000 req/s, p99 < 5 ms, RSS < 150 MB',
      command: 'npm run bench:reference',
      figure:
        `${rps >= 15_000 && p99 < 5 && after.hwmMb < 150 ? 'met' : 'not met'}: ` +
        `${Math.round(rps).toLocaleString('en-US')} req/s, p99 ${p99} ms, ` +
        `RSS ${before.rssMb.toFixed(0)} MB idle, ${after.hwmMb.toFixed(0)} MB peak`,
    });
  }
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => {
    const force = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(undefined);
    }, 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve(undefined);
    });
  });
}
