/**
 * What the relation checks (equivalences.suite.ts, ambiguity.suite.ts, principals.suite.ts) add to
 * the operators of operators/equivalences.ts and operators/ambiguity.ts: the valid request of each
 * operation on the wire (the values a target accepts: a window in the past, an agent no account has,
 * a fictional number, an id nobody issued), the comparison of two answers, and each family's share
 * of the request budget (docs/relations.md "Budget").
 */
import { basicAuthorization } from './oauth.ts';
import { randomUUID } from 'node:crypto';
import type { CallRequest, CheckTools } from '../../harness/checks/check.ts';
import type { Exchange } from '../../harness/http/client.ts';
import { GATE_REQUESTS, rankedForRun, type RankedSlice, type RunBudget } from '../../harness/scheduling/budget.ts';
import { runBudget, runSeed } from '../../harness/scheduling/rotation.ts';
import { session } from '../../harness/run/session.ts';
import type { RequirementId } from '../../requirements/catalogue.ts';
import { queryString, type WireRequest } from '../../operators/equivalences.ts';
import { FICTIONAL_E164 } from '../data/calls.ts';
import { type FamilyPart, partOf, pastWindow } from './near-misses.ts';

/**
 * How many of each family's ranked probes a remote run sends for each gate's worth of budget beyond
 * the first (the likeliest and this seed's turn of the rest, rankedForRun; embedded, --all-probes or
 * a budget covering the full set: all). The default, gate-sized run (150 requests) is full with every
 * fixture and a control endpoint, so there the relation families give way, as the model-based
 * properties do (docs/relations.md "Budget"): a budget of twice the gate sends these, three times
 * twice as many. Each probe costs one request, the valid request of its operation once more.
 */
export const RELATIONS_PER_RUN = { equivalences: 2, ambiguity: 1, principals: 1 } as const;
export type RelationFamily = keyof typeof RELATIONS_PER_RUN;

/**
 * The requirement each equivalence relation's verdict belongs to (requirements/standards-relations.ts):
 * a relation added to operators/equivalences.ts is a person's one-line entry here.
 */
export const relationRequirements: Readonly<Record<string, RequirementId>> = {
  'REL-FIELD-NAME-CASE': 'STD-REL-FIELD-NAME-CASE',
  'REL-FIELD-VALUE-OWS': 'STD-REL-FIELD-VALUE-OWS',
  'REL-AUTH-SCHEME-CASE': 'STD-REL-AUTH-SCHEME-CASE',
  'REL-AUTH-SPACES': 'STD-REL-AUTH-SPACES',
  'REL-MEDIA-TYPE-CASE': 'STD-REL-MEDIA-TYPE',
  'REL-MEDIA-TYPE-PARAMETER': 'STD-REL-MEDIA-TYPE',
  'REL-JSON-WHITESPACE': 'STD-REL-JSON-TEXT',
  'REL-JSON-MEMBER-ORDER': 'STD-REL-JSON-TEXT',
  'REL-JSON-ESCAPE': 'STD-REL-JSON-TEXT',
  'REL-PERCENT-UNRESERVED': 'STD-REL-PERCENT-ENCODING',
  'REL-PERCENT-HEX-CASE': 'STD-REL-PERCENT-ENCODING',
  'REL-RESERVED-NOT-DELIMITER': 'STD-REL-RESERVED-DIFFERENT',
  'REL-HEAD-IS-GET': 'STD-REL-HEAD',
  'REL-OAUTH-EMPTY-PARAMETER': 'STD-REL-OAUTH-FORM',
  'REL-OAUTH-PARAMETER-ORDER': 'STD-REL-OAUTH-FORM',
  'REL-OAUTH-UNKNOWN-PARAMETER': 'STD-REL-OAUTH-FORM',
  'REL-URI-SCHEME-CASE': 'STD-REL-URI-SCHEME-CASE',
  'REL-PRECONDITION-AFTER-CHECKS': 'STD-REL-PRECONDITION',
  'REL-ACCEPT-ANY': 'STD-REL-ACCEPT-ANY',
};

