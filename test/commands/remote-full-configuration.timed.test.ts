/**
 * The full remote configuration, end to end: a second reference process stands in for staging, configured
 * as a staging team would (every fixture, a receiver it reaches over TLS, CONTROL_URL), with a
 * real rate limit: the spec's 100 requests per a 2.5 s window, the stand-in's documented time
 * scale (`npm run reference -- --rate-window-ms 2500`), which the run is told through
 * RATE_LIMIT_WINDOW_MS, never assumes. `occ run --with-load` then leaves no MUST requirement
 * not verifiable and fails none, the checks stay under the limit (no 429), and the k6 probes
 * decide the rate limit. The dry run first: it counts the probes' requests, and the count bounds
 * what k6 really sent.
 *
 * Watch budgets are short (WEBHOOK_BUDGET_S, TIME_BUDGET_S = 10 s): with CONTROL_URL the retry
 * rules are verified in the target's virtual time, by the checks and by the k6 webhook-retry probe,
 * which drives the deliveries through the control endpoint; what the short watch did not see is
 * "not observed", never a pass (the requirement is then decided by the checks that did see it).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteRunEnvironment, startRemoteReference, type RemoteReference } from '../../cli/remote-reference.ts';
import { rateLimitShape } from '../../load/lib/probe-shape.ts';
import { runOcc } from './occ-process.ts';

const RATE_WINDOW_MS = 2_500;

interface Report {
  requirements: Array<{ id: string; level: string; status: string; source?: string; notVerifiableBecause: string[] }>;
  requests: { sent: number; planned: number; rateLimited: number };
  loadWouldDecide: string[];
  controlGaps: unknown[];
}

describe('the full remote configuration with --with-load', () => {
  let reference: RemoteReference;
  let env: Record<string, string>;
  beforeAll(async () => {
    reference = await startRemoteReference({ rateWindowMs: RATE_WINDOW_MS });
    env = Object.fromEntries(
      Object.entries({ ...remoteRunEnvironment(reference), WEBHOOK_BUDGET_S: '10', TIME_BUDGET_S: '10' }).filter(
        (e): e is [string, string] => e[1] !== undefined,
      ),
    );
  }, 60_000);
  afterAll(async () => {
    await reference?.close();
  });

  it("knows the stand-in's rate window, counts the probes' requests in the dry run; 0 MUST not verifiable, 0 failed", {
    timeout: 600_000,
  }, async () => {
    expect(env.RATE_LIMIT_WINDOW_MS).toBe(String(RATE_WINDOW_MS));
    expect(env.REQUESTS_PER_MINUTE).toBeUndefined(); // the default throttle, 80 per window
    expect(env.CONTROL_URL).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'occ-full-remote-'));

    const dry = await runOcc(['run', '--dry-run', '--with-load'], env, dir, 240_000);
    expect(dry.code, `${dry.stdout}\n${dry.stderr}`).toBe(0);
    const bound = rateLimitShape(100, RATE_WINDOW_MS).maxRequests;
    expect(dry.stdout).toMatch(new RegExp(`^\\s+${bound}\\s+k6 rate-limit: .*limit 100 per 2\\.5 s`, 'm'));
    // With CONTROL_URL the webhook-retry probe's event comes from event-emitted: no call, every plan.
    expect(dry.stdout).toMatch(
      /^\s+10\s+k6 webhook-retry: 5 subscriptions created and deleted \(the event from CONTROL_URL/m,
    );
    expect(dry.stdout).toMatch(
      new RegExp(`--with-load would send at most ${bound + 10} more requests \\(k6 probes\\)`),
    );
    expect(dry.stdout).toMatch(/^expected wall time of the run with --with-load, part by part:$/m);
    expect(dry.stdout).toMatch(/^\s+total\s+\d+ (min \d+ )?s$/m);

    const run = await runOcc(['run', '--with-load'], env, dir, 540_000);
    const report = JSON.parse(readFileSync(join(dir, 'reports', 'latest', 'report.json'), 'utf8')) as Report;
    const must = report.requirements.filter((r) => r.level === 'MUST');
    const undecided = must
      .filter((r) => r.status !== 'passed')
      .map((r) => `${r.id}: ${r.status} ${r.notVerifiableBecause.join('; ')}`);
    expect(
      undecided,
      run.stdout
        .split('\n')
        .filter((l) => /^(FAIL|SKIP|conformance|load|k6)/.test(l))
        .join('\n'),
    ).toEqual([]);
    expect(must.length).toBeGreaterThanOrEqual(100);
    expect(run.code, run.stderr).toBe(0);
    // The rate limit was decided by the k6 probe against the limited stand-in, not assumed.
    for (const id of ['RATE-LIMIT-100-PER-MIN', 'RATE-LIMIT-ENFORCED', 'RATE-LIMIT-ALL-ENDPOINTS']) {
      expect(
        report.requirements.find((r) => r.id === id),
        id,
      ).toMatchObject({ status: 'passed', source: expect.stringContaining('k6 rate-limit') });
    }
    // The checks' own throttle kept them under the limit the whole run: not one 429.
    expect(report.requests.rateLimited).toBe(0);
    expect(report.loadWouldDecide).toEqual([]);
    expect(report.controlGaps).toEqual([]);

    // The webhook-retry probe drove the target's retries in its virtual time through CONTROL_URL.
    const retries = JSON.parse(readFileSync(join(dir, 'reports', 'latest', 'k6-webhook-retry.json'), 'utf8')) as {
      passed: boolean;
      observations: { target: string; notObserved: string[] };
    };
    expect(retries).toMatchObject({ passed: true, observations: { notObserved: [] } });
    expect(retries.observations.target).toMatch(/virtual time/);
    expect(run.stdout).toMatch(/^conformance: --with-load wall time: checks .*; total /m);

    // The dry run's count is an upper bound of what the rate-limit probe really sent.
    const k6 = JSON.parse(readFileSync(join(dir, 'reports', 'latest', 'k6-rate-limit.json'), 'utf8')) as {
      summary: { metrics: Record<string, { values: { count?: number } }> };
    };
    const sent = k6.summary.metrics.http_reqs?.values.count ?? 0;
    expect(sent).toBeGreaterThan(100);
    expect(sent).toBeLessThanOrEqual(bound);
  });
});

describe('the rate limit verified remotely fails against a fault of the stand-in', () => {
  it('a stand-in refusing at half the limit (rate-limit-half) fails RATE-LIMIT-100-PER-MIN by the k6 probe; exit 1', {
    timeout: 300_000,
  }, async () => {
    const faulty = await startRemoteReference({ rateWindowMs: RATE_WINDOW_MS, faults: ['rate-limit-half'] });
    try {
      const faultyEnv = Object.fromEntries(
        Object.entries({ ...remoteRunEnvironment(faulty), TIME_BUDGET_S: '5' }).filter(
          (e): e is [string, string] => e[1] !== undefined,
        ),
      );
      const dir = mkdtempSync(join(tmpdir(), 'occ-full-remote-fault-'));
      // One unrelated check: the verdict on the limit comes from the probe alone.
      const run = await runOcc(
        ['run', '--with-load', '--no-properties', '--only', 'ME-200-SHAPE'],
        faultyEnv,
        dir,
        240_000,
      );
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
      const report = JSON.parse(readFileSync(join(dir, 'reports', 'latest', 'report.json'), 'utf8')) as Report;
      expect(report.requirements.find((r) => r.id === 'RATE-LIMIT-100-PER-MIN')).toMatchObject({
        status: 'failed',
        source: expect.stringContaining('k6 rate-limit'),
      });
      expect(report.requirements.find((r) => r.id === 'ME-200-SHAPE')?.status).toBe('passed');
    } finally {
      await faulty.close();
    }
  });
});
