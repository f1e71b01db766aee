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
import { runOcc } from './occ-process.ts';

type Verdict = { id: string; status: string; source?: string };

describe('occ run --with-load', () => {
  it('runs the k6 probes after the checks and merges their verdicts: a target without a rate limit fails RATE-LIMIT-ENFORCED by the k6 probe, and the run exits 1', { timeout: 300_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'occ-with-load-'));
    const run = await runOcc(['run', '--with-load', '--no-properties', '--only', 'ME-200-SHAPE'], { OCC_REFERENCE_FAULTS: 'no-rate-limit' }, dir, 240_000);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    // Without --with-load a run names what the probes would decide; with it, it does not.
    expect(run.stdout).not.toMatch(/--with-load \(the k6 probes\) would decide/);

    const report = JSON.parse(readFileSync(join(dir, 'reports', 'latest', 'report.json'), 'utf8')) as { requirements: Verdict[]; checks: { status: string }[] };
    const byId = new Map(report.requirements.map((r) => [r.id, r]));
    // The one check the run made passed: the failure comes from the probe alone.
    expect(report.checks.filter((c) => c.status === 'failed')).toEqual([]);
    expect(byId.get('ME-200-SHAPE')?.status).toBe('passed');
    expect(byId.get('RATE-LIMIT-ENFORCED')).toMatchObject({ status: 'failed', source: expect.stringContaining('k6 rate-limit') });
    // The webhook-retry probe ran first, against the same (otherwise correct) reference.
    expect(byId.get('WEBHOOK-4XX-NO-RETRY')).toMatchObject({ status: 'passed', source: expect.stringContaining('k6 webhook-retry') });

    // The same verdicts in the files a CI system and a person read.
    const junit = readFileSync(join(dir, 'reports', 'latest', 'junit.xml'), 'utf8');
    expect(junit).toMatch(/RATE-LIMIT-ENFORCED \(k6 rate-limit\)/);
    const markdown = readFileSync(join(dir, 'reports', 'latest', 'report.md'), 'utf8');
    expect(markdown).toMatch(/RATE-LIMIT-ENFORCED/);
  });
});
