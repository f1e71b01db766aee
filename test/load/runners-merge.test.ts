/**
 * The merge of N rate-limit runners (load/distributed/merge.ts), pure: thresholds judged again per
 * address (never on counts summed over runners), the rule across addresses from the staggered
 * set-up, a missing or stopped runner making the verdict not run, and how the report reads it.
 */
import { describe, expect, it } from 'vitest';
import { fromK6Summary } from '../../harness/report/files.ts';
import { judgeRequirement } from '../../harness/report/model.ts';
import {
  evaluateThreshold,
  mergeRunners,
  runnerFiles,
  secondAddressPairs,
  type RunnerResult,
  type RunnerSummary,
} from '../../load/distributed/merge.ts';
import { runnerAddresses, segmentFlags } from '../../load/distributed/local.ts';
import { parseRunArgs } from '../../load/run.ts';
import { perIpTimeline, runnerIndex, runnerSummaryName, type PerIpRecord } from '../../load/lib/runners.ts';
import { requirements, type RequirementId } from '../../requirements/catalogue.ts';

const T0 = 1_800_000_000_000;

function perIp(runner: number, runners: number, over: Partial<PerIpRecord> = {}): PerIpRecord {
  return {
    runner,
    runners,
    address: `127.0.0.${runner + 2}`,
    burstStartedAtMs: T0,
    refusedAtMs: T0 + 50,
    otherToken: { status: 429, trailing: 429 },
    fresh: runner === 0 ? null : { atMs: T0 + 1_000, status: 200 },
    stillRefused: runner === 0 ? { atMs: T0 + 1_500, status: 429 } : null,
    ...over,
  };
}

/** A runner's summary with its own counts: refused under the limit, refused over it, TOKEN_2 refused. */
function runner(
  index: number,
  count: number,
  own: { refusedUnder?: number; refusedOver?: number; otherTokenRefused?: boolean } = {},
  record: Partial<PerIpRecord> = {},
): RunnerResult {
  const refusedUnder = own.refusedUnder ?? 0;
  const refusedOver = own.refusedOver ?? 40;
  const other = own.otherTokenRefused ?? true;
  const summary: RunnerSummary = {
    probe: 'rate-limit',
    generatedAt: new Date(T0 + 30_000 + index).toISOString(),
    passed: true,
    failedThresholds: [],
    thresholds: [
      {
        key: 'refused_under',
        expression: 'count==0',
        ok: true,
        observed: true,
        requirement: 'RATE-LIMIT-100-PER-MIN',
        description: 'under',
      },
      {
        key: 'refused_over',
        expression: 'count>0',
        ok: true,
        observed: true,
        requirement: 'RATE-LIMIT-ENFORCED',
        description: 'over',
      },
      {
        key: 'other_token_refused',
        expression: 'rate==1',
        ok: true,
        observed: true,
        requirement: 'RATE-LIMIT-PER-IP',
        description: 'token',
      },
      {
        key: 'late_requests',
        expression: 'count==0',
        ok: true,
        observed: true,
        requirement: 'probe',
        description: 'late',
      },
    ],
    observations: { configured: { limit: 100, windowMs: 2500 } },
    chart: { perSecond: [{ second: 0, accepted: 10, refused: index }] },
    summary: {
      metrics: {
        refused_under: { type: 'counter', values: { count: refusedUnder } },
        refused_over: { type: 'counter', values: { count: refusedOver } },
        other_token_refused: {
          type: 'rate',
          values: { passes: other ? 1 : 0, fails: other ? 0 : 1, rate: other ? 1 : 0 },
        },
        late_requests: { type: 'counter', values: { count: 0 } },
      },
    },
    runner: { index, count, address: `127.0.0.${index + 2}` },
    completed: true,
    perIp: perIp(index, count, record),
  };
  return { index, count, summary, exitCode: 0, signal: null };
}

const verdictOf = (merged: ReturnType<typeof mergeRunners>, id: RequirementId) =>
  judgeRequirement(requirements.find((r) => r.id === id)!, [], [fromK6Summary(merged)]).status;

