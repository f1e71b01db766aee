/**
 * What the near-miss checks (near-misses-request.suite.ts) add to the operators: the valid values
 * a target accepts (its agent, a window in the past, a fictional number), the request each probe
 * becomes, the requirement each element's rule belongs to, and the budget rule.
 *
 * Budget: the gate-sized run (150 requests) is full with the first proofs of every requirement, so
 * the operators are the full set's second layer: every probe against the embedded reference, with
 * --all-probes, or under a budget covering FULL_SET_REQUESTS; otherwise each near-miss check is
 * not verifiable for the request budget, naming what sends it (its requirements are still verified
 * by the suites' own checks every run).
 */
import { randomUUID } from 'node:crypto';
import type { HookCreated } from '../../contract/openapi.ts';
import type { CallRequest, CheckTools, Turn } from '../../harness/checks/check.ts';
import type { Exchange } from '../../harness/http/client.ts';
import { session } from '../../harness/run/session.ts';
import { FULL_SET_REQUESTS } from '../../harness/scheduling/budget.ts';
import { journalCreated, journalDeleted } from '../../harness/run/journal.ts';
import type { RequirementId } from '../../requirements/catalogue.ts';
import type { Element } from '../../operators/document.ts';
import { exemplar } from '../../operators/exemplar.ts';
import type { Answer, Expectation } from '../../operators/expectation.ts';
import { FICTIONAL_E164 } from '../data/calls.ts';

const HOUR_MS = 3_600_000;

/** The turn of every near-miss check: all of them, or none (see the module comment). */
export function nearMissTurn(): Turn {
  const target = session().target;
  if (target.kind !== 'remote' || target.budget.all) return { runs: true, note: '' };
  return {
    runs: false,
    note:
      'request budget: the near-miss operators (docs/near-misses.md) are sent with --all-probes or a budget ' +
      `covering the full set (${FULL_SET_REQUESTS} requests); ` +
      'the requirements it verifies are proven by their own checks every run',
  };
}

/** The answer the operators' judge reads. */
export function answerOf(exchange: Exchange): Answer {
  return {
    status: exchange.status,
    headers: exchange.responseHeaders,
    rawBody: exchange.rawBody,
    json: exchange.json,
  };
}

/** Where the spec names the one code for a kind of refusal, the refusals keep only it. */
export function narrow(expect: Expectation, code: string | undefined): Expectation {
  if (code === undefined) return expect;
  const keep = (answers: readonly { status: number; codes: readonly string[] }[]) =>
    answers.map((a) => (a.status === 400 && a.codes.includes(code) ? { ...a, codes: [code] } : a));
  switch (expect.kind) {
    case 'refused':
      return { ...expect, answers: keep(expect.answers) };
    case 'same-value':
      return expect.or === undefined ? expect : { ...expect, or: keep(expect.or) };
    default:
      return expect;
  }
}

/**
 * The requirement each element's near misses verify, and the code the spec names for its refusal
 * (from its errors table). A field added to openapi.json derives its probes with no new code; the
 * requirement its rule belongs to is a person's entry here.
 */
export const elementRules: Readonly<
  Record<
    string,
    {
      readonly refused: RequirementId;
      readonly same?: RequirementId;
      readonly code?: string;
      /** Where one operator's refusal is another requirement's (a length bound: the Limits table's). */
      readonly byOperator?: Readonly<Record<string, RequirementId>>;
    }
  >
> = {
  'GET /cdrs query from': {
    refused: 'CDRS-INVALID-TIMESTAMP',
    same: 'CDRS-TIMESTAMP-OFFSETS',
    code: 'invalid_timestamp',
  },
  'GET /cdrs query till': {
    refused: 'CDRS-INVALID-TIMESTAMP',
    same: 'CDRS-TIMESTAMP-OFFSETS',
    code: 'invalid_timestamp',
  },
  'POST /calls body aiAgentId': { refused: 'CALLS-AGENT-ID-NUMERIC' },
  'POST /calls body toNumber': { refused: 'CALLS-TO-NUMBER-E164' },
  'POST /calls body fromNumber': { refused: 'CALLS-FROM-NUMBER-E164' },
  'POST /hooks body event': { refused: 'HOOKS-EVENT-ENUM' },
  'POST /hooks body target_url': {
    refused: 'HOOKS-TARGET-HTTPS',
    byOperator: { 'NM-LENGTH-BOUND': 'HOOKS-TARGET-MAX-512' },
  },
  'DELETE /hooks/{id} path id': { refused: 'HOOKS-DELETE-NON-UUID-400', same: 'HOOKS-DELETE-UNKNOWN-404' },
};

