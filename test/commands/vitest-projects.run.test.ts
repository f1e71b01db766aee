/**
 * The suite run directly by vitest, as docs/architecture.md shows it: `npx vitest run --project conformance`
 * (and `--project properties`) against the embedded reference, one worker, one check at a time
 * (vitest.config.ts: no check gate without `occ run`), and one requirement's checks with
 * `--tags-filter`. npm test runs them here, in a process of their own, rather than as projects of
 * its own run: as projects they ran first, one worker on one core, while the other core idled.
 */
import { describe, expect, it } from 'vitest';
import { runProcess } from './occ-process.ts';

const VITEST = 'node_modules/.bin/vitest';

/** The closing line of our reporter (harness/report/closing-line.ts). */
function closing(stdout: string): { passed: number; failed: number } {
  const match = /^tests: (\d+) passed, (\d+) failed, \d+ skipped$/m.exec(stdout);
  if (match === null) throw new Error(`no "tests:" line in:\n${stdout.slice(-3000)}`);
  return { passed: Number(match[1]), failed: Number(match[2]) };
}

describe('the suite run directly by vitest', () => {
  it('npx vitest run --project conformance --project properties passes every check against the embedded reference', {
    timeout: 300_000,
  }, async () => {
    // No API_BASE_URL: the embedded reference (cleanEnv keeps a developer's variables out).
    const run = await runProcess(
      VITEST,
      ['run', '--project', 'conformance', '--project', 'properties'],
      { NO_COLOR: '1' },
      { timeoutMs: 280_000 },
    );
    const { passed, failed } = closing(run.stdout);
    expect(
      failed,
      run.stdout
        .split('\n')
        .filter((line) => line.includes('FAIL'))
        .join('\n'),
    ).toBe(0);
    expect(passed).toBeGreaterThanOrEqual(140);
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
  });

  it("vitest --project conformance --tags-filter=CDRS-WINDOW-MAX-31D runs that requirement's checks alone; all pass", {
    timeout: 300_000,
  }, async () => {
    const run = await runProcess(
      VITEST,
      ['run', '--project', 'conformance', '--tags-filter=CDRS-WINDOW-MAX-31D'],
      { NO_COLOR: '1' },
      { timeoutMs: 280_000 },
    );
    const { passed, failed } = closing(run.stdout);
    expect(failed).toBe(0);
    expect(passed).toBeGreaterThan(0);
    expect(passed).toBeLessThan(20);
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
  });
});
