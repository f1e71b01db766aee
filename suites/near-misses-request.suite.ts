/**
 * Near misses derived from the contract (docs/near-misses.md, "Request-shape families"): the
 * operators of operators/ applied to openapi.json, each probe judged by its operator's rule.
 * Nothing here lists a probe: the surface, credential, string, number and identifier probes are
 * computed from the document, and the checks only send them, seeded with values this target
 * accepts. Where a near miss has two defensible answers, both pass and the one taken is recorded.
 */
import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { DAY_MS, openapi } from '../contract/openapi.ts';
import { type CallRequest, CheckFailure, check, type CheckTools, type Turn } from '../harness/checks/check.ts';
import type { Exchange } from '../harness/http/client.ts';
import { subscribe } from '../harness/seams/subscriptions.ts';
import { deriveProbes } from '../operators/catalogue.ts';
import { carry, type CredentialProbe } from '../operators/credentials.ts';
import { refusalsOf, type IdentifierProbe } from '../operators/identifiers.ts';
import { elementsOf, type Document, type Element } from '../operators/document.ts';
import { describeAnswer, judge } from '../operators/expectation.ts';
import { byElement, type ValueProbe } from '../operators/operator.ts';
import type { RequirementId } from '../requirements/catalogue.ts';
import {
  answerOf,
  cleanUpCreated,
  elementRules,
  narrow,
  nearMissTurn,
  numberRules,
  pastWindow,
  requestWith,
  seedOf,
} from './rules/near-misses.ts';

const doc = openapi as unknown as Document;
const derived = deriveProbes(doc);
const elements = elementsOf(doc);
const turn = nearMissTurn();

/**
 * A request off the declared surface; undefined when the target closed the connection without an
 * answer (HTTP lets a server do so for a method it does not implement: no body, nothing to judge).
 */
async function sendOffSurface(t: CheckTools, method: string, path: string): Promise<Exchange | undefined> {
  try {
    return await t.call({ method, path, token: t.token('all'), validate: false });
  } catch (error) {
    // Unvalidated, t.call fails only for a transport failure; a 429 (NotVerifiable) goes on up.
    if (error instanceof CheckFailure) return undefined;
    throw error;
  }
}

describe('Near misses: the surface under /v1', () => {
  check(
    'near miss (surface): every undeclared method and unknown path under /v1 is answered in JSON (an error with ' +
      'a string `error`), HEAD with no body',
    {
      verifies: ['FORMAT-JSON-CONTENT-TYPE', 'FORMAT-ERROR-BODY'],
      needs: { tokens: ['all'] },
      requests: derived.surface.length,
      turn,
    },
    async (t) => {
      const readings: string[] = [];
      for (const probe of derived.surface) {
        const exchange = await sendOffSurface(t, probe.method, probe.path);
        if (exchange === undefined) {
          readings.push(`${probe.what} → the connection closed with no answer`);
          continue;
        }
        const verdict = judge(probe.expect, answerOf(exchange));
        readings.push(`${probe.what} → ${verdict.reading}`);
        const id = verdict.problem?.includes('`error`') ? 'FORMAT-ERROR-BODY' : 'FORMAT-JSON-CONTENT-TYPE';
        t.verify(id, verdict.ok, `${probe.operator}: ${probe.method} ${probe.path}: ${verdict.problem ?? ''}`);
      }
      t.observe('FORMAT-ERROR-BODY', `undeclared methods and unknown paths: ${readings.join('; ')}`);
    },
  );
});

/** Without an Authorization header the token authenticates nothing; under another scheme neither. */
const credentialRequirement = (probe: CredentialProbe): RequirementId =>
  probe.placement.in === 'header' && probe.placement.name.toLowerCase() === 'authorization'
    ? 'AUTH-MALFORMED-SCHEME'
    : 'AUTH-BEARER-REQUIRED';

