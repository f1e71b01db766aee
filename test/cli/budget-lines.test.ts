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

  it('adds up what each near-miss family adds at this budget and in the full set, apart from the rotations', () => {
    const nearMiss = (family: string, planned: number, all: number) =>
      checkResult({
        name: `near miss (${family}): something`,
        status: 'skipped',
        requirements: [],
        plannedRequests: planned,
        plannedRequestsAll: all,
        ...(planned === 0 ? { skipReason: 'not verifiable: request budget: this run (seed 3) sends 2 of …' } : {}),
        ...(planned > 0 && planned < all
          ? { probes: { requirement: 'FORMAT-ERROR-BODY', sent: planned, of: all, left: ['PUT /me'] } }
          : {}),
      });
    const lines = dryRunBudgetLines(
      {
        checks: [
          nearMiss('surface', 2, 70),
          nearMiss('numbers', 0, 12),
          nearMiss('numbers', 1, 3),
          nearMiss('event identity', 0, 0),
        ],
      },
      settings,
    );
    expect(lines).toContain(
      "  near-miss operators (docs/near-misses.md): 3 of the full set's 85 requests at this budget (surface 2 " +
        'of 70, numbers 1 of 15); later seeds send the others, --all-probes or a budget covering the full set all',
    );
    expect(lines.some((line) => line.includes('out of turn') || line.includes('sends 2 of 70 probes'))).toBe(false);
    const all = dryRunBudgetLines({ checks: [nearMiss('surface', 70, 70)] }, settings);
    expect(all).toContain(
      "  near-miss operators (docs/near-misses.md): 70 of the full set's 70 requests at this budget (surface 70 of 70)",
    );
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