/** An agent id no account has (a valid numeric id): POST /calls answers 404 and never dials. */
export const UNKNOWN_AGENT = '999999999999';

/** One check's part of a family's ranked probes this run. */
export type RelationPart<T> = FamilyPart<T>;

/** A family's ranked probes this run: all within the budget, none at the gate, `perRun` per gate beyond it. */
export function relationSlice<T>(
  ranked: readonly T[],
  perRun: number,
  budget: RunBudget = runBudget(),
  seed: number = runSeed(),
): RankedSlice<T> {
  if (budget.all) return { chosen: ranked, left: [] };
  const n = Math.min(ranked.length, perRun * Math.max(0, Math.floor(budget.requests / GATE_REQUESTS) - 1));
  return n === 0 ? { chosen: [], left: ranked } : rankedForRun(ranked, n, seed);
}

/** The part of `family`'s ranked probes a check owning `own` sends this run (rotation.ts familySlice). */
export function relationPart<T>(
  family: RelationFamily,
  ranked: readonly T[],
  own: readonly T[],
  requirement: RequirementId,
  describe: (probe: T) => string,
): RelationPart<T> {
  const { chosen } = relationSlice(ranked, RELATIONS_PER_RUN[family]);
  const ofFamily =
    chosen.length === 0
      ? `none of the ${ranked.length} ${family} probes (they give way at a budget under ${2 * GATE_REQUESTS} requests)`
      : `${chosen.length} of the ${ranked.length} ${family} probes, ranked likeliest slip first`;
  return partOf({ chosen, own, requirement, describe }, ofFamily, ofFamily);
}

/** The valid request of an operation on the wire, with `token` (undefined: the token endpoint's form). */
export function validRequest(t: CheckTools, operation: string, token: string): WireRequest {
  const [method, path] = operation.split(' ') as [string, string];
  const headers: Array<readonly [string, string]> = [['Authorization', `Bearer ${token}`]];
  const json = (value: unknown) => ({
    method,
    path,
    query: [],
    headers: [...headers, ['Content-Type', 'application/json'] as const],
    body: JSON.stringify(value),
  });
  switch (operation) {
    case 'GET /cdrs': {
      const window = pastWindow();
      const enc = encodeURIComponent;
      return {
        method,
        path,
        headers,
        query: [
          ['from', enc(window.from)],
          ['till', enc(window.till)],
          ['limit', '10'],
        ],
      };
    }
    case 'POST /calls':
      return json({ aiAgentId: UNKNOWN_AGENT, toNumber: FICTIONAL_E164 });
    case 'POST /hooks':
      return json({
        event: 'dnc.added',
        target_url: `${t.target.receiverPublicUrl ?? 'https://example.invalid'}/rel/${randomUUID().slice(0, 8)}`,
      });
    case 'DELETE /hooks/{id}':
      return { method, path: `/hooks/${randomUUID()}`, query: [], headers };
    default:
      if (path.includes('{')) throw new Error(`no valid request for ${operation} (suites/rules/relations.ts)`);
      return { method, path, query: [], headers };
  }
}

/**
 * The token endpoint's valid request: the configured client by HTTP Basic (RFC 6749 §2.3.1: "The
 * authorization server MUST support the HTTP Basic authentication scheme", its id and secret
 * form-encoded first), grant_type, and the client's scopes where they are known (so the form has
 * two parameters whose order can change).
 */
export function validTokenRequest(t: CheckTools, endpoint: string): WireRequest {
  const client = t.target.oauth!;
  const scopes: Record<string, string> =
    client.scopes === undefined || client.scopes.length === 0 ? {} : { scope: client.scopes.join(' ') };
  return {
    method: 'POST',
    path: endpoint.replace('{auth_url}', t.target.authUrl ?? ''),
    query: [],
    headers: [
      ['Authorization', basicAuthorization(client.clientId, client.clientSecret)],
      ['Content-Type', 'application/x-www-form-urlencoded'],
    ],
    body: new URLSearchParams({ grant_type: 'client_credentials', ...scopes }).toString(),
  };
}