describe('Near misses: the token anywhere but Authorization: Bearer', () => {
  const byOperation = new Map<string, CredentialProbe[]>();
  for (const probe of derived.credentials)
    byOperation.set(probe.operation.key, [...(byOperation.get(probe.operation.key) ?? []), probe]);
  for (const [key, probes] of byOperation) {
    check(
      `near miss (credentials): ${key} refuses (401 unauthorized) a valid token in the query string, a cookie, ` +
        'another header or scheme',
      {
        verifies: ['AUTH-BEARER-REQUIRED', 'AUTH-MALFORMED-SCHEME'],
        needs: { tokens: ['all'] },
        requests: probes.length,
        turn,
      },
      async (t) => {
        for (const probe of probes) {
          const { method, path } = probe.operation;
          const concrete = path.replace(/\{[^}]+\}/g, () => randomUUID());
          const body = method === 'POST' ? { json: { nearMiss: true } } : {};
          const placed = carry(probe.placement, t.token('all'));
          const exchange = await t.call({ method, path: concrete, ...body, ...placed });
          await cleanUpCreated(t, exchange);
          const verdict = judge(probe.expect, answerOf(exchange));
          t.verify(
            credentialRequirement(probe),
            verdict.ok,
            `${probe.operator}: ${key} with ${probe.what}: ${verdict.problem ?? ''}`,
          );
        }
      },
    );
  }
});

/** A change to every request of a check (the originating one's destination). */
type Adjust = (request: CallRequest) => CallRequest;

/** Sends one value probe, from the element's seed (and, for same-value, the canonical form once); its verdict. */
async function sendValueProbe(
  t: CheckTools,
  probe: ValueProbe,
  seed: string,
  window: { from: string; till: string },
  adjust: Adjust,
  canonical: () => Promise<ReturnType<typeof answerOf>>,
): Promise<void> {
  const rule = elementRules[probe.element.id];
  if (rule === undefined) return t.fail(`check bug: no requirement for near misses of ${probe.element.id}`);
  const exchange = await t.call(adjust(requestWith(t, probe.element, probe.value(seed), elements, window)));
  await cleanUpCreated(t, exchange);
  const expect = narrow(probe.expect, rule.code);
  const verdict = judge(expect, answerOf(exchange), expect.kind === 'same-value' ? await canonical() : undefined);
  const requirement =
    expect.kind === 'same-value' ? (rule.same ?? rule.refused) : (rule.byOperator?.[probe.operator] ?? rule.refused);
  const what = `${probe.element.id} with ${probe.what} (${JSON.stringify(probe.value(seed))})`;
  t.verify(requirement, verdict.ok, `${probe.operator}: ${what}: ${verdict.problem ?? ''}`);
  if (expect.kind === 'same-value' && expect.or !== undefined)
    t.observe(requirement, `${what}: ${verdict.reading} (either reading passes)`);
}

/** POST /calls near misses a conforming target may accept originate a call: only where that is allowed. */
const originates = (probe: ValueProbe) => probe.mayBeAccepted && probe.element.operation.key === 'POST /calls';

function stringCheck(element: Element, probes: readonly ValueProbe[], originate: boolean): void {
  const rule = elementRules[element.id];
  const verifies = [
    ...new Set([
      rule?.refused ?? 'CONTRACT-DOCUMENTED-STATUS',
      ...(rule?.same ? [rule.same] : []),
      ...probes.flatMap((p) => rule?.byOperator?.[p.operator] ?? []),
    ]),
  ];
  const sameValue = probes.some((p) => p.expect.kind === 'same-value');
  check(
    originate
      ? `near miss (constrained strings): ${element.id} in a form that may name the same id is refused, not ` +
          'found, or taken as that id'
      : `near miss (constrained strings): ${element.id} one step from its constraint is refused with the ` +
          'documented code, or taken as the value a standard makes it equal to',
    {
      verifies: verifies as [RequirementId, ...RequirementId[]],
      needs: {
        tokens: ['all'],
        ...(element.operation.key === 'POST /calls' ? { agents: ['provisioned' as const] } : {}),
        ...(originate ? { originate: true } : {}),
      },
      requests: probes.length + (sameValue ? 1 : 0),
      turn,
    },
    async (t) => {
      const window = pastWindow();
      const seed = seedOf(t, element, window);
      // Where a probe may be taken as the valid value it originates a call: to the number allowed to ring.
      const adjust: Adjust = originate
        ? (r) => ({ ...r, json: { ...(r.json as object), toNumber: t.target.destinationNumber } })
        : (r) => r;
      let canonical: ReturnType<typeof answerOf> | undefined;
      const canonicalAnswer = async () => {
        canonical ??= answerOf(await t.call(adjust(requestWith(t, element, seed, elements, window))));
        return canonical;
      };
      for (const probe of probes) await sendValueProbe(t, probe, seed, window, adjust, canonicalAnswer);
    },
  );
}

