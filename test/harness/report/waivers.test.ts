/**
 * The waiver rules as pure functions: validation with one-line errors, what a waiver covers,
 * expiry, unused waivers, strict mode, and --update-waivers keeping existing entries untouched.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult, Waiver } from '../../../harness/report/results.ts';
import { buildReport, exitCodeOf } from '../../../harness/report/model.ts';
import { applyWaivers, parseWaivers, WaiverError, withFailuresAdded } from '../../../harness/report/waivers.ts';

function check(name: string, status: CheckResult['status'], requirements: string[]): CheckResult {
  return {
    id: name,
    project: 'conformance',
    file: 'suites/x.suite.ts',
    name,
    status,
    durationMs: 1,
    requirements,
    failure: status === 'failed' ? 'boom' : undefined,
    observations: [],
    exchanges: [],
    requests: 1,
    plannedRequests: 1,
    rateLimited: 0,
  };
}

const today = '2026-11-22';
const report = (checks: CheckResult[], waivers: Waiver[] | undefined, strict = false) => {
  const applied = applyWaivers(checks, waivers, { strict, today, file: 'w.json' });
  return buildReport({
    tool: 't',
    suiteVersion: '0',
    target: { kind: 'embedded', baseUrl: 'x' },
    startedAt: `${today}T10:00:00.000Z`,
    durationMs: 1,
    seed: 1,
    dryRun: false,
    checks: applied.checks,
    load: [],
    previous: [],
    requestsSent: 0,
    unhandledErrors: [],
    interrupted: false,
    waivers: applied.summary,
  });
};

describe('parseWaivers', () => {
  it('accepts the documented fields, null for a field left to fill', () => {
    expect(
      parseWaivers(
        { waivers: [{ requirement: 'ME-200-SHAPE', check: 'c', reason: null, ticket: 'T-1', expires: '2026-12-31' }] },
        'w.json',
      ),
    ).toEqual([{ requirement: 'ME-200-SHAPE', check: 'c', reason: undefined, ticket: 'T-1', expires: '2026-12-31' }]);
  });

  it.each([
    [[], /expected \{"waivers": \[ … \]\}/],
    [{ waivers: [{}] }, /waivers\[0\] names no "requirement"/],
    [{ waivers: [{ requirement: 'NOPE' }] }, /waivers\[0\]\.requirement "NOPE" is not a requirement id/],
    [
      { waivers: [{ requirement: 'ME-200-SHAPE', expires: '2026-02-30' }] },
      /waivers\[0\]\.expires "2026-02-30" is not a date; write YYYY-MM-DD/,
    ],
    [{ waivers: [{ requirement: 'ME-200-SHAPE', expires: 20261231 }] }, /waivers\[0\]\.expires must be a string/],
    [{ waivers: ['ME-200-SHAPE'] }, /waivers\[0\] must be an object/],
  ])('refuses %j with one line', (value, message) => {
    let error: unknown;
    try {
      parseWaivers(value, 'w.json');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WaiverError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('applyWaivers', () => {
  const checks = [
    check('me', 'failed', ['ME-200-SHAPE']),
    check('both', 'failed', ['BALANCE-200-SHAPE', 'FORMAT-JSON-CONTENT-TYPE']),
    check('agents', 'passed', ['AGENTS-200-SHAPE']),
  ];

  it('reports a covered failure as waived, not passed, and lets the run pass', () => {
    const r = report(checks.slice(0, 1), [{ requirement: 'ME-200-SHAPE' }]);
    expect(r.checks[0]!.status).toBe('waived');
    expect(r.requirements.find((x) => x.id === 'ME-200-SHAPE')!.status).toBe('waived');
    expect(r.counts.requirements).toMatchObject({ failed: 0, waived: 1 });
    expect(exitCodeOf(r)).toBe(0);
  });

  it('keeps a check failed when a requirement it failed is not covered, the covered one waived', () => {
    const r = report(checks.slice(1, 2), [{ requirement: 'BALANCE-200-SHAPE' }]);
    expect(r.checks[0]!.status).toBe('failed');
    expect(r.requirements.find((x) => x.id === 'BALANCE-200-SHAPE')!.status).toBe('waived');
    expect(r.requirements.find((x) => x.id === 'FORMAT-JSON-CONTENT-TYPE')!.status).toBe('failed');
    expect(exitCodeOf(r)).toBe(1);
  });

  it('covers only the named check when a waiver names one', () => {
    const two = [checks[0]!, check('me again', 'failed', ['ME-200-SHAPE'])];
    const r = report(two, [{ requirement: 'ME-200-SHAPE', check: 'me again' }]);
    expect(r.checks.map((c) => c.status)).toEqual(['failed', 'waived']);
    expect(r.waivers.unused).toEqual([]);
  });

  it('reports a waiver unused when it names a check its requirement has none of, beside one that ran', () => {
    const r = report(checks.slice(0, 1), [{ requirement: 'ME-200-SHAPE', check: 'a misspelt check' }]);
    expect(r.checks[0]!.status).toBe('failed');
    expect(r.waivers.unused.map((w) => w.check)).toEqual(['a misspelt check']);
  });

  it('fails the run on an expired waiver, which covers nothing; a waiver holds through its expiry day', () => {
    const expired = report(checks.slice(0, 1), [{ requirement: 'ME-200-SHAPE', expires: '2026-11-21' }]);
    expect(expired.checks[0]!.status).toBe('failed');
    expect(expired.waivers.expired).toHaveLength(1);
    expect(exitCodeOf(expired)).toBe(1);
    const lastDay = report(checks.slice(0, 1), [{ requirement: 'ME-200-SHAPE', expires: today }]);
    expect(lastDay.checks[0]!.status).toBe('waived');
    expect(exitCodeOf(lastDay)).toBe(0);
  });

  it('reports a waiver unused when its check ran and passed, not when its check did not run', () => {
    const r = report(checks, [{ requirement: 'AGENTS-200-SHAPE' }, { requirement: 'CDRS-WINDOW-MAX-31D' }]);
    expect(r.waivers.unused.map((w) => w.requirement)).toEqual(['AGENTS-200-SHAPE']);
  });

  it('ignores every waiver in strict mode and says so', () => {
    const r = report(checks.slice(0, 1), [{ requirement: 'ME-200-SHAPE', expires: '2020-01-01' }], true);
    expect(r.checks[0]!.status).toBe('failed');
    expect(r.waivers).toMatchObject({ mode: 'strict', entries: 1, expired: [] });
    expect(report(checks.slice(0, 1), undefined).waivers.mode).toBe('none');
  });
});

describe('withFailuresAdded', () => {
  it('adds each uncovered failure once, reason and expiry null, and leaves existing entries as they were', () => {
    const existing = {
      note: 'kept',
      waivers: [{ requirement: 'ME-200-SHAPE', reason: 'known', owner: 'team-a', expires: '2027-01-01' }],
    };
    const { file, added } = withFailuresAdded(existing, [
      check('me', 'failed', ['ME-200-SHAPE']),
      check('both', 'failed', ['BALANCE-200-SHAPE', 'FORMAT-JSON-CONTENT-TYPE']),
    ]);
    expect(added).toBe(2);
    expect(file.note).toBe('kept');
    expect(file.waivers[0]).toEqual(existing.waivers[0]);
    expect(file.waivers.slice(1)).toEqual([
      { requirement: 'BALANCE-200-SHAPE', check: 'both', reason: null, ticket: null, expires: null },
      { requirement: 'FORMAT-JSON-CONTENT-TYPE', check: 'both', reason: null, ticket: null, expires: null },
    ]);
  });
});
