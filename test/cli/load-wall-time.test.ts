/**
 * The wall time `--dry-run --with-load` expects of each part (cli/load-wall-time.ts), and the flag by
 * which `occ run --with-load` tells the rate-limit probe what the run sent the target, and when.
 */
import { describe, expect, it } from 'vitest';
import { expectedWallTime, expectedWallTimeLines, measuredWallTimeLine } from '../../cli/load-wall-time.ts';
import { parseRunArgs } from '../../load/run.ts';

const remote = {
  remote: true,
  control: true,
  plannedRequests: 150,
  requestsPerMinute: 80,
  rateWindowMs: 60_000,
  limit: 100,
  webhookBudgetS: 180,
  timeBudgetS: 600,
};

describe('the expected wall time of occ run --with-load', () => {
  it('the full configuration at the real minute: the watch, virtual time, the rate limit in ~2 windows', () => {
    const parts = expectedWallTime(remote);
    expect(parts.map((p) => p.part)).toEqual(['checks', 'k6 webhook-retry', 'k6 rate-limit']);
    const [checks, webhooks, rate] = parts.map((p) => p.ms) as [number, number, number];
    expect(checks).toBeGreaterThanOrEqual(180_000); // the watch's budget bounds the checks
    expect(webhooks).toBeLessThan(30_000);
    expect(rate).toBeGreaterThan(2 * 60_000);
    expect(rate).toBeLessThan(2.6 * 60_000);
    const lines = expectedWallTimeLines(parts);
    expect(lines.at(-1)).toMatch(/^ {2}total\s+5 min \d+ s$/);
  });

  it('without CONTROL_URL the webhook-retry probe watches TIME_BUDGET_S; the throttle bounds a long run', () => {
    const watch = expectedWallTime({ ...remote, control: false });
    expect(watch[1]!.ms).toBeGreaterThanOrEqual(600_000);
    expect(watch[1]!.detail).toContain('TIME_BUDGET_S 600 s');
    const throttled = expectedWallTime({ ...remote, plannedRequests: 330 });
    expect(throttled[0]!.ms).toBeGreaterThanOrEqual(240_000);
  });

  it('the embedded reference: seconds for every part', () => {
    const parts = expectedWallTime({ ...remote, remote: false, control: false, requestsPerMinute: undefined });
    expect(parts.reduce((sum, p) => sum + p.ms, 0)).toBeLessThan(60_000);
  });

  it('a run names what each part took and the total', () => {
    expect(
      measuredWallTimeLine([
        { part: 'checks', ms: 181_400 },
        { part: 'k6 webhook-retry', ms: 12_100 },
        { part: 'k6 rate-limit', ms: 139_000 },
      ]),
    ).toBe('checks 3 min 1 s, k6 webhook-retry 12 s, k6 rate-limit 2 min 19 s; total 5 min 33 s');
  });
});

describe('occ load rate-limit --prior-requests', () => {
  it('takes epoch-ms:count pairs; a bad list is one line naming the flag', () => {
    expect(parseRunArgs(['rate-limit', '--prior-requests', '1700000000000:8,1700000005000:10'], {})).toMatchObject({
      priorRequests: [
        { atMs: 1_700_000_000_000, requests: 8 },
        { atMs: 1_700_000_005_000, requests: 10 },
      ],
    });
    expect(parseRunArgs(['rate-limit'], {})).not.toHaveProperty('priorRequests');
    expect(() => parseRunArgs(['rate-limit', '--prior-requests', 'soon:3'], {})).toThrow(
      /--prior-requests takes epoch-ms:count pairs, comma-separated \(got "soon:3"\)/,
    );
  });
});
