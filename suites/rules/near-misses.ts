/**
 * What the near-miss checks (near-misses-request.suite.ts, near-misses-behaviour.suite.ts) add to
 * the operators: the valid values a target accepts (its agent, a window in the past, a fictional
 * number), the request each probe becomes, the requirement each element's rule belongs to, and the
 * share of the request budget each family's checks take.
 */
import { randomUUID } from 'node:crypto';
import type { HookCreated } from '../../contract/openapi.ts';
import type { CallRequest, CheckTools, Turn } from '../../harness/checks/check.ts';
import type { Exchange } from '../../harness/http/client.ts';
import type { ProbeRotation } from '../../harness/scheduling/budget.ts';
import { familySlice, rankedTurnOf, runSeed } from '../../harness/scheduling/rotation.ts';
import { session } from '../../harness/run/session.ts';
import { journalCreated, journalDeleted } from '../../harness/run/journal.ts';
import type { TokenName } from '../../harness/config/tokens.ts';
import type { RequirementId } from '../../requirements/catalogue.ts';
import type { Element } from '../../operators/document.ts';
import type { IdentifierProbe } from '../../operators/identifiers.ts';
import type { ValueProbe } from '../../operators/operator.ts';
import { exemplar } from '../../operators/exemplar.ts';
import { inertFields, refusalProbes } from '../../operators/effects.ts';
import { type ConnectionProbe, connectionProbes } from '../../operators/connection.ts';
import { bodilessAnswers } from '../../operators/framing.ts';
import { oneTimeValues } from '../../operators/one-time-values.ts';
import { allQuantityProbes, type QuantityProbe } from '../../operators/quantities.ts';
import { type StatedDuration, statedDurations } from '../../operators/time-units.ts';
import { stringProbes } from '../../operators/strings.ts';
import { transitionProbes } from '../../operators/transitions.ts';
import type { Document } from '../../operators/document.ts';
import { openapi } from '../../contract/openapi.ts';
import type { Answer, Expectation } from '../../operators/expectation.ts';
import { FICTIONAL_E164 } from '../data/calls.ts';

const HOUR_MS = 3_600_000;

/**
 * How many of each family's ranked probes (operators/catalogue.ts rankProbes) a default,
 * gate-sized remote run sends: the likeliest slip and this seed's turn of the rest where a probe
 * is one request (surface, credentials; a string near miss that may be the same value adds the
 * canonical request once), and one probe a run where a probe costs more or its element is also
 * probed every run by a hand-written check: numbers (GET /cdrs limit: cdrs.suite.ts sends 1001 and
 * 5000 every run), identifiers (each probe needs a subscription of its own, 3 or 4 requests) and
 * the behavioural checks (2 to 4 requests each). At most 16 requests: the room the model-based
 * properties of the subscription table leave at the default budget (docs/near-misses.md "Budget").
 * A larger budget widens each by the same factor as every rotation; embedded, --all-probes or a
 * budget covering the full set sends every probe.
 */
export const NEAR_MISS_PER_RUN = {
  surface: 2,
  credentials: 2,
  'constrained strings': 2,
  numbers: 1,
  identifiers: 1,
  behaviour: 1,
} as const;

export type NearMissFamily = keyof typeof NEAR_MISS_PER_RUN;

/** What the near-miss checks add to a default remote run at most, whatever the seed (a test keeps them to it). */
export const NEAR_MISS_DEFAULT_REQUESTS = 16;

/** The most one behavioural near-miss check sends (near-misses-behaviour.suite.ts: 2 to 4). */
export const BEHAVIOUR_REQUESTS_MAX = 4;

/** The operations with refusal probes (NM-REFUSAL-WITHOUT-EFFECT), each one check of near-misses-effects.suite.ts. */
export const refusalOperations = (): string[] => [
  ...new Set(refusalProbes(stringProbes(openapi as unknown as Document)).probes.map((p) => p.operation)),
];

