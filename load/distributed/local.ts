/**
 * `occ load rate-limit --runners N`: N k6 processes on this machine, each with its execution
 * segment (the same flags k6-operator gives its runners) and its own source address
 * (`--local-ips`: 127.0.0.2 … N+1 on loopback, or the addresses given), then ONE merged verdict
 * (./merge.ts) written where a single probe's goes: k6-rate-limit.json and .junit.xml.
 *
 * Their set-ups start at one agreed instant (START_AT_MS), so the staggered per-IP set-up lines
 * up however long each k6 takes to start. A runner that dies mid-run leaves the merged verdict
 * not run (exit 1); thresholds crossed exit 99, as a single probe does.
 */
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loopbackAddress } from '../../harness/http/source-address.ts';
import { perIpTimeline, runnerSummaryName } from '../lib/runners.ts';
import { mergedJunit, mergeRunners, type MergedSummary, type RunnerResult, type RunnerSummary } from './merge.ts';

/** k6's flags for runner `index` of `count`: exactly what k6-operator's runner jobs get (pkg/segmentation). */
export function segmentFlags(index: number, count: number): string[] {
  const point = (i: number): string => (i === 0 ? '0' : i === count ? '1' : `${i}/${count}`);
  const sequence = Array.from({ length: count + 1 }, (_, i) => point(i)).join(',');
  return [`--execution-segment=${point(index)}:${point(index + 1)}`, `--execution-segment-sequence=${sequence}`];
}

/** The runners' source addresses: the ones given, or 127.0.0.2 … N+1 on loopback. */
export function runnerAddresses(count: number, given: readonly string[] | undefined): string[] {
  if (given !== undefined && given.length > 0) {
    if (given.length !== count)
      throw new RangeError(`--local-ips names ${given.length} address(es) for ${count} runners: give one per runner`);
    return [...given];
  }
  return Array.from({ length: count }, (_, i) => loopbackAddress(i));
}

export type RunOne = (extra: {
  args: string[];
  env: Record<string, string>;
  extraTimeoutMs: number;
}) => Promise<{ code: number; signal?: string | null; stderrTail: string }>;

/** Time the k6 processes get to start before their set-ups begin together. */
export const START_MARGIN_MS = 4_000;

/** Deletes the runner summaries an earlier run left in `dir`: a runner that dies must not be merged with an old one. */
export function clearRunnerSummaries(dir: string, probe: string): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir))
    if (name.startsWith(`k6-${probe}.runner-`)) rmSync(join(dir, name), { force: true });
}

/** Reads the runner summaries of `probe` for `count` runners from `dir` (none for a runner that left none). */
export function readRunnerResults(
  dir: string,
  probe: string,
  count: number,
  ended: ReadonlyMap<number, { code: number | null; signal?: string | null }> = new Map(),
): RunnerResult[] {
  return Array.from({ length: count }, (_, index) => {
    const file = join(dir, `${runnerSummaryName(probe, index, count)}.json`);
    const end = ended.get(index);
    const base = {
      index,
      count,
      file,
      ...(end === undefined ? {} : { exitCode: end.code, signal: end.signal ?? null }),
    };
    if (!existsSync(file)) return base;
    try {
      return { ...base, summary: JSON.parse(readFileSync(file, 'utf8')) as RunnerSummary };
    } catch (error) {
      return { ...base, unreadable: (error as Error).message };
    }
  });
}

/** Writes the merged summary as a single probe's files; returns the exit code a single probe would give. */
export function writeMerged(dir: string, merged: MergedSummary): number {
  writeFileSync(join(dir, `k6-${merged.probe}.json`), `${JSON.stringify(merged, null, 2)}\n`);
  writeFileSync(join(dir, `k6-${merged.probe}.junit.xml`), mergedJunit(merged));
  return merged.notFinished !== undefined ? 1 : merged.passed ? 0 : 99;
}

/** One line for the merged verdict. */
export function mergedLine(merged: MergedSummary): string {
  const n = merged.merged.runners;
  if (merged.notFinished !== undefined)
    return `load: ${merged.probe}: ${n} runners merged: NOT RUN (${merged.notFinished.reason})`;
  const unsure = Object.entries(merged.notVerifiable ?? {})
    .map(([id, why]) => `; ${id} not verifiable: ${why}`)
    .join('');
  const head = `load: ${merged.probe}: ${n} runners merged:`;
  return merged.passed
    ? `${head} PASS, ${merged.thresholds.length} thresholds held on every address${unsure}`
    : `${head} FAILED: thresholds crossed: ${merged.failedThresholds.join('; ')}${unsure}`;
}

export async function runLocalRunners(options: {
  probe: string;
  count: number;
  addresses: readonly string[];
  reportDir: string;
  windowMs: number;
  runOne: RunOne;
}): Promise<number> {
  const { probe, count, addresses, reportDir } = options;
  clearRunnerSummaries(reportDir, probe);
  const startAt = Date.now() + START_MARGIN_MS;
  const extraTimeoutMs = START_MARGIN_MS + perIpTimeline(options.windowMs, count).setupEndMs;
  process.stderr.write(
    `load: ${count} runners from ${addresses.join(', ')}, set-ups starting together in ${START_MARGIN_MS / 1000} s\n`,
  );
  const ends = await Promise.all(
    addresses.map((address, index) =>
      options.runOne({
        args: [...segmentFlags(index, count), `--local-ips=${address}`],
        env: { RUNNERS: String(count), SOURCE_ADDRESS: address, START_AT_MS: String(startAt) },
        extraTimeoutMs,
      }),
    ),
  );
  const ended = new Map(ends.map((end, index) => [index, { code: end.code, signal: end.signal ?? null }]));
  ends.forEach((end, index) => {
    if (end.code === 0 || end.code === 99) return;
    const how = end.signal ?? `exit ${end.code}`;
    const tail = end.stderrTail ? `: ${end.stderrTail.slice(0, 300)}` : '';
    process.stderr.write(`load: runner ${index + 1} of ${count} (${addresses[index]}) ended with ${how}${tail}\n`);
  });
  const merged = mergeRunners(readRunnerResults(reportDir, probe, count, ended));
  const code = writeMerged(reportDir, merged);
  process.stderr.write(`${mergedLine(merged)}\n`);
  return code;
}
