import { describe, expect, it } from 'vitest';
import { createLintTally, lintMessage, mergeTallies, tallyRecord } from '../../../contract/standards/lint.ts';
import { bodyFacts, type LintedMessage } from '../../../contract/standards/message.ts';
import { mergeWorkers } from '../../../harness/run/tallies.ts';

const answer = (fields: Array<[string, string]>): LintedMessage => ({
  channel: 'api',
  method: 'GET',
  path: '/v1/me',
  documentedMethods: ['GET'],
  requestHeaders: {},
  status: 200,
  fields,
  body: bodyFacts(Buffer.from('{}')),
});
const dated = answer([
  ['content-type', 'application/json'],
  ['date', 'Sat, 28 Nov 2026 23:00:00 GMT'],
]);
const undated = answer([['content-type', 'application/json']]);

function tallyOf(...messages: LintedMessage[]) {
  const tally = createLintTally();
  for (const m of messages) tally.add(lintMessage(m));
  return tallyRecord(tally);
}

describe("the run's tallies, merged over its workers", () => {
  it('adds the counts and keeps the first findings of each requirement', () => {
    const merged = mergeTallies([tallyOf(dated, undated), tallyOf(undated, dated, dated)]);
    expect(merged.applied.get('STD-HTTP-DATE')).toBe(5);
    expect(merged.broken.get('STD-HTTP-DATE')).toBe(2);
    expect(merged.appliedRules.get('LINT-9110-DATE-PRESENT')).toBe(5);
    expect(merged.examples.get('STD-HTTP-DATE')?.map((f) => f.problem)).toEqual(['no Date', 'no Date']);
  });

  it("merges the one-time watch's counts and sightings, and a receiver only where a worker had one", () => {
    const none = { watched: 0, scanned: { answer: 0, delivery: 0 }, sightings: [] };
    const seen = {
      watched: 2,
      scanned: { answer: 5, delivery: 1 },
      sightings: [{ kind: 'delivery' as const, value: 'the secret of POST /hooks (exchange #3)', where: 'x' }],
    };
    const run = mergeWorkers([
      { worker: 'a', api: tallyOf(dated), oneTime: none },
      { worker: 'b', api: tallyOf(undated), receiver: tallyOf(), oneTime: seen },
    ]);
    expect(run.api.broken.get('STD-HTTP-DATE')).toBe(1);
    expect(run.receiver?.applied.size).toBe(0);
    expect(run.oneTime).toEqual({ watched: 2, scanned: { answer: 5, delivery: 1 }, sightings: seen.sightings });
    expect(mergeWorkers([{ worker: 'a', api: tallyOf(), oneTime: none }]).receiver).toBeUndefined();
  });
});
