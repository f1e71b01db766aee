/**
 * The kill rate, as `npm run self-proof` prints it: every fault of the catalogue caught, 100 %.
 * A file of its own (the catalogue's other tests are in fault-catalogue.run.test.ts) because it is
 * npm test's longest run: on its own worker it starts first and runs beside the rest.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { faults } from '../../reference/faults.ts';

describe('the fault catalogue', () => {
  it('every fault is caught by the suite: kill rate 100 %', { timeout: 600_000 }, () => {
    const result = spawnSync(process.execPath, ['commands/self-proof.ts', '--concurrency', '2'], {
      encoding: 'utf8',
      timeout: 590_000,
      env: { ...process.env, CI: 'true' },
    });
    const killRate = /kill rate: (\d+)\/(\d+) faults caught/.exec(result.stdout);
    process.stdout.write(
      `${result.stdout
        .split('\n')
        .filter((line) => line.startsWith('✗') || line.startsWith('kill rate'))
        .join('\n')}\n`,
    );
    expect(killRate, result.stderr).not.toBeNull();
    expect(Number(killRate![2])).toBe(faults.length);
    const missed = result.stdout.split('\n').filter((line) => line.startsWith('✗'));
    expect(missed).toEqual([]);
    expect(result.status).toBe(0);
  });
});
