/**
 * `occ run --with-load` as a user runs it: the checks, then the k6 probes against the same
 * target, their verdicts merged into the one requirement matrix of every report. Against the
 * embedded reference with the `no-rate-limit` fault, so the merge is proved by a verdict only a
 * probe can give (the checks are limited with --only to one unrelated requirement).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseXml } from '../harness/report/parse-back.ts';
import { type ProcessRun, runOcc } from './occ-process.ts';

type Verdict = { id: string; status: string; source?: string };

describe('occ run --with-load', () => {
  it('runs the k6 probes after the checks and merges verdicts: no rate limit fails RATE-LIMIT-ENFORCED by k6, exit 1', {
    timeout: 300_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'occ-with-load-'));
    const run = await runOcc(
      ['run', '--with-load', '--no-properties', '--only', 'ME-200-SHAPE'],
      { OCC_REFERENCE_FAULTS: 'no-rate-limit' },
      dir,
      240_000,
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    // Without --with-load a run names what the probes would decide; with it, it does not.
    expect(run.stdout).not.toMatch(/--with-load \(the k6 probes\) would decide/);

    const report = JSON.parse(readFileSync(join(dir, 'reports', 'latest', 'report.json'), 'utf8')) as {
      requirements: Verdict[];
      checks: { status: string }[];
    };
    const byId = new Map(report.requirements.map((r) => [r.id, r]));
    // The one check the run made passed: the failure comes from the probe alone.
    expect(report.checks.filter((c) => c.status === 'failed')).toEqual([]);
    expect(byId.get('ME-200-SHAPE')?.status).toBe('passed');
    expect(byId.get('RATE-LIMIT-ENFORCED')).toMatchObject({
      status: 'failed',
      source: expect.stringContaining('k6 rate-limit'),
    });
    // The webhook-retry probe ran first, against the same (otherwise correct) reference.
    expect(byId.get('WEBHOOK-4XX-NO-RETRY')).toMatchObject({
      status: 'passed',
      source: expect.stringContaining('k6 webhook-retry'),
    });

    // The same verdicts in the files a CI system and a person read.
    const junit = readFileSync(join(dir, 'reports', 'latest', 'junit.xml'), 'utf8');
    expect(junit).toMatch(/RATE-LIMIT-ENFORCED \(k6 rate-limit\)/);
    const markdown = readFileSync(join(dir, 'reports', 'latest', 'report.md'), 'utf8');
    expect(markdown).toMatch(/RATE-LIMIT-ENFORCED/);
  });
});

/**
 * SIGTERM at a point of a `--with-load` run against a conformant target (the embedded reference):
 * `marker` is the line (stdout or stderr) after which, plus `delayMs`, the signal is sent.
 */
async function interruptedRun(
  marker: RegExp,
  delayMs: number,
): Promise<ProcessRun & { dir: string; signalled: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'occ-with-load-signal-'));
  let signalled = false;
  const args = ['run', '--with-load', '--no-properties', '--only', 'ME-200-SHAPE,HOOKS-CREATE'];
  const run = await runOcc(args, {}, dir, 120_000, (output, child) => {
    if (signalled || !marker.test(output)) return;
    signalled = true;
    setTimeout(() => child.kill('SIGTERM'), delayMs);
  });
  return { ...run, dir, signalled };
}

describe('occ run --with-load, interrupted', () => {
  // During the checks; inside the webhook-retry probe; inside the rate-limit probe's measurement.
  const points = [
    { where: 'during the checks', marker: /conformance: checking/, delayMs: 300 },
    { where: 'inside the webhook-retry probe', marker: /load: webhook-retry against/, delayMs: 1_500 },
    { where: 'inside the rate-limit probe', marker: /load: rate-limit against/, delayMs: 4_000 },
  ];
  for (const point of points) {
    it(`SIGTERM ${point.where}: exit 143, 0 failed in every report, the probes' requirements not run`, {
      timeout: 150_000,
    }, async () => {
      const run = await interruptedRun(point.marker, point.delayMs);
      const output = `${run.stdout}\n${run.stderr}`;
      expect(run.signalled, output).toBe(true);
      expect(run.code, output).toBe(143);
      expect(run.stdout).toMatch(/conformance: \d+ MUST passed, 0 failed,/);

      const latest = join(run.dir, 'reports', 'latest');
      const report = JSON.parse(readFileSync(join(latest, 'report.json'), 'utf8')) as {
        interrupted: boolean;
        requirements: Verdict[];
        counts: { requirements: { failed: number } };
      };
      expect(report.interrupted).toBe(true);
      expect(report.counts.requirements.failed).toBe(0);
      expect(report.requirements.filter((r) => r.status === 'failed')).toEqual([]);
      const byId = new Map(report.requirements.map((r) => [r.id, r]));
      expect(byId.get('RATE-LIMIT-ENFORCED')?.status).toBe('not_run');
      expect(byId.get('RATE-LIMIT-ALL-ENDPOINTS')?.status).toBe('not_run');

      const junit = parseXml(readFileSync(join(latest, 'junit.xml'), 'utf8'));
      expect(junit.elements).not.toContain('failure');
      const markdown = readFileSync(join(latest, 'report.md'), 'utf8');
      expect(markdown).not.toMatch(/❌/);
      expect(readFileSync(join(latest, 'report.html'), 'utf8')).not.toMatch(/class="badge failed"/);
    });
  }
});
