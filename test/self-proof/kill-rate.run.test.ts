/**
 * The kill rate, as `npm run self-proof` prints it: every fault of the catalogue caught, 100 %.
 * A file of its own (the catalogue's other tests are in fault-catalogue.run.test.ts) because it is
 * npm test's longest run: on its own worker it starts first and runs beside the rest.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { faults } from '../../reference/faults.ts';

const HANG_GUARD_MS = 1_200_000;

describe('the fault catalogue', () => {
  // A hang guard, not a speed limit: on a busy 2-core machine, beside the rest of npm test, the
  // whole catalogue has taken close to ten minutes; the guard leaves it twice that. The test's own
  // timeout (HANG_GUARD_MS and 10 s) is a literal: vitest.config.ts reads it to start this file first.
  it('every fault is caught by the suite: kill rate 100 %', { timeout: 1_210_000 }, () => {
    const result = spawnSync(process.execPath, ['commands/self-proof.ts', '--concurrency', '2'], {
      encoding: 'utf8',
      timeout: HANG_GUARD_MS,
      env: { ...process.env, CI: 'true' },
    });
    const killRate = /kill rate: (\d+)\/(\d+) faults caught/.exec(result.stdout);
    process.stdout.write(
      `${result.stdout
        .split('\n')
        .filter((line) => line.startsWith('✗') || line.startsWith('kill rate'))
        .join('\n')}\n`,
    );
    if (result.error !== undefined)
      throw new Error(
        `the self-proof did not end within its hang guard of ${HANG_GUARD_MS / 60_000} min: ${result.error.message}`,
      );
    expect(killRate, result.stderr).not.toBeNull();
    expect(Number(killRate![2])).toBe(faults.length);
    const missed = result.stdout.split('\n').filter((line) => line.startsWith('✗'));
    expect(missed).toEqual([]);
    expect(result.status).toBe(0);
  });
});
