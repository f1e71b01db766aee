/**
 * Two principals (docs/relations.md "Two principals"): every read of openapi.json (each GET
 * operation) asked by two principals — two accounts' tokens, and two scope sets of one account —
 * at the same moment (t.callTogether) and in quick alternation answers each exactly as it answers
 * that principal alone (a live body's numbers apart: the balance moves). A cache keyed by the URL
 * (or by the URL and the account), a context bound to a connection, a buffer shared between two
 * requests: each shows as one principal's answer given to the other. The pairs are derived from
 * the document (operators/principals.ts); isolation.suite.ts looks for another account's values in
 * a list, this family for any answer crossing between two principals.
 */
import { describe } from 'vitest';
import { openapi } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import type { TokenName } from '../harness/config/tokens.ts';
import type { Document } from '../operators/document.ts';
import { liveBody } from '../operators/equivalences.ts';
import {
  PRINCIPAL_PROBE_REQUESTS,
  principalProbes,
  principalsRelation,
  rankPrincipals,
  type PrincipalProbe,
} from '../operators/principals.ts';
import { callOf, describe as describeAnswer, differsRead, relationPart, validRequest } from './rules/relations.ts';

const doc = openapi as unknown as Document;
const derived = principalProbes(doc);
const ranked = rankPrincipals(derived);

/** One principal's request of the read. */
const requestOf = (t: CheckTools, probe: PrincipalProbe, name: string) =>
  callOf(validRequest(t, probe.operation.key, t.token(name as TokenName)));

/**
 * The answers of the read to both principals: alone (the narrower principal first, before the other
 * has asked anything in this check, so no answer of the other's can be served to it as its own), at
 * the same moment, then in quick alternation.
 */
async function readings(t: CheckTools, probe: PrincipalProbe) {
  const first = requestOf(t, probe, probe.first);
  const second = requestOf(t, probe, probe.second);
  const secondAlone = await t.call(second);
  const alone = [await t.call(first), secondAlone] as const;
  const together = await t.callTogether([first, second]);
  const reversed = await t.call(second);
  const again = await t.call(first);
  return {
    alone,
    mixed: [
      { who: probe.first, how: 'at the same moment', got: together[0]!, own: alone[0] },
      { who: probe.second, how: 'at the same moment', got: together[1]!, own: alone[1] },
      { who: probe.second, how: `right after ${probe.first}'s`, got: reversed, own: alone[1] },
      { who: probe.first, how: `right after ${probe.second}'s`, got: again, own: alone[0] },
    ],
  };
}

describe('Relations: two principals reading at once each get their own answer', () => {
  for (const probe of derived) {
    const key = probe.operation.key;
    const part = relationPart('principals', ranked, [probe], 'STD-PRINCIPALS-NO-MIX', (p) => `${key} ${p.what}`);
    const live = liveBody(doc, probe.operation);
    check(
      `relation (principals): ${key} asked by ${probe.kind} (${probe.what}) at the same moment and in ` +
        "alternation answers each its own answer, never the other's",
      {
        verifies: ['STD-PRINCIPALS-NO-MIX'],
        needs: { tokens: [probe.first as TokenName, probe.second as TokenName] },
        requests: part.sent.length === 0 ? 0 : PRINCIPAL_PROBE_REQUESTS,
        requestsAll: PRINCIPAL_PROBE_REQUESTS,
        turn: part.turn,
      },
      async (t) => {
        part.observe(t);
        const { alone, mixed } = await readings(t, probe);
        if (alone.some((e) => (e.status ?? 0) >= 500))
          return t.notVerifiable(`${key} alone answered ${alone.map(describeAnswer).join(' and ')}`);
        if (probe.secondRefused)
          t.verify(
            'STD-PRINCIPALS-NO-MIX',
            alone[1].status === 401,
            `${key} for ${probe.second} alone: its own answer is 401 (it lacks the scope ${key} takes), got ` +
              `${describeAnswer(alone[1])}: an answer meant for another principal of its account`,
          );
        for (const { who, how, got, own } of mixed) {
          const problem = differsRead(got, own, live ? 'live' : 'read');
          t.verify(
            'STD-PRINCIPALS-NO-MIX',
            problem === undefined,
            `${principalsRelation.id} (${principalsRelation.section}): ${key} for ${who} ${how}: ${problem ?? ''} ` +
              `(alone it answered ${describeAnswer(own)})`,
          );
        }
        t.observe(
          'STD-PRINCIPALS-NO-MIX',
          `${key}: ${probe.first} alone ${describeAnswer(alone[0])}, ${probe.second} alone ${describeAnswer(alone[1])}`,
        );
      },
    );
  }
});
