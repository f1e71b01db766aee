import { describe, expect, it } from 'vitest';
import { buildReport, exitCodeOf, judgeRequirement, type ReportInput } from '../../../harness/report/model.ts';
import { failedRequirementsText } from '../../../harness/report/results.ts';
import { requirements } from '../../../requirements/catalogue.ts';
import { checkResult } from './fixtures.ts';

const must = requirements.find((r) => r.id === 'CDRS-WINDOW-MAX-31D')!;
const observe = requirements.find((r) => r.id === 'CDRS-ORDER')!;

function input(checks: ReportInput['checks'], previous: ReportInput['previous'] = []): ReportInput {
  return {
    tool: 't',
    suiteVersion: '1',
    target: { kind: 'embedded', baseUrl: 'x' },
    startedAt: '2026-11-21T10:00:00.000Z',
    durationMs: 5,
    seed: 7,
    dryRun: false,
    checks,
    load: [],
    previous,
    requestsSent: checks.length,
    unhandledErrors: [],
    interrupted: false,
  };
}

describe('requirement verdicts', () => {
  it('an unfinished probe gives no verdict: its requirements are not run (never failed) unless a check decided', () => {
    const enforced = requirements.find((r) => r.id === 'RATE-LIMIT-ENFORCED')!;
    const partial = {
      probe: 'rate-limit',
      passed: false,
      failedThresholds: ['windows_measured count>0'],
      requirements: { 'RATE-LIMIT-ENFORCED': 'failed' as const },
      observations: [],
      notFinished: { reason: 'not run: the run was interrupted while this probe ran', covers: ['RATE-LIMIT-ENFORCED'] },
    };
    const verdict = judgeRequirement(enforced, [], [partial]);
    expect(verdict.status).toBe('not_run');
    expect(verdict.notVerifiableBecause).toEqual([
      'k6 rate-limit: not run: the run was interrupted while this probe ran',
    ]);
    expect(
      judgeRequirement(enforced, [checkResult({ name: 'c', status: 'passed', requirements: [enforced.id] })], [partial])
        .status,
    ).toBe('passed');
    // The same summary from a probe that finished decides the requirement.
    expect(judgeRequirement(enforced, [], [{ ...partial, notFinished: undefined }]).status).toBe('failed');
  });

  it('a MUST fails when any tagged check fails, even if another passed', () => {
    const verdict = judgeRequirement(
      must,
      [
        checkResult({ name: 'a', status: 'passed', requirements: [must.id] }),
        checkResult({ name: 'b', status: 'failed', requirements: [must.id], failure: 'expected 400' }),
      ],
      [],
    );
    expect(verdict.status).toBe('failed');
    expect(verdict.checks).toEqual(['a', 'b']);
  });

  it('per-requirement verdicts fail only the requirements they name; a plain failure fails every tagged one', () => {
    const other = requirements.find((r) => r.id === 'CDRS-COUNT-MATCHES-ROWS')!;
    const split = checkResult({
      name: 'split',
      status: 'failed',
      requirements: [must.id, other.id],
      failedRequirements: [other.id],
      failure: '[CDRS-COUNT-MATCHES-ROWS] count is 8',
    });
    expect(judgeRequirement(other, [split], []).status).toBe('failed');
    expect(judgeRequirement(must, [split], []).status).toBe('passed');
    expect(failedRequirementsText(split)).toBe('failed CDRS-COUNT-MATCHES-ROWS · passed CDRS-WINDOW-MAX-31D');
    const plain = checkResult({
      name: 'plain',
      status: 'failed',
      requirements: [must.id, other.id],
      failure: 'expected 200',
    });
    expect(judgeRequirement(must, [plain], []).status).toBe('failed');
    expect(judgeRequirement(other, [plain], []).status).toBe('failed');
  });

  it('a MUST whose checks were all skipped is not verifiable, with the reasons', () => {
    const verdict = judgeRequirement(
      must,
      [checkResult({ name: 'a', status: 'skipped', requirements: [must.id], skipReason: 'needs TOKEN_READ_CDRS' })],
      [],
    );
    expect(verdict).toMatchObject({ status: 'not_verifiable', notVerifiableBecause: ['needs TOKEN_READ_CDRS'] });
  });

  it('checks an interrupted run never reached are "not run", not "not verifiable", and counted apart', () => {
    const notRun = checkResult({ name: 'a', status: 'not_run', requirements: [must.id, observe.id] });
    expect(judgeRequirement(must, [notRun], [])).toMatchObject({ status: 'not_run', notVerifiableBecause: [] });
    expect(judgeRequirement(observe, [notRun], []).status).toBe('not_run');
    const skipped = checkResult({
      name: 'b',
      status: 'skipped',
      requirements: [must.id],
      skipReason: 'needs TOKEN_READ_CDRS',
    });
    expect(judgeRequirement(must, [notRun, skipped], []).status).toBe('not_verifiable');
    expect(
      judgeRequirement(must, [notRun, checkResult({ name: 'c', status: 'passed', requirements: [must.id] })], [])
        .status,
    ).toBe('passed');
    const report = buildReport({ ...input([notRun]), interrupted: true });
    expect(report.counts.checks).toEqual({ passed: 0, failed: 0, skipped: 0, notRun: 1, waived: 0 });
    expect(report.counts.requirements).toMatchObject({ notRun: 2, notVerifiable: 0 });
  });

  it('an OBSERVE requirement is observed, never failed, and carries its observations', () => {
    const verdict = judgeRequirement(
      observe,
      [
        checkResult({
          name: 'a',
          status: 'passed',
          requirements: [observe.id],
          observations: [
            { requirement: observe.id, text: 'ascending' },
            { requirement: 'OTHER', text: 'x' },
          ],
        }),
      ],
      [],
    );
    expect(verdict).toMatchObject({ status: 'observed', observations: ['ascending'] });
  });

  it('takes a k6 probe verdict for a requirement no suite checks', () => {
    const rate = requirements.find((r) => r.id === 'RATE-LIMIT-ENFORCED')!;
    expect(judgeRequirement(rate, [], []).status).toBe('not_checked');
    const verdict = judgeRequirement(
      rate,
      [],
      [
        {
          probe: 'rate-limit',
          passed: false,
          failedThresholds: ['x'],
          requirements: { 'RATE-LIMIT-ENFORCED': 'failed' },
          observations: [],
        },
      ],
    );
    expect(verdict).toMatchObject({ status: 'failed', source: 'k6 rate-limit' });
  });
});