/** The requirements of each bounded number's near misses: inside the bounds, outside them, the reading taken. */
export const numberRules: Readonly<
  Record<string, { readonly inside: RequirementId; readonly outside: RequirementId; readonly observed: RequirementId }>
> = {
  'GET /cdrs query limit': {
    inside: 'CDRS-LIMIT-HONOURED',
    outside: 'CDRS-LIMIT-MAX-1000',
    observed: 'CDRS-LIMIT-OUT-OF-RANGE',
  },
};

/**
 * Six hours: a few records to compare two spellings of one instant by, and far fewer than the
 * maximum `limit`, so no truncation leaves the choice of records to the target.
 */
const WINDOW_MS = 6 * HOUR_MS;

/** A window ending at a whole hour two hours ago: its records no longer change. */
export function pastWindow(now = Date.now(), spanMs = WINDOW_MS): { from: string; till: string } {
  const till = Math.floor((now - 2 * HOUR_MS) / HOUR_MS) * HOUR_MS;
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  return { from: iso(till - spanMs), till: iso(till) };
}

/** The valid value of each element this target accepts (its agent, a fictional number, a past window). */
export function seedOf(t: CheckTools, element: Element, window: { from: string; till: string }): string {
  switch (element.id) {
    case 'GET /cdrs query from':
      return window.from;
    case 'GET /cdrs query till':
      return window.till;
    case 'POST /calls body aiAgentId':
      return t.agent('provisioned');
    case 'POST /calls body toNumber':
    case 'POST /calls body fromNumber':
      return FICTIONAL_E164;
    case 'POST /hooks body target_url':
      return `${t.target.receiverPublicUrl ?? 'https://example.invalid'}/hooks/nm/${randomUUID().slice(0, 8)}`;
    case 'DELETE /hooks/{id} path id':
      return randomUUID();
    default:
      return exemplar(element.schema) ?? 'a';
  }
}

/**
 * The request of `element`'s operation with `value` for it and seeds for the operation's other
 * required elements (and, for a query, the window's other edge).
 */
export function requestWith(
  t: CheckTools,
  element: Element,
  value: string,
  siblings: readonly Element[],
  window: { from: string; till: string },
): CallRequest {
  const { method, path } = element.operation;
  const others = siblings.filter((e) => e.operation.key === element.operation.key && e.name !== element.name);
  const base = { method, token: t.token('all') };
  if (element.location === 'path')
    return { ...base, path: path.replace(`{${element.name}}`, encodeURIComponent(value)) };
  if (element.location === 'query') {
    const query: Record<string, string> = { [element.name]: value };
    for (const other of others.filter((e) => e.location === 'query' && e.schema.format === 'date-time'))
      query[other.name] = seedOf(t, other, window);
    // The widest answer a bounded parameter allows: nothing the target may choose to leave out.
    for (const other of others.filter((e) => e.location === 'query' && e.schema.maximum !== undefined))
      query[other.name] = String(other.schema.maximum);
    return { ...base, path, query };
  }
  const json: Record<string, unknown> = { [element.name]: value };
  for (const other of others.filter((e) => e.location === 'body' && e.required))
    json[other.name] = seedOf(t, other, window);
  return { ...base, path, json };
}

/** A subscription a broken target created for a near miss is journalled and deleted after the check. */
export async function cleanUpCreated(t: CheckTools, exchange: Exchange): Promise<void> {
  const id = (exchange.json as Partial<HookCreated> | undefined)?.id;
  if (exchange.status !== 200 || typeof id !== 'string' || !new URL(exchange.url).pathname.endsWith('/hooks')) return;
  await journalCreated(id, 'all');
  t.onCleanup(async () => {
    const gone = await t.call({ method: 'DELETE', path: `/hooks/${id}`, token: t.token('all') });
    if (gone.status === 204 || gone.status === 404) await journalDeleted(id, 'all');
  });
}
