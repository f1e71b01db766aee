/**
 * The suite proves itself: against the reference server with each fault of its catalogue
 * switched on alone, the run fails with a failing check tagged with a requirement the fault
 * violates (the whole catalogue's kill rate is kill-rate.run.test.ts). The embedded self-proof's runners
 * (self-proof/runner.ts) run many faults one after another: the fault switch between two runs must
 * leave nothing of the previous fault behind.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  embeddedEnvironment,
  embeddedSlot,
  RunnerProcess,
  type FaultVerdict,
  missedBecause,
  slicesReported,
  unverifiable,
  verdictLine,
  verdictOf,
} from '../../self-proof/catalogue.ts';
import { referenceStarters } from '../../commands/embedded-reference.ts';
import { filesFor, onlyFilter } from '../../self-proof/runner.ts';
import { judgeFault } from '../../self-proof/judge.ts';
import { startRun } from '../../harness/run/target.ts';
import type { RunReport } from '../../harness/report/model.ts';
import { faults } from '../../reference/faults.ts';
import { requirements } from '../../requirements/catalogue.ts';
import { loadConfig } from '../../harness/config/config.ts';
import { suiteCacheDirectory } from '../../harness/config/settings.ts';

/** GET/POST on the embedded reference's own test API (/_reference, beside /v1). */
async function reference(baseUrl: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(
    `${baseUrl.replace(/\/v1$/, '/_reference')}${path}`,
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  return (await response.json()) as Record<string, unknown>;
}

describe('the fault catalogue', () => {
  it('names only requirement ids of the catalogue, and at least 30 faults across every area', () => {
    const ids = new Set(requirements.map((r) => r.id));
    for (const fault of faults)
      for (const id of fault.violates) expect(ids.has(id), `${fault.id} names ${id}`).toBe(true);
    expect(faults.length).toBeGreaterThanOrEqual(30);
    const areas = new Set(faults.flatMap((f) => f.violates.map((id) => id.split('-')[0])));
    for (const area of [
      'ME',
      'BALANCE',
      'CDRS',
      'AGENTS',
      'CALLS',
      'HOOKS',
      'AUTH',
      'EVENT',
      'WEBHOOK',
      'RATE',
      'VERSION',
    ])
      expect(areas.has(area), area).toBe(true);
  });

  it('counts a fault as caught only by a failing check that carries a violated requirement', () => {
    const check = (name: string, status: 'passed' | 'failed', ids: string[]) =>
      ({ name, status, requirements: ids }) as never;
    expect(judgeFault(['A-1'], { checks: [check('x', 'failed', ['B-2']), check('y', 'passed', ['A-1'])] })).toEqual([]);
    expect(judgeFault(['A-1', 'C-3'], { checks: [check('x', 'failed', ['C-3', 'D-4'])] })).toEqual(['x']);
    // Split by per-requirement verdicts: only the requirements the check failed count.
    const split = (name: string, failed: string[]) =>
      ({ name, status: 'failed', requirements: ['A-1', 'D-4'], failedRequirements: failed }) as never;
    expect(judgeFault(['A-1'], { checks: [split('y', ['D-4'])] })).toEqual([]);
    expect(judgeFault(['A-1'], { checks: [split('z', ['A-1'])] })).toEqual(['z']);
  });

  it('says of a fault not caught what its checks did: each status, a skipped one with its reason', () => {
    const check = (name: string, status: string, ids: string[], skipReason?: string) =>
      ({ name, status, requirements: ids, ...(skipReason ? { skipReason } : {}) }) as never;
    const checks = [
      check('x', 'passed', ['A-1']),
      check('y', 'skipped', ['A-1', 'B-2'], 'needs CONTROL_URL'),
      check('z', 'failed', ['C-3']),
    ];
    expect(missedBecause(['A-1'], { checks })).toBe(
      '(violates A-1): its checks passed: x; skipped (needs CONTROL_URL): y',
    );
    expect(missedBecause(['D-4'], { checks })).toBe('(violates D-4): no check of these requirements ran');
  });

  it('remotely, sets a fault aside only when no requirement it violates was verifiable in the run', () => {
    const requirement = (id: string, status: string, notVerifiableBecause: string[] = []) =>
      ({ id, status, notVerifiableBecause }) as never;
    expect(
      unverifiable(['A-1', 'B-2'], {
        requirements: [requirement('A-1', 'not_verifiable', ['needs X']), requirement('B-2', 'passed')],
      }),
    ).toBeUndefined();
    expect(
      unverifiable(['A-1'], {
        requirements: [requirement('A-1', 'not_verifiable', ['needs X']), requirement('C-3', 'failed')],
      }),
    ).toBe('needs X');
  });

  it('remotely, runs again with the next seeds as long as a rotating check has slices not yet sent', () => {
    const check = (texts: string[]) => ({ observations: texts.map((text) => ({ requirement: 'X', text })) }) as never;
    expect(slicesReported({ checks: [check(['a 201'])] })).toBe(1);
    expect(
      slicesReported({
        checks: [
          check(["request budget: this run (seed 1) sent slice 2 of 4 of this check's near-miss probes (…)"]),
          check(['… slice 1 of 3 …']),
        ],
      }),
    ).toBe(4);
  });

  it('runs only the files with a check tagged with a violated requirement, filtered by tag as --only does', () => {
    const tags = new Map([
      ['a.suite.ts', new Set(['A-1', 'B-2'])],
      ['b.suite.ts', new Set(['C-3'])],
      ['c.property.ts', new Set(['B-2'])],
    ]);
    expect(filesFor(['B-2'], tags)).toEqual(['a.suite.ts', 'c.property.ts']);
    expect(filesFor(['C-3', 'Z-9'], tags)).toEqual(['b.suite.ts']);
    expect(filesFor(['Z-9'], tags)).toEqual([]);
    expect(onlyFilter(['A-1', 'C-3'])).toEqual(['A-1 || C-3']);
  });

  it("judges a runner's run: caught only on exit 1, cut short a problem; prints the documented line", () => {
    const failing = {
      checks: [{ name: 'GET /me answers 200', status: 'failed', requirements: ['ME-200-SHAPE'], observations: [] }],
      interrupted: false,
    } as unknown as RunReport;
    const fault = { id: 'me-missing-field', violates: ['ME-200-SHAPE'] } as const;
    const caught = verdictOf(fault, failing, 1, 1234, false);
    expect(caught).toMatchObject({ caught: true, caughtBy: ['GET /me answers 200'], exitCode: 1 });
    expect(verdictLine(caught)).toBe(`✓ ${'me-missing-field'.padEnd(34)}   1.2 s  caught by: GET /me answers 200`);
    expect(verdictOf(fault, failing, 0, 1, false).caught).toBe(false);
    const cut = verdictOf(fault, { ...failing, interrupted: true }, 1, 1, false);
    expect(cut.caught).toBe(false);
    expect(verdictLine(cut)).toMatch(/^✗ me-missing-field +0\.0 s {2}NOT CAUGHT the run was cut short/);
  });

  it("each fault's embedded run gets a fresh reference with only that fault: no previous server, fault or clock", {
    timeout: 60_000,
  }, async () => {
    const saved = { ...process.env };
    for (const name of ['API_BASE_URL', 'AUTH_URL', 'CONTROL_URL', 'CONTROL_TOKEN', 'OCC_REFERENCE_FAULTS'])
      delete process.env[name];
    const run = await startRun({
      starters: referenceStarters,
      config: loadConfig({}),
      cacheDirectory: suiteCacheDirectory({}),
      dryRun: false,
    });
    try {
      await run.switchFaults(['no-rate-limit']);
      const first = run.context.target;
      expect(first.faults).toEqual(['no-rate-limit']);
      expect(
        ((await reference(first.baseUrl, '/faults')) as { faults: Array<{ id: string; enabled: boolean }> }).faults
          .filter((f) => f.enabled)
          .map((f) => f.id),
      ).toEqual(['no-rate-limit']);
      // What a check may leave behind on a server: its virtual clock a day and more ahead.
      await reference(first.baseUrl, '/clock/advance', { ms: 30 * 3_600_000 });

      await run.switchFaults(['me-missing-field']);
      const second = run.context.target;
      expect(second.faults).toEqual(['me-missing-field']);
      expect(second.baseUrl).not.toBe(first.baseUrl);
      expect(
        ((await reference(second.baseUrl, '/faults')) as { faults: Array<{ id: string; enabled: boolean }> }).faults
          .filter((f) => f.enabled)
          .map((f) => f.id),
      ).toEqual(['me-missing-field']);
      expect(Math.abs(((await reference(second.baseUrl, '/clock')) as { now: number }).now - Date.now())).toBeLessThan(
        60_000,
      );
      // The fixtures the checks use are the new server's (a token of the old one would name a server that is gone).
      const me = await fetch(`${second.baseUrl}/me`, { headers: { authorization: `Bearer ${second.tokens.all}` } });
      expect(me.status).toBe(200);
      await expect(fetch(`${first.baseUrl}/me`)).rejects.toThrow();
    } finally {
      await run.end();
      process.env = saved;
    }
  });

  // One test for both (a runner's start and end cost a vitest start and a reference): the failed fault ends its
  // runner, and the new runner then runs two faults one after another.
  it('a failing runner is ended and its reason reported; new runners take the next faults in turn, none lingering', {
    timeout: 400_000,
  }, async () => {
    const verdicts: FaultVerdict[] = [];
    // An id the reference does not know: its switch fails inside the runner. Then the same checks
    // twice: with a fault that breaks GET /me, and with one that leaves it alone.
    const queue = [
      { id: 'no-such-fault', violates: ['ME-200-SHAPE'] },
      { id: 'me-missing-field', violates: ['ME-200-SHAPE'] },
      { id: 'docs-missing', violates: ['ME-200-SHAPE'] },
    ] as never[];
    await embeddedSlot(queue, embeddedEnvironment(), (verdict) => verdicts.push(verdict));
    // A fault the runner did not count goes first (as if the longest): the failure comes before the next fault.
    expect(verdicts.map((v) => v.fault)).toEqual(['no-such-fault', 'me-missing-field', 'docs-missing']);
    const failed = verdicts[0]!;
    expect(failed.caught).toBe(false);
    expect(verdictLine(failed)).toMatch(
      /^✗ no-such-fault +\d+\.\d s {2}NOT CAUGHT the run failed: unknown fault id: no-such-fault/,
    );
    expect(verdicts[1]).toMatchObject({
      caught: true,
      exitCode: 1,
      caughtBy: expect.arrayContaining([expect.stringMatching(/^GET \/me /)]),
    });
    // The same runner, the same checks (the ones that just caught me-missing-field), the next fault:
    // every check passes, so nothing of me-missing-field stayed on.
    expect(verdicts[2]).toMatchObject({ caught: false, caughtBy: [], exitCode: 0 });
    expect(verdicts[2]!.missed).toMatch(/^\(violates ME-200-SHAPE\): its checks passed: GET \/me /);
    expect(verdicts[2]!.problem).toBeUndefined();
  });

  // How many checks the stop spares depends on the host's pace (a check already running ends first; on a
  // busy host every check may have ended before the stop arrives): a speed figure, in bench/RESULTS.md.
  // What holds whatever the pace is asserted here: the same verdict, every check reported.
  it("a fault's run that stops at its first catch gives the verdict of one that runs every check", {
    timeout: 300_000,
  }, async () => {
    // nm-create-lost-update's checks are in several files; the one that catches it is not the last.
    const fault = faults.find((f) => f.id === 'nm-create-lost-update')!;
    const runner = await RunnerProcess.start(embeddedEnvironment());
    try {
      const first = await runner.run(fault);
      const every = await runner.run(fault, undefined, true);
      if ('problem' in first || 'problem' in every) throw new Error('the runner failed');
      const names = (report: RunReport) => report.checks.map((c) => c.name).sort();
      expect(names(first.report)).toEqual(names(every.report));
      expect(every.report.checks.map((c) => c.status)).not.toContain('skipped');
      for (const { report, exitCode } of [first, every]) {
        expect(judgeFault(fault.violates, report)).toHaveLength(1);
        expect(exitCode).toBe(1);
      }
      // One failing check in both: stopping adds no failure and hides none.
      expect(first.report.checks.filter((c) => c.status === 'failed')).toHaveLength(1);
    } finally {
      await runner.end();
    }
  });

  it('remotely with every fixture and CONTROL_URL: faults only they reveal are caught; the rate limit is set aside', {
    timeout: 400_000,
  }, () => {
    const only = ['balance-upstream-failure-hidden', 'calls-dialer-not-checked', 'no-retry-after-5xx', 'no-rate-limit'];
    const result = spawnSync(
      process.execPath,
      ['commands/self-proof.ts', '--remote', '--concurrency', '2', '--only', only.join(',')],
      { encoding: 'utf8', timeout: 390_000, env: { ...process.env, CI: 'true' } },
    );
    expect(result.stdout, result.stderr).toMatch(
      /kill rate \(remote target, every probe\): 3\/3 faults caught \(100\.0 %\), 1 not verifiable remotely/,
    );
    expect(result.stdout).toMatch(/^- no-rate-limit .* not verifiable remotely: .*embedded reference server/m);
    const dialerCaught = /^✓ calls-dialer-not-checked .*caught by: POST \/calls answers 409 dialer_required/m;
    expect(result.stdout).toMatch(dialerCaught);
    expect(result.status).toBe(0);
  });
});