/**
 * The behavioural checks that send API requests (near-misses-behaviour.suite.ts,
 * near-misses-effects.suite.ts), ranked likeliest slip first: the double of a move (a status read,
 * then written after an await: check-then-act is the commonest race), a lifetime in another unit
 * than said (seconds and milliseconds are the classic mix-up, and AUTH-OAUTH-EXPIRES-IN has no
 * other check), an identical second creation answered with the first one's value given once (an
 * "idempotent" create), a refused request that still acted (the work done before the last
 * validation), a success that does not reset a failure counter or a kind of failure not counted
 * (the retried kind first), a field the contract calls inert acted on, the double of a creation (a
 * list read and written back loses one), and body bytes after a bodiless answer (most servers drop
 * them). Against a remote target they take turns like one ranked probe list,
 * NEAR_MISS_PER_RUN.behaviour at the default budget (2 to 4 requests each); every requirement they
 * verify other checks of every run verify too, but the refusals', the inert fields' and
 * AUTH-OAUTH-EXPIRES-IN, which their turns verify.
 */
export function behaviourChecks(): string[] {
  const doubles = transitionProbes().filter((p) => p.id === 'NM-CONCURRENT-TRANSITION');
  return [
    ...doubles.filter((p) => p.kind === 'move').map((p) => `the double of ${p.operation}`),
    ...bindingDurations().map((d) => `the ${d.name} of ${d.answer}`),
    ...oneTimeValues().map((v) => `the ${v.field} of ${v.operation} asked twice`),
    ...refusalOperations().map((operation) => `the refusals of ${operation}`),
    ...consecutiveResets().map((p) => `"${p.place.word}" ${p.failure!.answer} failures reset by a success`),
    ...[...new Set(inertFields().map((f) => f.element.operation.key))].map((op) => `the inert fields of ${op}`),
    ...doubles.filter((p) => p.kind === 'create').map((p) => `the double of ${p.operation}`),
    ...bodilessAnswers().map((a) => `the bytes of ${a.method} ${a.path} ${a.status}`),
    ...connectionProbes(openapi as unknown as Document).map(connectionMember),
  ];
}

/** A connection probe's member of behaviourChecks() (suites/connection.suite.ts). */
export const connectionMember = (p: ConnectionProbe) => `the connection probe ${p.id} of ${p.operation}`;

/** Every duration a target states that the spec (or OAuth 2.0, which it names) makes binding. */
export const bindingDurations = (): StatedDuration[] => statedDurations.filter((d) => d.binding);

/**
 * "consecutive", once per kind of failure of the delivery rules, the retried kind first: n − 1
 * failures, a success, n − 1 failures leave the subscription active, one more disables it.
 */
export function consecutiveResets(): Array<QuantityProbe & { kind: 'reset' }> {
  return allQuantityProbes()
    .filter((p): p is QuantityProbe & { kind: 'reset' } => p.kind === 'reset')
    .sort((a, b) => Number(b.failure?.retried) - Number(a.failure?.retried));
}

/** A behavioural check's turn: embedded, always; remotely, its turn of behaviourChecks(). */
export function behaviourTurn(member: string): Turn {
  const remote = session().target.kind === 'remote';
  return rankedTurnOf(behaviourChecks(), member, NEAR_MISS_PER_RUN.behaviour, remote, 'behavioural near misses');
}

/** Requests of one check's value probes: each, and the canonical form once where one may be the same value. */
export const valueProbeRequests = (probes: readonly ValueProbe[]) =>
  probes.length + (probes.some((p) => p.expect.kind === 'same-value') ? 1 : 0);

/** POST /calls near misses a conforming target may accept originate a call: a check of their own, where allowed. */
export const originates = (probe: ValueProbe) => probe.mayBeAccepted && probe.element.operation.key === 'POST /calls';

/** Requests of the issued-id check sending `probes`: the resource, each probe (a sibling two), the id at the end. */
export const issuedIdRequests = (probes: readonly IdentifierProbe[]) =>
  probes.length === 0 ? 0 : 1 + probes.reduce((sum, p) => sum + (p.needs === 'sibling' ? 2 : 1), 0) + 1;

/** Requests of the foreign-id check: the other account's POST /hooks, the probe, its owner's DELETE. */
export const FOREIGN_ID_REQUESTS = 3;

