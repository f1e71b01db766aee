/**
 * Benchmark options from the environment (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_PIPELINING):
 * a bad value stops the benchmark with one line and exit code 2.
 */
export function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) {
    process.stderr.write(`bench: ${name}="${raw}" must be a positive integer\n`);
    process.exit(2);
  }
  return n;
}