describe('runner identity (load/lib/runners.ts, load/distributed/local.ts)', () => {
  it("reads its place from k6-operator's execution segment flags, and gives local runners the same flags", () => {
    expect(segmentFlags(0, 3)).toEqual(['--execution-segment=0:1/3', '--execution-segment-sequence=0,1/3,2/3,1']);
    expect(segmentFlags(2, 3)).toEqual(['--execution-segment=2/3:1', '--execution-segment-sequence=0,1/3,2/3,1']);
    for (let i = 0; i < 4; i++) {
      const [segment, sequence] = segmentFlags(i, 4).map((f) => f.split('=')[1]!);
      expect(runnerIndex(segment, sequence)).toEqual({ index: i, count: 4 });
    }
    expect(runnerIndex(null, null)).toEqual({ index: 0, count: 1 });
    expect(runnerAddresses(3, undefined)).toEqual(['127.0.0.2', '127.0.0.3', '127.0.0.4']);
    expect(() => runnerAddresses(3, ['10.0.0.1'])).toThrow(/one per runner/);
    expect(runnerSummaryName('rate-limit', 1, 3)).toBe('k6-rate-limit.runner-2-of-3');
    expect([
      ...runnerFiles([
        'k6-rate-limit.json',
        'k6-rate-limit.runner-2-of-3.json',
        'k6-rate-limit.runner-1-of-3.json',
        'x.json',
      ])
        .get('rate-limit')!
        .map((f) => f.index),
    ]).toEqual([0, 1]);
  });

  it('staggers the set-up in one window: the others start while runner 1 is refused, checked before it ends', () => {
    const t = perIpTimeline(2_500, 3);
    expect(t.staggerMs).toBeGreaterThan(0);
    expect(t.stillRefusedAtMs).toBeGreaterThan(t.staggerMs);
    expect(t.stillRefusedAtMs).toBeLessThan(2_500);
    expect(perIpTimeline(2_500, 1)).toEqual({ staggerMs: 0, stillRefusedAtMs: 0, setupEndMs: 0 });
  });

  it('occ load rate-limit takes --runners (or LOAD_RUNNERS) and --local-ips, one address per runner', () => {
    expect(parseRunArgs(['rate-limit', '--runners', '3'], {})).toMatchObject({ probe: 'rate-limit', runners: 3 });
    expect(parseRunArgs(['rate-limit'], { loadRunners: 2 }).runners).toBe(2);
    expect(parseRunArgs(['rate-limit', '--runners', '1'], {}).runners).toBeUndefined();
    // --with-load runs webhook-retry too: LOAD_RUNNERS is for rate-limit only.
    expect(parseRunArgs(['webhook-retry'], { loadRunners: 3 }).runners).toBeUndefined();
    const ips = ['rate-limit', '--runners', '2', '--local-ips', '10.0.0.5,10.0.0.6'];
    expect(parseRunArgs(ips, {}).localIps).toEqual(['10.0.0.5', '10.0.0.6']);
    expect(() => parseRunArgs(['rate-limit', '--runners', '0'], {})).toThrow(/from 1 to 64/);
    expect(() => parseRunArgs(['rate-limit', '--runners', '2', '--local-ips', '10.0.0.5'], {})).toThrow(
      /one per runner/,
    );
    expect(() => parseRunArgs(['rate-limit', '--runners', '2', '--local-ips', 'a,b'], {})).toThrow(/IP addresses/);
    expect(() => parseRunArgs(['webhook-retry', '--runners', '2'], {})).toThrow(/for rate-limit/);
  });

  it("evaluates the probes' threshold expressions", () => {
    expect(evaluateThreshold('count==0', { count: 0 })).toBe(true);
    expect(evaluateThreshold('count>0', { count: 0 })).toBe(false);
    expect(evaluateThreshold('rate==1', { rate: 1 })).toBe(true);
    expect(evaluateThreshold('p(95)<200', { 'p(95)': 150 })).toBe(true);
    expect(evaluateThreshold('rate>=0.95 && whatever', {})).toBeUndefined();
  });
});

