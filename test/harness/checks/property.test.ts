/**
 * harness/checks/property.ts's reporter: a property whose predicate failed is a counterexample
 * (a CheckFailure with the replay command); one whose exchange the network broke is not, and its
 * error goes on as it is, so the check ends not verifiable instead of failed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CheckFailure } from '../../../harness/checks/check.ts';
import { propertyReporter } from '../../../harness/checks/property.ts';
import { TransportFailure } from '../../../harness/http/transport.ts';

/** fast-check's details of a property whose predicate threw `error` on its first run. */
async function detailsOf(error: Error): Promise<fc.RunDetails<[number]>> {
  return fc.check(
    fc.asyncProperty(fc.integer(), async (_n: number) => {
      throw error;
    }),
    { numRuns: 3, seed: 7, endOnFailure: true },
  );
}

describe('the property reporter', () => {
  it('turns a failed predicate into a CheckFailure naming the counterexample and the replay', async () => {
    const report = propertyReporter<[number]>('GET /cdrs windows');
    const failing = report(await detailsOf(new Error('3 records outside the window')));
    await expect(failing).rejects.toBeInstanceOf(CheckFailure);
    await expect(failing).rejects.toThrow(/3 records outside the window\ncounterexample: \[-?\d+\][\s\S]*replay: /);
  });

  it("hands the network's failure on as it is: no counterexample, no verdict", async () => {
    const network = new TransportFailure('reset', 'connection reset or closed before a complete response (x)');
    const report = propertyReporter<[number]>('GET /cdrs windows');
    await expect(report(await detailsOf(network))).rejects.toBe(network);
    const passing = await fc.check(fc.asyncProperty(fc.integer(), async (_n: number) => true));
    await expect(report(passing)).resolves.toBeUndefined();
  });
});
