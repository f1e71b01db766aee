/**
 * The API properties prove themselves: against the embedded reference server with one fault of
 * the catalogue on, each must fail. That they all pass with no fault on is proven by
 * test/commands/vitest-projects.run.test.ts, which runs the same `--project properties` (beside the
 * conformance project) with the same binary and asserts no check failed.
 *
 * The first pair and the no-fault run go as users run them: the local vitest binary, the
 * properties project, one check selected with -t. The other pairs go through one self-proof
 * runner (self-proof/runner.ts): the same -t pattern and seed, a fresh reference with the fault
 * alone on and a fresh test worker for each, without a process and vitest start per pair; there
 * the failing input is reported as found, not shrunk (the verdict is all the self-proof needs).
 *
 * A fixed PROPERTY_SEED makes every run the same inputs, so this test is deterministic; the full
 * list of (property, fault) pairs verified by hand is at the top of each property file.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedEnvironment, RunnerProcess } from '../../self-proof/catalogue.ts';
import { titlePattern } from '../../harness/checks/property.ts';
import { titles } from '../../properties/titles.ts';

const VITEST = 'node_modules/.bin/vitest';
const SEED = '20260101';
// A hang guard sized for a busy machine (npm test runs files side by side), not a speed limit.
const CHILD_TIMEOUT_MS = 180_000;

function runProperties(title: string, fault: string): { status: number | null; output: string } {
  const args = ['run', '--project', 'properties', '-t', titlePattern(title)];
  const result = spawnSync(VITEST, args, {
    encoding: 'utf8',
    timeout: CHILD_TIMEOUT_MS,
    // No .env of the developer may point the children at a remote target.
    env: {
      ...process.env,
      OCC_REFERENCE_FAULTS: fault,
      PROPERTY_SEED: SEED,
      API_BASE_URL: '',
      NO_COLOR: '1',
      FORCE_COLOR: '0',
    },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const pairs: Array<{ title: string; fault: string }> = [
  { title: titles.cdrWindowStatus, fault: 'cdrs-window-32d-accepted' },
  { title: titles.cdrRows, fault: 'cdrs-limit-ignored' },
  { title: titles.hookStateMachine, fault: 'hooks-delete-twice-204' },
  { title: titles.hookAutoDisable, fault: 'auto-disable-early' },
  { title: titles.hooksNegative, fault: 'hooks-http-target-accepted' },
  { title: titles.callsNegative, fault: 'calls-e164-not-validated' },
  { title: titles.hooksPositive, fault: 'hooks-target-scheme-case-sensitive' },
  { title: titles.hooksPositive, fault: 'json-content-type-exact-match' },
];

const replay = `PROPERTY_SEED=${SEED} npx vitest run --project properties -t`;

describe("the API properties catch the reference server's faults", () => {
  const [first, ...rest] = pairs;

  it(`"${first!.title}" fails with ${first!.fault} on, run with the vitest binary and -t`, {
    timeout: CHILD_TIMEOUT_MS + 5_000,
  }, () => {
    const { status, output } = runProperties(first!.title, first!.fault);
    expect(status, output.slice(-3000)).not.toBe(0);
    // The failure is this property's, with its replay command, not a run that found nothing.
    expect(output).toContain(replay);
    expect(output).toMatch(/1 failed/);
    // A run of its own shrinks the counterexample it reports.
    expect(output).toMatch(/counterexample \(shrunk [1-9]\d* times\):/);
  });

  describe('through one self-proof runner', () => {
    let runner: RunnerProcess;
    beforeAll(async () => {
      runner = await RunnerProcess.start(embeddedEnvironment());
    }, CHILD_TIMEOUT_MS);
    afterAll(async () => {
      await runner?.end();
    });

    for (const { title, fault } of rest) {
      it(`"${title}" fails with ${fault} on`, { timeout: CHILD_TIMEOUT_MS + 5_000 }, async () => {
        const outcome = await runner.run(
          { id: fault, violates: [] },
          { testNamePattern: titlePattern(title), seed: Number(SEED) },
        );
        if ('problem' in outcome) throw new Error(outcome.problem);
        // This property alone ran, and failed with its replay command.
        expect(outcome.report.checks.map((check) => [check.name, check.status])).toEqual([[title, 'failed']]);
        expect(outcome.report.checks[0]!.failure).toContain(replay);
        expect(outcome.exitCode).toBe(1);
        // The self-proof needs the verdict alone: the first failing input, not shrunk (harness/run/context.ts shrink).
        expect(outcome.report.checks[0]!.failure).toMatch(/^counterexample: /m);
      });
    }
  });
});
