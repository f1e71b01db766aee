/**
 * bench/network-faults.ts's pure parts: its options, the command that keys its row, and how a
 * row and a fault's verdict are read from report.json (the runs themselves are the benchmark's).
 */
import { describe, expect, it } from 'vitest';
import {
  commandOf,
  faultVerdict,
  networkTable,
  type Outcome,
  parseOptions,
  TOXICS,
  transportCell,
  withSection,
} from '../../bench/network-faults.ts';
import type { RunReport } from '../../harness/report/model.ts';

/** A report with these MUST verdicts, `failed` checks failed, and any extra fields. */
function report(verdicts: Record<string, string>, failed = 0, extra: object = {}): RunReport {
  const requirements = Object.entries(verdicts).map(([id, status]) => ({ id, level: 'MUST', status }));
  return {
    requirements,
    counts: { checks: { failed }, requirements: { notRun: 0 } },
    ...extra,
  } as unknown as RunReport;
}

const outcome = (toxic: string, exitCode: number, r: RunReport, faults: string[] = []): Outcome => ({
  toxic,
  run: 1,
  faults,
  exitCode,
  report: r,
  wallMs: 200_000,
});

describe('bench/network-faults.ts options', () => {
  it('runs every toxic once by default, and its command names no default', () => {
    const options = parseOptions([]);
    expect(options.toxics).toEqual(Object.keys(TOXICS));
    expect(options.runs).toBe(1);
    expect(commandOf(options)).toBe('npm run bench:network-faults');
    expect(commandOf(parseOptions(['--toxics', 'clean,slicer', '--reports-dir', '/tmp/x']))).toBe(
      'npm run bench:network-faults -- --toxics clean,slicer',
    );
  });

  it('refuses a toxic or a fault it does not know, in one line', () => {
    expect(() => parseOptions(['--toxics', 'clean,jitter'])).toThrow(/--toxics takes some of clean, reset_peer/);
    expect(() => parseOptions(['--faults', 'no-such-fault'])).toThrow(/no such fault: no-such-fault/);
    expect(() => parseOptions(['--runs', '0'])).toThrow(/--runs must be a whole number >= 1/);
  });
});

describe('reading the runs', () => {
  it('names the MUST requirements a toxic lost against the clean run', () => {
    const clean = outcome('clean', 0, report({ A: 'passed', B: 'passed' }));
    const reset = outcome('reset_peer', 1, report({ A: 'passed', B: 'failed' }, 2));
    const table = networkTable([clean, reset], 1);
    expect(table).toContain("| `reset_peer` | 1 | 2 | 1 | 0 | 1 of the clean run's 2 (not: B) | — | 200 s |");
  });

  it('prints the transport counts only when the report has them', () => {
    expect(transportCell(report({}))).toBe('—');
    expect(
      transportCell(
        report({}, 0, { requests: { sent: 9, planned: 9, rateLimited: 0, transportFailures: 3, retries: 5 } }),
      ),
    ).toBe('3 broken, 5 sent again');
  });

  it('credits a fault only with what the fault-free run under the same toxic did not fail', () => {
    const baseline = outcome('slicer', 1, report({ 'ME-200-SHAPE': 'passed', X: 'failed' }));
    const caught = outcome('slicer', 1, report({ 'ME-200-SHAPE': 'failed', X: 'failed' }), ['me-missing-field']);
    expect(faultVerdict('me-missing-field', caught, baseline)).toBe('caught (ME-200-SHAPE)');
    const networkOnly = outcome('slicer', 1, report({ 'ME-200-SHAPE': 'failed' }));
    expect(faultVerdict('me-missing-field', caught, networkOnly)).toBe('missed');
    expect(faultVerdict('me-missing-field', { ...caught, exitCode: 0 }, baseline)).toBe('missed');
  });
});

describe("bench/RESULTS.md's network-fault sections", () => {
  it('keeps one section per command: a second command adds its own, the same command replaces its own', () => {
    const section = (command: string, body: string) =>
      `<!-- network faults: ${command} -->\n${body}\n<!-- end of network faults: ${command} -->`;
    const first = withSection('# Results\n', 'npm run a', section('npm run a', 'one'));
    const both = withSection(first, 'npm run b', section('npm run b', 'two'));
    const again = withSection(both, 'npm run a', section('npm run a', 'three'));
    expect(again).toBe(`# Results\n\n${section('npm run a', 'three')}\n\n${section('npm run b', 'two')}\n`);
  });
});
