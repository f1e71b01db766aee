/**
 * `occ load merge <dir> [--out dir]`: ONE verdict from the runner summaries found in a directory
 * (k6-<probe>.runner-<i>-of-<N>.json, e.g. collected from a k6-operator TestRun's volume), written
 * as a single probe's k6-<probe>.json and .junit.xml. Exit 0 passed, 99 thresholds crossed, 1 not
 * run (a runner missing or stopped early), 2 bad arguments or no runner summary in the directory.
 *
 * `occ load k6-operator-manifest --out <dir> --parallelism N …`: the TestRun and the ConfigMap of
 * the scripts (./k6-operator.ts); `--help` lists its options.
 */
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { mergedLine, readRunnerResults, writeMerged } from './local.ts';
import { mergeRunners, runnerFiles } from './merge.ts';

const MERGE_USAGE = 'usage: occ load merge <dir> [--out dir]   (default --out: <dir>)';

export function merge(argv: readonly string[]): number {
  const config = {
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  } satisfies ParseArgsConfig;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (e) {
    process.stderr.write(`load merge: ${(e as Error).message.split('\n')[0]}; ${MERGE_USAGE}\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(`${MERGE_USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    process.stderr.write(`load merge: name one directory; ${MERGE_USAGE}\n`);
    return 2;
  }
  const dir = resolve(parsed.positionals[0]!);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    process.stderr.write(`load merge: ${dir} is not a directory\n`);
    return 2;
  }
  const byProbe = runnerFiles(readdirSync(dir));
  if (byProbe.size === 0) {
    process.stderr.write(`load merge: no runner summary (k6-<probe>.runner-<i>-of-<N>.json) in ${dir}\n`);
    return 2;
  }
  const out = resolve(parsed.values.out ?? dir);
  mkdirSync(out, { recursive: true });
  let code = 0;
  for (const [probe, files] of byProbe) {
    const counts = [...new Set(files.map((f) => f.count))];
    if (counts.length > 1) {
      process.stderr.write(
        `load merge: ${dir} holds ${probe} runners of different runs (of ${counts.join(', of ')}): ` +
          "keep one run's files\n",
      );
      return 2;
    }
    const merged = mergeRunners(readRunnerResults(dir, probe, counts[0]!));
    const result = writeMerged(out, merged);
    process.stderr.write(`${mergedLine(merged)}\n  report: ${out}/k6-${probe}.json, ${out}/k6-${probe}.junit.xml\n`);
    // Not run outranks failed, which outranks passed.
    code = result === 1 || code === 1 ? 1 : Math.max(code, result);
  }
  return code;
}

export async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'merge') return merge(argv.slice(1));
  return (await import('./k6-operator.ts')).main(argv.slice(1));
}
