/**
 * The suite proves itself: against the reference server with each fault of its catalogue
 * switched on alone, the run fails with a failing check tagged with a requirement the fault
 * violates. Prints the kill rate; anything below 100 % fails.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { judgeFault, slicesReported, unverifiable } from '../../cli/fault-catalogue.ts';
import { faults } from '../../reference/faults.ts';
import { requirements } from '../../requirements/catalogue.ts';

describe('the fault catalogue', () => {
  it('names only requirement ids of the catalogue, and at least 30 faults across every area', () => {
    const ids = new Set(requirements.map((r) => r.id));
    for (const fault of faults) for (const id of fault.violates) expect(ids.has(id), `${fault.id} names ${id}`).toBe(true);
    expect(faults.length).toBeGreaterThanOrEqual(30);
    const areas = new Set(faults.flatMap((f) => f.violates.map((id) => id.split('-')[0])));
    for (const area of ['ME', 'BALANCE', 'CDRS', 'AGENTS', 'CALLS', 'HOOKS', 'AUTH', 'EVENT', 'WEBHOOK', 'RATE', 'VERSION']) expect(areas.has(area), area).toBe(true);
  });

  it('counts a fault as caught only by a failing check that carries a violated requirement', () => {
    const check = (name: string, status: 'passed' | 'failed', ids: string[]) => ({ name, status, requirements: ids }) as never;
    expect(judgeFault(['A-1'], { checks: [check('x', 'failed', ['B-2']), check('y', 'passed', ['A-1'])] })).toEqual([]);
    expect(judgeFault(['A-1', 'C-3'], { checks: [check('x', 'failed', ['C-3', 'D-4'])] })).toEqual(['x']);
    // Split by per-requirement verdicts: only the requirements the check failed count.
    const split = (name: string, failed: string[]) => ({ name, status: 'failed', requirements: ['A-1', 'D-4'], failedRequirements: failed }) as never;
    expect(judgeFault(['A-1'], { checks: [split('y', ['D-4'])] })).toEqual([]);
    expect(judgeFault(['A-1'], { checks: [split('z', ['A-1'])] })).toEqual(['z']);
  });

  it('remotely, sets a fault aside only when no requirement it violates was verifiable in the run', () => {
    const requirement = (id: string, status: string, notVerifiableBecause: string[] = []) => ({ id, status, notVerifiableBecause }) as never;
    expect(unverifiable(['A-1', 'B-2'], { requirements: [requirement('A-1', 'not_verifiable', ['needs X']), requirement('B-2', 'passed')] })).toBeUndefined();
    expect(unverifiable(['A-1'], { requirements: [requirement('A-1', 'not_verifiable', ['needs X']), requirement('C-3', 'failed')] })).toBe('needs X');
  });

  it('remotely, runs again with the next seeds as long as a rotating check has slices not yet sent', () => {
    const check = (texts: string[]) => ({ observations: texts.map((text) => ({ requirement: 'X', text })) }) as never;
    expect(slicesReported({ checks: [check(['a 201'])] })).toBe(1);
    expect(slicesReported({ checks: [check(['request budget: this run (seed 1) sent slice 2 of 4 of this check\'s near-miss probes (…)']), check(['… slice 1 of 3 …'])] })).toBe(4);
  });

  it('remotely (the reference as a separate process, every fixture, CONTROL_URL): faults seen only through the control endpoint or the new fixtures are caught; the rate limit is set aside', { timeout: 400_000 }, () => {
    const only = ['balance-upstream-failure-hidden', 'calls-dialer-not-checked', 'no-retry-after-5xx', 'no-rate-limit'];
    const result = spawnSync(process.execPath, ['cli/fault-catalogue.ts', '--remote', '--concurrency', '2', '--only', only.join(',')], { encoding: 'utf8', timeout: 390_000, env: { ...process.env, CI: 'true' } });
    expect(result.stdout, result.stderr).toMatch(/kill rate \(remote target\): 3\/3 faults caught \(100\.0 %\), 1 not verifiable remotely/);
    expect(result.stdout).toMatch(/^- no-rate-limit .* not verifiable remotely: .*embedded reference server/m);
    expect(result.stdout).toMatch(/^✓ calls-dialer-not-checked .*caught by: POST \/calls answers 409 dialer_required/m);
    expect(result.status).toBe(0);
  });

  it('every fault is caught by the suite: kill rate 100 %', { timeout: 600_000 }, () => {
    const result = spawnSync(process.execPath, ['cli/fault-catalogue.ts', '--concurrency', '2'], { encoding: 'utf8', timeout: 590_000, env: { ...process.env, CI: 'true' } });
    const killRate = /kill rate: (\d+)\/(\d+) faults caught/.exec(result.stdout);
    process.stdout.write(`${result.stdout.split('\n').filter((line) => line.startsWith('✗') || line.startsWith('kill rate')).join('\n')}\n`);
    expect(killRate, result.stderr).not.toBeNull();
    expect(Number(killRate![2])).toBe(faults.length);
    const missed = result.stdout.split('\n').filter((line) => line.startsWith('✗'));
    expect(missed).toEqual([]);
    expect(result.status).toBe(0);
  });
});