/** The request `t.call` sends for a wire request: its header lines as given, the query as given. */
export function callOf(request: WireRequest): CallRequest {
  const query = queryString(request.query);
  return {
    method: request.method,
    path: request.path + (query === '' ? '' : `?${query}`),
    headers: Object.fromEntries(request.headers),
    ...(request.body === undefined ? {} : { body: request.body }),
  };
}

/** A token an answer carries is remembered, so no log keeps it. */
export function rememberToken(exchange: Exchange): void {
  const token = (exchange.json as { access_token?: unknown } | undefined)?.access_token;
  if (typeof token === 'string') session().api.redact.remember(token);
}

const codeOf = (e: Exchange): string | undefined => {
  const error = (e.json as { error?: unknown } | undefined)?.error;
  return typeof error === 'string' ? error : undefined;
};

/** "200", "401 unauthorized", "no answer". */
export function describe(e: Exchange): string {
  if (e.status === undefined) return 'no answer';
  const code = codeOf(e);
  return code === undefined ? String(e.status) : `${e.status} ${code}`;
}

/** A JSON value with arrays in a canonical order (the spec gives lists no order). */
function unordered(value: unknown): unknown {
  if (Array.isArray(value))
    return value.map(unordered).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, unordered(v)]),
  );
}

/** A live value's shape: its members and their types (the balance moves between two reads). */
function shape(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return value === null ? 'null' : typeof value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, v === null ? 'null' : typeof v]),
  );
}

/**
 * Why `got` is not the answer `valid` got, or undefined: the same status and error code, and for a
 * safe read (`body`) the same body, lists in any order (a live body: the same members and types).
 */
export function differs(got: Exchange, valid: Exchange, body: 'none' | 'value' | 'shape'): string | undefined {
  if (got.status !== valid.status || codeOf(got) !== codeOf(valid))
    return `expected ${describe(valid)} (the valid request's answer), got ${describe(got)}`;
  if (body === 'none' || (got.status ?? 0) >= 300) return undefined;
  const view = body === 'shape' ? shape : unordered;
  if (JSON.stringify(view(got.json)) !== JSON.stringify(view(valid.json)))
    return `the same status (${describe(got)}) with another body than the valid request's`;
  return undefined;
}

/**
 * `differs` for a read's answer: a live body (openapi.json calls it live: the balance moves between two
 * reads) by its members and types, and its non-numeric members by value; any other read by value;
 * a write by status and code.
 */
export function differsRead(got: Exchange, own: Exchange, kind: 'live' | 'read' | 'write'): string | undefined {
  if (kind !== 'live') return differs(got, own, kind === 'read' ? 'value' : 'none');
  const shaped = differs(got, own, 'shape');
  if (shaped !== undefined) return shaped;
  const fixed = (e: Exchange) =>
    Object.entries((e.json ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v !== 'number');
  return JSON.stringify(fixed(got)) === JSON.stringify(fixed(own))
    ? undefined
    : `another body (${JSON.stringify(Object.fromEntries(fixed(got)))})`;
}

/**
 * HEAD against GET (RFC 9110 §9.3.2, §8.6): GET's status, no content, and a Content-Length, when
 * sent, that is GET's content's octets ("a server MUST NOT send Content-Length in such a response
 * unless its field value equals the decimal number of octets that would have been sent in the
 * content of a response if the same request had used the GET method"); a live read (`shape`)
 * may change length between the two, so its length is not compared.
 */
export function headProblem(got: Exchange, get: Exchange, body: 'none' | 'value' | 'shape'): string | undefined {
  if (got.status !== get.status) return `expected GET's status (${describe(get)}), got ${got.status}`;
  if (got.rawBody !== '') return `HEAD carried ${got.rawBody.length} bytes of content`;
  const length = got.responseHeaders['content-length'];
  const octets = Buffer.byteLength(get.rawBody);
  return body === 'value' && length !== undefined && Number(length) !== octets
    ? `HEAD's Content-Length: ${length}, GET's content is ${octets} octets`
    : undefined;
}
