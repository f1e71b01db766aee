/**
 * Near misses derived from the contract (docs/near-misses.md, "Request-shape families"): the
 * operators of operators/ applied to openapi.json, each probe judged by its operator's rule.
 * Nothing here lists a probe: the surface, credential, string, number and identifier probes are
 * computed from the document and ranked likeliest slip first, and the checks only send them (all
 * of them, or this run's share of each family under the request budget: familyPart), seeded with
 * values this target accepts. Where a near miss has two defensible answers, both pass and the one
 * taken is recorded.
 */
import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { DAY_MS, openapi } from '../contract/openapi.ts';
import { type CallRequest, CheckFailure, check, type CheckTools } from '../harness/checks/check.ts';
import type { Exchange } from '../harness/http/client.ts';
import { subscribe } from '../harness/seams/subscriptions.ts';
import { deriveProbes, rankProbes } from '../operators/catalogue.ts';
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
  familyPart,
  FOREIGN_ID_REQUESTS,
  issuedIdRequests,
  narrow,
  numberRules,
  originates,
  pastWindow,
  requestWith,
  seedOf,
  valueProbeRequests,
} from './rules/near-misses.ts';

const doc = openapi as unknown as Document;
const derived = deriveProbes(doc);
const ranked = rankProbes(derived);
const NOWHERE = 'https://example.invalid';
const elements = elementsOf(doc);

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
  const part = familyPart('surface', ranked.surface, ranked.surface, 'FORMAT-ERROR-BODY', (p) => p.what);
  check(
    'near miss (surface): every undeclared method and unknown path under /v1 is answered in JSON (an error with ' +
      'a string `error`), HEAD with no body',
    {
      verifies: ['FORMAT-JSON-CONTENT-TYPE', 'FORMAT-ERROR-BODY'],
      needs: { tokens: ['all'] },
      requests: part.sent.length,
      requestsAll: derived.surface.length,
      turn: part.turn,
      probes: part.probes,
    },
    async (t) => {
      part.observe(t);
      const readings: string[] = [];
      for (const probe of part.sent) {
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
  for (const probe of ranked.credentials)
    byOperation.set(probe.operation.key, [...(byOperation.get(probe.operation.key) ?? []), probe]);
  for (const [key, probes] of byOperation) {
    const part = familyPart(
      'credentials',
      ranked.credentials,
      probes,
      'AUTH-BEARER-REQUIRED',
      (p) => `${key} ${p.what}`,
    );
    check(
      `near miss (credentials): ${key} refuses (401 unauthorized) a valid token in the query string, a cookie, ` +
        'another header or scheme',
      {
        verifies: ['AUTH-BEARER-REQUIRED', 'AUTH-MALFORMED-SCHEME'],
        needs: { tokens: ['all'] },
        requests: part.sent.length,
        requestsAll: probes.length,
        turn: part.turn,
        probes: part.probes,
      },
      async (t) => {
        part.observe(t);
        for (const probe of part.sent) {
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

function stringCheck(element: Element, probes: readonly ValueProbe[], originate: boolean): void {
  const rule = elementRules[element.id];
  const verifies = [
    ...new Set([
      rule?.refused ?? 'CONTRACT-DOCUMENTED-STATUS',
      ...(rule?.same ? [rule.same] : []),
      ...probes.flatMap((p) => rule?.byOperator?.[p.operator] ?? []),
    ]),
  ];
  const describe = (p: ValueProbe) => `${p.element.id} with ${p.what}`;
  const part = familyPart('constrained strings', ranked.strings, probes, verifies[0]!, describe);
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
      // Each probe, and the canonical form once where a probe may be the same value.
      requests: valueProbeRequests(part.sent),
      requestsAll: valueProbeRequests(probes),
      turn: part.turn,
      probes: part.probes,
    },
    async (t) => {
      part.observe(t);
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
      for (const probe of part.sent) await sendValueProbe(t, probe, seed, window, adjust, canonicalAnswer);
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
    const part = familyPart('numbers', ranked.numbers, probes, rule.outside, (p) => `${p.element.name}=${p.what}`);
    check(
      `near miss (numbers): ${element.id} at each bound ±1, 0, −1, fractions, exponent forms and a huge value is ` +
        'honoured within the bounds, and never read as "no limit"',
      {
        verifies: [rule.outside, rule.inside, rule.observed],
        needs: { tokens: ['all'] },
        requests: part.sent.length,
        requestsAll: probes.length,
        turn: part.turn,
        probes: part.probes,
      },
      async (t) => {
        part.observe(t);
        // Thirty days: a window holding more than the maximum shows a value read as "no limit".
        const window = pastWindow(Date.now(), 30 * DAY_MS);
        const readings: string[] = [];
        for (const probe of part.sent) {
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

/**
 * The id an operation issued, to write another way: POST /hooks subscribes (to `targetUrl`: a sibling
 * is issued by the very same request, so only its id tells the two apart).
 */
async function issue(t: CheckTools, probe: IdentifierProbe, tokenName: 'all' | 'noDialer', targetUrl?: string) {
  if (probe.binding.producer !== 'POST /hooks') return t.fail(`check bug: no way to issue ${probe.binding.producer}`);
  return subscribe(t, { event: 'dnc.added', tokenName, ...(targetUrl === undefined ? {} : { targetUrl }) });
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

const ruleOf = (probe: IdentifierProbe): RequirementId => IDENTIFIER_RULES[probe.operator] ?? 'HOOKS-DELETE-SOFT';

/**
 * The issued id written another way: refused ones first (each must leave the resource as it was),
 * then a sibling's id (issued by the same request: acts on the sibling only), then the id in upper
 * case, which must act on the resource itself, so it is there only if every probe before left it,
 * and gone after it; without that probe, the id as issued at the end shows the resource left as
 * it was (204). Where the resource is gone before its end, the refused probes answered with the
 * success status (they acted on it) are named, else the sibling's (it acted on a resource, maybe
 * this one), else every probe before.
 */
async function issuedIdProbes(t: CheckTools, probes: readonly IdentifierProbe[]): Promise<void> {
  const targetUrl = `${t.target.receiverPublicUrl ?? NOWHERE}/nm/id/${randomUUID().slice(0, 8)}`;
  const issued = await issue(t, probes[0]!, 'all', targetUrl);
  const success = probes[0]!.binding.success;
  const verify = (probe: IdentifierProbe, ok: boolean, message: string) =>
    t.verify(ruleOf(probe), ok, `${probe.operator}: ${message}`);
  const before: Array<{ probe: IdentifierProbe; acted: boolean }> = [];
  for (const probe of probes.filter((p) => p.needs === 'issued' && p.outcome.kind === 'refused-leaves-it')) {
    const answer = answerOf(await consume(t, probe, probe.value(issued.id, '')));
    const verdict = judge({ kind: 'refused', answers: refusalsOf(probe) }, answer);
    verify(probe, verdict.ok, `${probe.binding.parameter.id} = ${probe.what}: ${verdict.problem ?? ''}`);
    before.push({ probe, acted: answer.status === success });
  }
  for (const probe of probes.filter((p) => p.needs === 'sibling')) {
    const answer = await (await issue(t, probe, 'all', targetUrl)).remove();
    verify(
      probe,
      answer.status === success,
      `${probe.what}: expected ${success}, got ${describeAnswer(answerOf(answer))}`,
    );
    before.push({ probe, acted: false });
  }
  const acted = before.filter((b) => b.acted);
  const siblings = before.filter((b) => b.probe.needs === 'sibling');
  const suspects = acted.length > 0 ? acted : siblings.length > 0 ? siblings : before;
  const named = suspects.map((b) => `${b.probe.operator} (${b.probe.what})`).join('; ');
  const gone = (what: string) =>
    t.verify(
      [...new Set(suspects.map((b) => ruleOf(b.probe)))],
      false,
      `the issued resource was gone after ${named}: ${what}; each must leave it as it was`,
    );
  const acting = probes.find((p) => p.needs === 'issued' && p.outcome.kind === 'acts-on-it');
  if (acting === undefined) {
    const last = answerOf(await issued.remove());
    if (last.status !== success) gone(`the id as issued answered ${describeAnswer(last)}, not ${success}`);
    return;
  }
  const answer = answerOf(await consume(t, acting, acting.value(issued.id, '')));
  const again = answerOf(await issued.remove());
  if (answer.status === success)
    return verify(
      acting,
      again.status === 404,
      `the issued id after it acted: expected 404, got ${describeAnswer(again)}`,
    );
  // Not the success: the id as issued tells whether the resource was still there (the form named nothing) or gone.
  if (again.status === success || before.length === 0)
    return verify(
      acting,
      false,
      `${acting.what}: expected ${success} (the same resource), got ${describeAnswer(answer)}; the id as issued ` +
        `then answered ${describeAnswer(again)}`,
    );
  gone(`${acting.what} answered ${describeAnswer(answer)} and the id as issued ${describeAnswer(again)}`);
}

function identifierChecks(probes: readonly IdentifierProbe[]): void {
  const bindings = new Map<string, IdentifierProbe[]>();
  for (const probe of probes)
    bindings.set(probe.binding.parameter.id, [...(bindings.get(probe.binding.parameter.id) ?? []), probe]);
  for (const [id, list] of bindings) {
    const own = list.filter((p) => p.needs !== 'foreign');
    const foreign = list.filter((p) => p.needs === 'foreign');
    const rules = [...new Set(own.map(ruleOf))];
    const part = familyPart('identifiers', ranked.identifiers, own, rules[0]!, (p) => `${id} = ${p.what}`);
    check(
      `near miss (identifiers): ${id}: the issued id in upper case names the same resource; appended, changed ` +
        "or a sibling's id leaves it",
      {
        verifies: rules as [RequirementId, ...RequirementId[]],
        needs: { tokens: ['all'] },
        requests: issuedIdRequests(part.sent),
        requestsAll: issuedIdRequests(own),
        turn: part.turn,
        probes: part.probes,
        unwatchedSubscriptions: true,
      },
      (t) => {
        part.observe(t);
        return issuedIdProbes(t, part.sent);
      },
    );
    for (const probe of foreign) {
      const theirs = familyPart('identifiers', ranked.identifiers, [probe], 'HOOKS-DELETE-FOREIGN-404', (p) => p.what);
      check(
        `near miss (identifiers): ${id}: another account's id, in upper case, is not found (404) and leaves ` +
          'that resource',
        {
          verifies: ['HOOKS-DELETE-FOREIGN-404'],
          needs: { tokens: ['all', 'noDialer'] },
          requests: FOREIGN_ID_REQUESTS,
          turn: theirs.turn,
          unwatchedSubscriptions: true,
        },
        async (t) => {
          const resource = await issue(t, probe, 'noDialer');
          const answer = answerOf(await consume(t, probe, probe.value('', resource.id)));
          const verdict = judge({ kind: 'refused', answers: refusalsOf(probe) }, answer);
          t.verify(
            'HOOKS-DELETE-FOREIGN-404',
            verdict.ok,
            `${probe.operator}: ${probe.what}: ${verdict.problem ?? ''}`,
          );
          const owner = answerOf(await resource.remove());
          t.verify(
            'HOOKS-DELETE-FOREIGN-404',
            owner.status === probe.binding.success,
            `the owner's DELETE after ${probe.what}: expected ${probe.binding.success} (left active), ` +
              `got ${describeAnswer(owner)}`,
          );
        },
      );
    }
  }
}

identifierChecks(ranked.identifiers);
