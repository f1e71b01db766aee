/** The dry run's account of the request budget (cli/budget-lines.ts). */
import { describe, expect, it } from 'vitest';
import { budgetText, dryRunBudgetLines } from '../../cli/budget-lines.ts';
import { budgetOf, DEFAULT_BUDGET } from '../../harness/scheduling/budget.ts';
import { checkResult } from '../harness/report/fixtures.ts';

const settings = { budget: DEFAULT_BUDGET, requestsPerMinute: 80, rateWindowMs: 60_000 };

describe('dryRunBudgetLines', () => {
  it('names the probes sent and left to later seeds, the checks out of turn, and the full set with its time', () => {
    const lines = dryRunBudgetLines(
      {
        checks: [
          checkResult({
            name: 'POST /hooks … not an https URI',
            status: 'skipped',
            requirements: ['HOOKS-TARGET-HTTPS'],
            plannedRequests: 2,
            plannedRequestsAll: 7,
            probes: { requirement: 'HOOKS-TARGET-HTTPS', sent: 2, of: 7, left: ['a scheme-relative target_url'] },
          }),
          checkResult({
            name: 'GET /me … a revoked token',
            status: 'skipped',
            requirements: ['AUTH-REVOKED-TOKEN'],
            skipReason: 'not verifiable: request budget: this run (seed 3) sends slice 2 of 5 of …',
            plannedRequests: 0,
            plannedRequestsAll: 1,
          }),
        ],
      },
      settings,
    );
    expect(lines).toEqual([
      'request budget: 150 requests (80 per minute for 113 s)',
      '  HOOKS-TARGET-HTTPS: sends 2 of 7 probes (POST /hooks … not an https URI); ' +
        'later seeds: a scheme-relative target_url',
      '  out of turn, later seeds send it: GET /me … a revoked token',
      'the full set: 8 requests, 6 s at this rate; this configuration plans 2, 2 s at this rate ' +
        '(--all-probes, or a --time-budget that covers the full set, sends it in one run)',
    ]);
  });

  it('adds up what each near-miss family adds, and says whether this configuration sends it', () => {
    const nearMiss = (family: string, all: number, left: boolean) =>
      checkResult({
        name: `near miss (${family}): something`,
        status: 'skipped',
        requirements: [],
        plannedRequests: left ? 0 : all,
        plannedRequestsAll: all,
        ...(left ? { skipReason: 'not verifiable: request budget: the near-miss operators …' } : {}),
      });
    const left = dryRunBudgetLines(
      { checks: [nearMiss('surface', 70, true), nearMiss('numbers', 12, true)] },
      settings,
    );
    expect(left).toContain(
      '  near-miss operators (docs/near-misses.md): 82 requests (surface 70, numbers 12); none sent: --all-probes, ' +
        'or a --time-budget that covers the full set, sends them',
    );
    expect(left.some((line) => line.includes('out of turn'))).toBe(false);
    const sent = dryRunBudgetLines({ checks: [nearMiss('surface', 70, false)] }, settings);
    expect(sent).toContain('  near-miss operators (docs/near-misses.md): 70 requests (surface 70); all sent');
  });

  it('says so when nothing rotates', () => {
    const all = { ...settings, budget: budgetOf(80, 60_000, 113, true) };
    const lines = dryRunBudgetLines({ checks: [checkResult({ name: 'c', status: 'skipped', requirements: [] })] }, all);
    expect(lines[1]).toBe('  every probe and matrix cell is sent: no rotation');
    expect(budgetText(all)).toBe('every probe (--all-probes)');
    expect(budgetText({ ...settings, requestsPerMinute: 6000, budget: budgetOf(6000, 60_000, 113) })).toBe(
      'every probe (11300 requests (6000 per minute for 113 s) cover the full set)',
    );
  });
});