describe('mergeRunners', () => {
  it('three conformant runners: one passing verdict, RATE-LIMIT-PER-IP decided on the merge', () => {
    const merged = mergeRunners([0, 1, 2].map((i) => runner(i, 3)));
    expect(merged.passed).toBe(true);
    expect(merged.notVerifiable).toBeUndefined();
    expect(merged.thresholds.find((t) => t.key === 'second_address_served')).toMatchObject({
      ok: true,
      observed: true,
    });
    expect(verdictOf(merged, 'RATE-LIMIT-PER-IP')).toBe('passed');
    expect(verdictOf(merged, 'RATE-LIMIT-100-PER-MIN')).toBe('passed');
    expect(merged.chart.perSecond).toEqual([{ second: 0, accepted: 30, refused: 3 }]);
  });

  it('judges every address on its own: refusals summed over runners never hide an address never refused', () => {
    const merged = mergeRunners([runner(0, 3), runner(1, 3, { refusedOver: 0 }), runner(2, 3)]);
    expect(merged.failedThresholds).toEqual(['refused_over count>0']);
    expect(verdictOf(merged, 'RATE-LIMIT-ENFORCED')).toBe('failed');
  });

  it('one bucket for every client: a fresh address refused while runner 1 is refused fails RATE-LIMIT-PER-IP', () => {
    const merged = mergeRunners([
      runner(0, 3),
      runner(1, 3, {}, { fresh: { atMs: T0 + 1_000, status: 429 } }),
      runner(2, 3),
    ]);
    expect(merged.failedThresholds).toContain('second_address_served rate==1');
    expect(verdictOf(merged, 'RATE-LIMIT-PER-IP')).toBe('failed');
  });

  it('a limiter per token: TOKEN_2 served once an address spent its budget fails RATE-LIMIT-PER-IP', () => {
    const merged = mergeRunners([runner(0, 2), runner(1, 2, { otherTokenRefused: false })]);
    expect(merged.failedThresholds).toEqual(['other_token_refused rate==1']);
    expect(verdictOf(merged, 'RATE-LIMIT-PER-IP')).toBe('failed');
  });

  it('a window that turned before runner 1 checked voids the second-address pair: not verifiable, never passed', () => {
    const merged = mergeRunners([runner(0, 2, {}, { stillRefused: { atMs: T0 + 1_500, status: 200 } }), runner(1, 2)]);
    expect(merged.passed).toBe(true);
    expect(merged.notVerifiable?.['RATE-LIMIT-PER-IP']).toMatch(/window turned/);
    expect(verdictOf(merged, 'RATE-LIMIT-PER-IP')).toBe('not_verifiable');
    const late = secondAddressPairs([perIp(0, 2), perIp(1, 2, { fresh: { atMs: T0 + 2_000, status: 429 } })]);
    expect(late.pairs[0]!.conclusive).toBe(false);
    expect(late.reason).toMatch(/started too far apart/);
  });

  it('runners that share an address are left out of the own-budget rules (their loads add up), and say so', () => {
    const a = runner(0, 2);
    const b = runner(1, 2, { refusedUnder: 30 });
    const shared = {
      ...b,
      summary: {
        ...b.summary!,
        runner: { index: 1, count: 2, address: '127.0.0.2' },
        perIp: perIp(1, 2, { address: '127.0.0.2' }),
      },
    };
    const merged = mergeRunners([a, shared]);
    expect(merged.failedThresholds).toEqual([]);
    expect(merged.observations.sharedAddresses).toMatch(/127\.0\.0\.2/);
    expect(merged.notVerifiable?.['RATE-LIMIT-PER-IP']).toMatch(/one address/);
  });

  it('one runner alone leaves the second address not verifiable', () => {
    expect(mergeRunners([runner(0, 1)]).notVerifiable?.['RATE-LIMIT-PER-IP']).toMatch(/one runner is one address/);
  });

  it('a runner missing, stopped early or killed: the merged verdict is not run, never failed or passed', () => {
    const failing = runner(2, 3, { refusedOver: 0 });
    const cases: RunnerResult[][] = [
      [runner(0, 3), runner(1, 3), { index: 2, count: 3 }],
      [runner(0, 3), { ...runner(1, 3), summary: { ...runner(1, 3).summary!, completed: false } }, failing],
      [runner(0, 3), { ...runner(1, 3), exitCode: null, signal: 'SIGKILL' }, runner(2, 3)],
      [runner(0, 3), { ...runner(1, 3), exitCode: 107 }, runner(2, 3)],
    ];
    for (const results of cases) {
      const merged = mergeRunners(results);
      expect(merged.passed).toBe(false);
      expect(merged.notFinished?.reason).toMatch(/^not run: runner 2 of 3|^not run: runner 3 of 3/);
      for (const id of ['RATE-LIMIT-100-PER-MIN', 'RATE-LIMIT-ENFORCED', 'RATE-LIMIT-PER-IP'] as const)
        expect(verdictOf(merged, id), id).toBe('not_run');
    }
  });
});