/** One check's part of a family's probes this run. */
export interface FamilyPart<T> {
  /** The check's probes this run sends, in its own order. */
  readonly sent: readonly T[];
  /** Out of turn (sends nothing, not verifiable for the request budget) when this run sends none of them. */
  readonly turn: Turn;
  /** The check option `probes` where it sends part of them (the report's partial pass). */
  readonly probes: ProbeRotation | undefined;
  /** Records which of its probes this run sent and what later seeds send; nothing when it sends all. */
  observe(t: CheckTools): void;
}

/**
 * The part of `family`'s probes (`ranked`: the whole family, likeliest slip first) that a check
 * owning `own` sends this run, under the run's budget and seed (harness/scheduling/rotation.ts).
 */
export function familyPart<T>(
  family: NearMissFamily,
  ranked: readonly T[],
  own: readonly T[],
  requirement: RequirementId,
  describe: (probe: T) => string,
): FamilyPart<T> {
  const { chosen } = familySlice(ranked, NEAR_MISS_PER_RUN[family]);
  const ofFamily = `${chosen.length} of the ${ranked.length} ${family} near misses, ranked likeliest slip first`;
  return partOf({ chosen, own, requirement, describe }, ofFamily, `${ofFamily} (${chosen.map(describe).join('; ')})`);
}

/**
 * A check's part of the probes a family sends this run (`chosen`): what it sends, its turn, its
 * rotation, and what it records, worded with `ofFamily` (and `ofFamilyNone` when it sends none).
 * The near-miss families and the relation families (./relations.ts) share it.
 */
export function partOf<T>(
  part: { chosen: readonly T[]; own: readonly T[]; requirement: RequirementId; describe: (probe: T) => string },
  ofFamily: string,
  ofFamilyNone: string,
): FamilyPart<T> {
  const { chosen, own, requirement, describe } = part;
  const sent = own.filter((p) => chosen.includes(p));
  const left = own.filter((p) => !chosen.includes(p));
  if (left.length === 0) return { sent, turn: { runs: true, note: '' }, probes: undefined, observe: () => {} };
  const seed = runSeed();
  const later =
    `later seeds send ${sent.length === 0 ? 'its' : 'its other'} ${left.length} ` +
    `(${left.map(describe).join('; ')})`;
  if (sent.length === 0)
    return {
      sent,
      turn: {
        runs: false,
        note: `request budget: this run (seed ${seed}) sends ${ofFamilyNone}, none of this check's; ${later}`,
      },
      probes: undefined,
      observe: () => {},
    };
  return {
    sent,
    turn: { runs: true, note: '' },
    probes: { requirement, sent: sent.length, of: own.length, left: left.map(describe), leftRequests: left.length },
    observe: (t) =>
      t.observe(
        requirement,
        `request budget: this run (seed ${seed}) sends ${ofFamily}; this check sent ${sent.length} of its ` +
          `${own.length} (${sent.map(describe).join('; ')}); ${later}`,
      ),
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

/**
 * The configured tokens a request carried, 'all' first: the account a target created something
 * for is one of theirs (a request with two Authorization lines may have been read by either).
 */
function tokensCarried(t: CheckTools, exchange: Exchange): TokenName[] {
  const sent = Object.values(exchange.requestHeaders).join('\n');
  const names = (Object.entries(t.target.tokens) as Array<[TokenName, string | undefined]>)
    .filter(([, value]) => value !== undefined && sent.includes(value))
    .map(([name]) => name);
  return ['all', ...names.filter((name) => name !== 'all')];
}

/**
 * A subscription a broken target created for a near miss is journalled and deleted after the
 * check, with the token of the account it belongs to: a 404 to one token is another account's.
 */
export async function cleanUpCreated(t: CheckTools, exchange: Exchange): Promise<void> {
  const id = (exchange.json as Partial<HookCreated> | undefined)?.id;
  if (exchange.status !== 200 || typeof id !== 'string' || !new URL(exchange.url).pathname.endsWith('/hooks')) return;
  const owners = tokensCarried(t, exchange);
  await journalCreated(id, owners[0]!);
  t.onCleanup(async () => {
    for (const owner of owners) {
      const gone = await t.call({ method: 'DELETE', path: `/hooks/${id}`, token: t.target.tokens[owner]! });
      if (gone.status === 204) return journalDeleted(id, owner);
    }
    await journalDeleted(id, owners[0]!);
  });
}
