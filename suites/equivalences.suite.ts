/**
 * Equivalence relations read from the standards (docs/relations.md): for every operation of
 * openapi.json (and the token endpoint of its oauth2 scheme), the valid request and each form a
 * standard declares equivalent get the same answer (status, error code, and for a safe read the
 * body, a live one by its shape); a form a standard declares different is never answered as the
 * valid one; where the standard says only SHOULD, the target's choice is an observation. Nothing
 * here lists a probe: operators/equivalences.ts derives them from the document, ranked, and a run
 * sends its share of them (relationPart). POST /calls names an agent no account has, to a fictional
 * number: never a call; a subscription a POST /hooks creates is deleted after the check.
 */
import { describe } from 'vitest';
import { openapi } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import type { Exchange } from '../harness/http/client.ts';
import { operationsOf, type Document } from '../operators/document.ts';
import {
  equivalenceProbes,
  liveBody,
  rankEquivalences,
  tokenEndpoints,
  type EquivalenceProbe,
} from '../operators/equivalences.ts';
import type { RequirementId } from '../requirements/catalogue.ts';
import { cleanUpCreated } from './rules/near-misses.ts';
import {
  callOf,
  describe as describeAnswer,
  differs,
  headProblem,
  relationPart,
  relationRequirements,
  rememberToken,
  validRequest,
  validTokenRequest,
} from './rules/relations.ts';

const doc = openapi as unknown as Document;
const derived = equivalenceProbes(doc);
const ranked = rankEquivalences(derived);
const requirementOf = (probe: EquivalenceProbe): RequirementId => {
  const id = relationRequirements[probe.relation.id];
  if (id === undefined) throw new Error(`no requirement for ${probe.relation.id} (suites/rules/relations.ts)`);
  return id;
};

/** Sends one probe and judges it against the valid request's answer. */
async function judgeProbe(
  t: CheckTools,
  probe: EquivalenceProbe,
  valid: { request: Parameters<EquivalenceProbe['rewrite']>[0]; answer: Exchange },
  body: 'none' | 'value' | 'shape',
): Promise<void> {
  const rewritten = probe.rewrite(valid.request);
  // A probe against a base request is judged by the comparison alone, so its verdict names its own requirement.
  const validate = rewritten.method === valid.request.method && probe.base === undefined;
  const got = await t.call({ ...callOf(rewritten), validate });
  await cleanUpCreated(t, got);
  rememberToken(got);
  const what = `${probe.relation.id} (${probe.relation.section}): ${probe.operation}, ${probe.what}`;
  const requirement = requirementOf(probe);
  if (probe.relation.expect === 'different') {
    const same = (got.status ?? 0) < 300 && differs(got, valid.answer, 'value') === undefined;
    t.verify(requirement, !same, `${what}: answered as the valid request (${describeAnswer(got)}), a different URI`);
    return;
  }
  const problem = rewritten.method === 'HEAD' ? headProblem(got, valid.answer, body) : differs(got, valid.answer, body);
  if (probe.relation.expect === 'same-or-refused') {
    const refused = (got.status ?? 0) >= 400 && (got.status ?? 0) < 500;
    t.observe(
      requirement,
      `${what}: ${problem === undefined ? 'the same answer' : refused ? `refused, ${describeAnswer(got)}` : problem}`,
    );
    return;
  }
  const media = probe.relation.mediaType ? mediaProblem(got, valid.answer) : undefined;
  t.verify(requirement, problem === undefined && media === undefined, `${what}: ${problem ?? media ?? ''}`);
}

const mediaOf = (e: Exchange) => (e.responseHeaders['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
/** The answer's media type against the valid request's, when the relation is about the answer's form. */
function mediaProblem(got: Exchange, valid: Exchange): string | undefined {
  return mediaOf(got) === mediaOf(valid)
    ? undefined
    : `answered ${mediaOf(got) || 'no Content-Type'}, the valid request ${mediaOf(valid) || 'no Content-Type'}`;
}

/** Requests a list of probes costs besides their own: the valid request, and each base request once. */
const extraRequests = (probes: readonly EquivalenceProbe[]) =>
  1 + new Set(probes.flatMap((p) => (p.base === undefined ? [] : [p.base]))).size;

function equivalenceCheck(operation: string, probes: readonly EquivalenceProbe[], endpoint?: string): void {
  const verifies = [...new Set(probes.map(requirementOf))] as [RequirementId, ...RequirementId[]];
  const describeProbe = (p: EquivalenceProbe) => `${p.operation} ${p.what}`;
  const part = relationPart('equivalences', ranked, probes, verifies[0], describeProbe);
  const op = operationsOf(doc).find((o) => o.key === operation);
  const body = op === undefined || op.method !== 'GET' ? 'none' : liveBody(doc, op) ? 'shape' : 'value';
  check(
    `relation (equivalences): ${operation} answers every form a standard declares equivalent as the valid ` +
      'request, and no form it declares different',
    {
      verifies,
      needs: endpoint === undefined ? { tokens: ['all'] } : { oauth: true },
      requests: part.sent.length === 0 ? 0 : part.sent.length + extraRequests(part.sent),
      requestsAll: probes.length + extraRequests(probes),
      turn: part.turn,
      probes: part.probes,
      unwatchedSubscriptions: true,
    },
    async (t) => {
      part.observe(t);
      const request =
        endpoint === undefined ? validRequest(t, operation, t.token('all')) : validTokenRequest(t, endpoint);
      const answer = await t.call(callOf(request));
      await cleanUpCreated(t, answer);
      rememberToken(answer);
      if ((answer.status ?? 0) >= 500 || (endpoint !== undefined && answer.status !== 200))
        return t.notVerifiable(`the valid request of ${operation} answered ${describeAnswer(answer)}`);
      const bases = new Map<EquivalenceProbe['base'], { request: typeof request; answer: Exchange }>();
      for (const probe of part.sent) {
        if (probe.base === undefined) {
          await judgeProbe(t, probe, { request, answer }, body);
          continue;
        }
        let base = bases.get(probe.base);
        if (base === undefined) {
          const made = probe.base(request);
          base = { request: made, answer: await t.call({ ...callOf(made), validate: false }) };
          bases.set(probe.base, base);
        }
        const refused = (base.answer.status ?? 0) >= 300 && base.answer.status !== 412;
        if (refused) await judgeProbe(t, probe, base, 'none');
        else
          t.observe(
            requirementOf(probe),
            `${probe.operation}, ${probe.what}: its base answered ${describeAnswer(base.answer)}`,
          );
      }
    },
  );
}

describe('Relations: forms a standard declares equivalent get the same answer', () => {
  const byOperation = new Map<string, EquivalenceProbe[]>();
  for (const probe of derived) byOperation.set(probe.operation, [...(byOperation.get(probe.operation) ?? []), probe]);
  const endpoints = new Set(tokenEndpoints(doc).map((e) => `POST ${e}`));
  for (const [operation, probes] of byOperation)
    equivalenceCheck(operation, probes, endpoints.has(operation) ? operation.slice('POST '.length) : undefined);
});