describe('Near misses: constrained strings', () => {
  for (const [id, probes] of byElement(derived.strings)) {
    const element = probes[0]!.element;
    const plain = probes.filter((p) => !originates(p));
    const accepted = probes.filter(originates);
    if (plain.length > 0) stringCheck(element, plain, false);
    if (accepted.length > 0) stringCheck(element, accepted, true);
    void id;
  }
});

describe('Near misses: bounded numbers', () => {
  for (const [id, probes] of byElement(derived.numbers)) {
    const element = probes[0]!.element;
    const rule = numberRules[id];
    if (rule === undefined)
      throw new Error(`no requirement for the near misses of ${id} (suites/rules/near-misses.ts)`);
    check(
      `near miss (numbers): ${element.id} at each bound ±1, 0, −1, fractions, exponent forms and a huge value is ` +
        'honoured within the bounds, and never read as "no limit"',
      {
        verifies: [rule.outside, rule.inside, rule.observed],
        needs: { tokens: ['all'] },
        requests: probes.length,
        turn,
      },
      async (t) => {
        // Thirty days: a window holding more than the maximum shows a value read as "no limit".
        const window = pastWindow(Date.now(), 30 * DAY_MS);
        const readings: string[] = [];
        for (const probe of probes) {
          const value = probe.value('');
          const exchange = await t.call(requestWith(t, element, value, elements, window));
          const verdict = judge(probe.expect, answerOf(exchange));
          readings.push(`${element.name}=${value} → ${verdict.reading}`);
          const inRange = probe.expect.kind === 'within' && probe.expect.or.length === 0;
          const requirement = inRange ? rule.inside : rule.outside;
          t.verify(
            requirement,
            verdict.ok,
            `${probe.operator}: ${element.name}=${value} (${probe.what}): ${verdict.problem ?? ''}`,
          );
        }
        t.observe(rule.observed, readings.join('; '));
      },
    );
  }
});

/** The id an operation issued, to write another way: POST /hooks subscribes to the run's receiver. */
async function issue(t: CheckTools, probe: IdentifierProbe, tokenName: 'all' | 'noDialer' = 'all') {
  if (probe.binding.producer !== 'POST /hooks') return t.fail(`check bug: no way to issue ${probe.binding.producer}`);
  return subscribe(t, { event: 'dnc.added', tokenName });
}

/** The consuming request with `id` in the bound path parameter. */
function consume(t: CheckTools, probe: IdentifierProbe, id: string) {
  const { method, path } = probe.binding.parameter.operation;
  const name = probe.binding.parameter.name;
  return t.call({ method, path: path.replace(`{${name}}`, encodeURIComponent(id)), token: t.token('all') });
}

const IDENTIFIER_RULES: Readonly<Record<string, RequirementId>> = {
  'NM-ID-CASE': 'HOOKS-DELETE-SOFT',
  'NM-ID-APPENDED': 'HOOKS-DELETE-NON-UUID-400',
  'NM-ID-CHANGED': 'HOOKS-DELETE-UNKNOWN-404',
  'NM-ID-SIBLING': 'HOOKS-DELETE-SOFT',
  'NM-ID-FOREIGN': 'HOOKS-DELETE-FOREIGN-404',
};

/**
 * The issued id written another way: refused ones first (each must leave the resource as it was),
 * then a sibling's id (acts on the sibling only), then the id in upper case, which must act on the
 * resource itself: it is still there only if every probe before left it, and gone after it.
 */
