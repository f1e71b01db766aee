/**
 * autocannon for the benchmarks. It ships no types; this is the slice of its API they use.
 */
import { createRequire } from 'node:module';

export interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}

export type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
