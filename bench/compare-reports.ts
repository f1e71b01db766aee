/**
 * Whether two runs gave the same verdicts: `node bench/compare-reports.ts <a> <b>`, each a report
 * folder (reports/latest, or one run's folder) or its report.json. Prints every requirement whose
 * status differs and every check whose status differs, is missing from one side or failed other
 * requirements, then one summary line; exit 0 when nothing differs, 1 when something does, 2 when
 * a report cannot be read. Durations, request counts and timestamps are not verdicts and are not
 * compared. Used to prove a restructuring behaviour-preserving: the same seed before and after.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What is compared of a report.json: its verdicts alone. */
export interface Verdicts {
  readonly requirements: readonly { readonly id: string; readonly status: string }[];
  readonly checks: readonly {
    readonly id: string;
    readonly status: string;
    readonly failedRequirements?: readonly string[];
  }[];
}

/** One line per verdict that differs between `a` and `b`, requirements first. Pure. */
export function verdictDifferences(a: Verdicts, b: Verdicts): string[] {
  const lines: string[] = [];
  const compare = (kind: string, left: Map<string, string>, right: Map<string, string>): void => {
    for (const id of [...new Set([...left.keys(), ...right.keys()])].sort()) {
      const before = left.get(id) ?? '(absent)';
      const after = right.get(id) ?? '(absent)';
      if (before !== after) lines.push(`${kind} ${id}: ${before} -> ${after}`);
    }
  };
  compare(
    'requirement',
    new Map(a.requirements.map((r) => [r.id, r.status])),
    new Map(b.requirements.map((r) => [r.id, r.status])),
  );
  const checkVerdict = (c: Verdicts['checks'][number]): string =>
    c.failedRequirements === undefined || c.failedRequirements.length === 0
      ? c.status
      : `${c.status} (failed ${[...c.failedRequirements].sort().join(', ')})`;
  compare(
    'check',
    new Map(a.checks.map((c) => [c.id, checkVerdict(c)])),
    new Map(b.checks.map((c) => [c.id, checkVerdict(c)])),
  );
  return lines;
}

function readReport(path: string): Verdicts {
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, 'report.json') : path;
  return JSON.parse(readFileSync(file, 'utf8')) as Verdicts;
}

function main(argv: readonly string[]): number {
  if (argv.length !== 2) {
    process.stderr.write(
      'usage: node bench/compare-reports.ts <report dir or report.json> <report dir or report.json>\n',
    );
    return 2;
  }
  let a: Verdicts;
  let b: Verdicts;
  try {
    a = readReport(argv[0]!);
    b = readReport(argv[1]!);
  } catch (error) {
    process.stderr.write(`compare-reports: ${(error as Error).message}\n`);
    return 2;
  }
  const differences = verdictDifferences(a, b);
  for (const line of differences) process.stdout.write(`${line}\n`);
  process.stdout.write(
    `compare-reports: ${a.requirements.length} requirements and ${a.checks.length} checks against ` +
      `${b.requirements.length} and ${b.checks.length}: ` +
      `${differences.length === 0 ? 'identical verdicts' : `${differences.length} verdicts differ`}\n`,
  );
  return differences.length === 0 ? 0 : 1;
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