describe('the run report', () => {
  it('counts checks and requirements and sums the requests', () => {
    const report = buildReport(
      input([
        checkResult({
          name: 'a',
          status: 'passed',
          requirements: [must.id],
          requests: 3,
          rateLimited: 1,
          transport: { failures: 2, retries: 2 },
        }),
        checkResult({
          name: 'b',
          status: 'skipped',
          requirements: ['ME-200-SHAPE'],
          skipReason: 'needs TOKEN_ALL',
          requests: 0,
        }),
      ]),
    );
    expect(report.counts.checks).toEqual({ passed: 1, failed: 0, skipped: 1, waived: 0, notRun: 0 });
    expect(report.counts.requirements).toMatchObject({
      passed: 1,
      failed: 0,
      notVerifiable: 1,
      total: requirements.length,
    });
    // The network's share is summed over the checks, never a verdict: the run still exits 0.
    expect(report.requests).toEqual({ sent: 2, planned: 2, rateLimited: 1, transportFailures: 2, retries: 2 });
    expect(exitCodeOf(report)).toBe(0);
  });

  it('names regressions and fixes against the previous run and keeps the history', () => {
    const previous = buildReport(
      input([
        checkResult({ name: 'a', status: 'passed', requirements: [must.id] }),
        checkResult({ name: 'b', status: 'failed', requirements: ['ME-200-SHAPE'] }),
      ]),
    );
    const now = buildReport({
      ...input(
        [
          checkResult({ name: 'a', status: 'failed', requirements: [must.id] }),
          checkResult({ name: 'b', status: 'passed', requirements: ['ME-200-SHAPE'] }),
        ],
        [previous],
      ),
      startedAt: '2026-11-22T10:00:00.000Z',
    });
    expect(now.regressions).toEqual([must.id]);
    expect(now.fixed).toEqual(['ME-200-SHAPE']);
    expect(now.history.map((h) => h.startedAt)).toEqual(['2026-11-21T10:00:00.000Z', '2026-11-22T10:00:00.000Z']);
    expect(exitCodeOf(now)).toBe(1);
  });

  it('exits 1 on an interrupted run or errors outside checks, 0 on a dry run', () => {
    const clean = input([checkResult({ name: 'a', status: 'passed', requirements: [must.id] })]);
    expect(exitCodeOf(buildReport({ ...clean, interrupted: true }))).toBe(1);
    expect(exitCodeOf(buildReport({ ...clean, unhandledErrors: ['boom'] }))).toBe(1);
    expect(
      exitCodeOf(
        buildReport({
          ...clean,
          dryRun: true,
          checks: [checkResult({ name: 'x', status: 'skipped', requirements: [must.id] })],
        }),
      ),
    ).toBe(0);
  });
});