async function issuedIdProbes(t: CheckTools, probes: readonly IdentifierProbe[]): Promise<void> {
  const issued = await issue(t, probes[0]!);
  const verify = (probe: IdentifierProbe, ok: boolean, message: string) =>
    t.verify(IDENTIFIER_RULES[probe.operator] ?? 'HOOKS-DELETE-SOFT', ok, `${probe.operator}: ${message}`);
  for (const probe of probes.filter((p) => p.needs === 'issued' && p.outcome.kind === 'refused-leaves-it')) {
    const answer = answerOf(await consume(t, probe, probe.value(issued.id, '')));
    const verdict = judge({ kind: 'refused', answers: refusalsOf(probe) }, answer);
    verify(probe, verdict.ok, `${probe.binding.parameter.id} = ${probe.what}: ${verdict.problem ?? ''}`);
  }
  for (const probe of probes.filter((p) => p.needs === 'sibling')) {
    const sibling = await issue(t, probe);
    const answer = await sibling.remove();
    verify(
      probe,
      answer.status === probe.binding.success,
      `${probe.what}: expected ${probe.binding.success}, got ${describeAnswer(answerOf(answer))}`,
    );
  }
  for (const probe of probes.filter((p) => p.needs === 'issued' && p.outcome.kind === 'acts-on-it')) {
    const answer = answerOf(await consume(t, probe, probe.value(issued.id, '')));
    verify(
      probe,
      answer.status === probe.binding.success,
      `${probe.what} after the probes above: expected ${probe.binding.success} (the same, still active resource), ` +
        `got ${describeAnswer(answer)}`,
    );
    const again = answerOf(await issued.remove());
    verify(
      probe,
      again.status === 404,
      `the issued id after ${probe.what} acted: expected 404 (gone), got ${describeAnswer(again)}`,
    );
  }
}

function identifierChecks(probes: readonly IdentifierProbe[], turn: Turn): void {
  const bindings = new Map<string, IdentifierProbe[]>();
  for (const probe of probes)
    bindings.set(probe.binding.parameter.id, [...(bindings.get(probe.binding.parameter.id) ?? []), probe]);
  for (const [id, list] of bindings) {
    const own = list.filter((p) => p.needs !== 'foreign');
    const foreign = list.filter((p) => p.needs === 'foreign');
    const rules = [...new Set(own.map((p) => IDENTIFIER_RULES[p.operator] ?? 'HOOKS-DELETE-SOFT'))];
    check(
      `near miss (identifiers): ${id}: the issued id in upper case names the same resource; appended, changed ` +
        "or a sibling's id leaves it",
      {
        verifies: rules as [RequirementId, ...RequirementId[]],
        needs: { tokens: ['all'] },
        // The issued resource and a sibling, each probe, and the issued id once more at the end.
        requests: 2 + own.length + 1,
        turn,
        unwatchedSubscriptions: true,
      },
      (t) => issuedIdProbes(t, own),
    );
    for (const probe of foreign)
      check(
        `near miss (identifiers): ${id}: another account's id, in upper case, is not found (404) and leaves ` +
          'that resource',
        {
          verifies: ['HOOKS-DELETE-FOREIGN-404'],
          needs: { tokens: ['all', 'noDialer'] },
          requests: 3,
          turn,
          unwatchedSubscriptions: true,
        },
        async (t) => {
          const theirs = await issue(t, probe, 'noDialer');
          const answer = answerOf(await consume(t, probe, probe.value('', theirs.id)));
          const verdict = judge({ kind: 'refused', answers: refusalsOf(probe) }, answer);
          t.verify(
            'HOOKS-DELETE-FOREIGN-404',
            verdict.ok,
            `${probe.operator}: ${probe.what}: ${verdict.problem ?? ''}`,
          );
          const own = answerOf(await theirs.remove());
          t.verify(
            'HOOKS-DELETE-FOREIGN-404',
            own.status === probe.binding.success,
            `the owner's DELETE after ${probe.what}: expected ${probe.binding.success} (left active), ` +
              `got ${describeAnswer(own)}`,
          );
        },
      );
  }
}

identifierChecks(derived.identifiers, turn);
