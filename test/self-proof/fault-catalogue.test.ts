/**
 * The suite proves itself: against the reference server with each fault of its catalogue
 * switched on alone, the run fails with a failing check tagged with a requirement the fault
 * violates. Prints the kill rate; anything below 100 % fails.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { judgeFault } from '../../cli/fault-catalogue.ts';
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
