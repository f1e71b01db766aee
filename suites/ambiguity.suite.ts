/**
 * Ambiguity and absence (docs/relations.md): every query parameter and JSON member of openapi.json
 * given twice and given an empty value, two Authorization lines on every secured operation, a
 * repeated token-request parameter. Whatever the target makes of it, the value it acts on must be
 * one it validated: refused with a status and code the operation documents, or answered exactly as
 * one of the single-valued requests (or, for an empty value, the request without the field) is
 * answered, which the check sends too and compares against; the reading taken is recorded. At the
 * token endpoint RFC 6749 §3.1 decides: 400 invalid_request. The probes are derived from the
 * document (operators/ambiguity.ts). POST /calls names an agent no account has: never a call.
 */
import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { DAY_MS, openapi } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import type { TokenName } from '../harness/config/tokens.ts';
import type { Exchange } from '../harness/http/client.ts';
import {
  ambiguityProbes,
  memberTwice,
  rankAmbiguity,
  type AmbiguityProbe,
  type Line,
  type Value,
} from '../operators/ambiguity.ts';
import type { Document, Element, Operation } from '../operators/document.ts';
import { liveBody, mapHeader } from '../operators/equivalences.ts';
import { exemplar } from '../operators/exemplar.ts';
import { principalProbes } from '../operators/principals.ts';
import type { RequirementId } from '../requirements/catalogue.ts';
import { cleanUpCreated, pastWindow } from './rules/near-misses.ts';
import { basicAuthorization } from './rules/oauth.ts';
import {
  callOf,
  describe as describeAnswer,
  differsRead,
  relationPart,
  rememberToken,
  UNKNOWN_AGENT,
  validRequest,
  validTokenRequest,
} from './rules/relations.ts';
import { FICTIONAL_E164 } from './data/calls.ts';

const doc = openapi as unknown as Document;
const derived = ambiguityProbes(doc);
const ranked = rankAmbiguity(derived);
const HOUR_MS = 3_600_000;

const REQUIREMENTS: Readonly<Record<AmbiguityProbe['rule'], RequirementId>> = {
  'AMBIG-QUERY-TWICE': 'STD-AMBIG-QUERY-TWICE',
  'AMBIG-MEMBER-TWICE': 'STD-AMBIG-JSON-MEMBER-TWICE',
  'AMBIG-HEADER-TWICE': 'STD-AMBIG-HEADER-TWICE',
  'AMBIG-EMPTY': 'STD-AMBIG-EMPTY-VALUE',
  'AMBIG-OAUTH-REPEATED': 'STD-AMBIG-OAUTH-REPEATED',
  'AMBIG-OAUTH-TWO-METHODS': 'STD-AMBIG-OAUTH-TWO-METHODS',
};

/** A thirty-day window ending two hours ago: more records than the maximum limit in the reference. */
const wideWindow = () => pastWindow(Date.now(), 30 * DAY_MS);

/** The seeded values of an input (valid, another valid one, an invalid one); a schema's own for a new input. */
function seedsOf(element: Element, window: { from: string; till: string }): Record<Value, unknown> {
  const back = (iso: string) => new Date(Date.parse(iso) - HOUR_MS).toISOString().replace('.000Z', 'Z');
  const receiver = `https://example.invalid/rel/${randomUUID().slice(0, 8)}`;
  const seeds: Record<string, Record<Value, unknown>> = {
    'GET /cdrs query from': { valid: window.from, other: back(window.from), invalid: 'yesterday' },
    'GET /cdrs query till': { valid: window.till, other: back(window.till), invalid: 'yesterday' },
    'GET /cdrs query limit': { valid: '1', other: '2', invalid: '5000' },
    'POST /calls body aiAgentId': { valid: UNKNOWN_AGENT, other: '999999999998', invalid: 'abc' },
    'POST /calls body toNumber': { valid: FICTIONAL_E164, other: '+15555550124', invalid: 'abc' },
    'POST /calls body fromNumber': { valid: FICTIONAL_E164, other: '+15555550124', invalid: 'abc' },
    'POST /calls body metadata': { valid: { a: 1 }, other: { b: 2 }, invalid: 'not an object' },
    'POST /hooks body event': { valid: 'dnc.added', other: 'lead.completed', invalid: 'no.such.event' },
    'POST /hooks body target_url': { valid: receiver, other: `${receiver}/2`, invalid: 'http://example.invalid/' },
  };
  const fallback = exemplar(element.schema) ?? 'a';
  return seeds[element.id] ?? { valid: fallback, other: `${fallback}0`, invalid: 12345 };
}

/** The operation's valid request with `element` given `values` in order (none: left out), on the wire. */
function withValues(
  t: CheckTools,
  element: Element,
  values: readonly unknown[],
  window: { from: string; till: string },
) {
  const base = validRequest(t, element.operation.key, t.token('all'));
  if (element.location === 'query') {
    const others =
      element.operation.key === 'GET /cdrs'
        ? [
            ['from', window.from],
            ['till', window.till],
          ]
        : [];
    const query = [
      ...others.filter(([n]) => n !== element.name).map(([n, v]) => [n!, encodeURIComponent(v!)] as const),
      ...values.map((v) => [element.name, encodeURIComponent(String(v))] as const),
    ];
    return { ...base, query };
  }
  const body = JSON.parse(base.body ?? '{}') as Record<string, unknown>;
  const { [element.name]: _left, ...rest } = body;
  if (values.length === 0) return { ...base, body: JSON.stringify(rest) };
  if (values.length === 1) return { ...base, body: JSON.stringify({ ...rest, [element.name]: values[0] }) };
  return { ...base, body: memberTwice(rest, element.name, values[0], values[1]) };
}

/** Whether `got` is a refusal the operation documents (its status, with a code that status lists). */
function documentedRefusal(operation: Operation | undefined, got: Exchange): boolean {
  const status = got.status ?? 0;
  if (operation === undefined || status < 400 || status >= 500) return false;
  const codes = operation.errorCodes[String(status)];
  const code = (got.json as { error?: unknown } | undefined)?.error;
  return codes !== undefined && (codes.length === 0 || codes.includes(String(code)));
}

/**
 * The verdict: refused as documented, or the answer of one of `singles` (named); undefined when it
 * is neither (the problem, with what each single got).
 */
function reading(
  operation: Operation,
  got: Exchange,
  singles: ReadonlyArray<{ name: string; answer: Exchange }>,
): { ok: boolean; text: string } {
  if (documentedRefusal(operation, got)) return { ok: true, text: `refused, ${describeAnswer(got)}` };
  const kind = operation.method !== 'GET' ? 'write' : liveBody(doc, operation) ? 'live' : 'read';
  const same = singles.find((s) => differsRead(got, s.answer, kind) === undefined);
  if (same !== undefined) return { ok: true, text: `answered as ${same.name} alone (${describeAnswer(got)})` };
  const each = singles.map((s) => `${s.name} alone: ${describeAnswer(s.answer)}`).join('; ');
  return { ok: false, text: `${describeAnswer(got)}, neither a documented refusal nor any single reading (${each})` };
}

/** Sends a request once per check and keeps its answer (the single-valued readings). */
function memo(t: CheckTools) {
  const answers = new Map<string, Promise<Exchange>>();
  return (key: string, request: () => Parameters<typeof callOf>[0]) => {
    if (!answers.has(key))
      answers.set(
        key,
        (async () => {
          const exchange = await t.call(callOf(request()));
          await cleanUpCreated(t, exchange);
          return exchange;
        })(),
      );
    return answers.get(key)!;
  };
}

async function valueProbe(t: CheckTools, probe: AmbiguityProbe, single: ReturnType<typeof memo>): Promise<void> {
  if (probe.rule !== 'AMBIG-QUERY-TWICE' && probe.rule !== 'AMBIG-MEMBER-TWICE' && probe.rule !== 'AMBIG-EMPTY') return;
  const element = probe.element;
  const window = wideWindow();
  const seeds = seedsOf(element, window);
  const alone = (value: Value) => single(value, () => withValues(t, element, [seeds[value]], window));
  const omitted = () => single('omitted', () => withValues(t, element, [], window));
  const values = probe.rule === 'AMBIG-EMPTY' ? [probe.value] : probe.values.map((v) => seeds[v]);
  const got = await t.call(callOf(withValues(t, element, values, window)));
  await cleanUpCreated(t, got);
  const singles =
    probe.rule === 'AMBIG-EMPTY'
      ? [{ name: `the request without ${element.name}`, answer: await omitted() }]
      : [
          ...(await Promise.all(probe.values.map(async (v) => ({ name: `the ${v} value`, answer: await alone(v) })))),
          ...(element.required ? [] : [{ name: `the request without ${element.name}`, answer: await omitted() }]),
        ];
  const verdict = reading(element.operation, got, singles);
  t.verify(
    REQUIREMENTS[probe.rule],
    verdict.ok,
    `${probe.rule}: ${element.operation.key} ${probe.what}: ${verdict.text}`,
  );
  t.observe('STD-AMBIG-EMPTY-READING', `${element.operation.key} ${probe.what}: ${verdict.text}`);
}

/** The token each Authorization line carries. */
function lineToken(t: CheckTools, line: Line, operation: Operation): string {
  if (line === 'every') return t.token('all');
  if (line === 'otherAccount') return t.token('noDialer');
  if (line === 'unknown') return `oc_live_unknown${randomUUID().replaceAll('-', '')}`;
  const narrow = principalProbes(doc).find((p) => p.operation.key === operation.key && p.kind === 'two scope sets');
  return t.token((narrow?.second ?? 'none') as TokenName);
}

async function headerProbe(t: CheckTools, probe: AmbiguityProbe, single: ReturnType<typeof memo>): Promise<void> {
  if (probe.rule !== 'AMBIG-HEADER-TWICE') return;
  const { operation } = probe;
  const base = validRequest(t, operation.key, t.token('all'));
  const tokens = probe.lines.map((line) => lineToken(t, line, operation));
  const withLine = (token: string) => ({
    ...base,
    headers: base.headers.map(([n, v]) =>
      n === 'Authorization' ? ([n, `Bearer ${token}`] as const) : ([n, v] as const),
    ),
  });
  // Two lines: the second's name in lower case, so the request's header record holds both.
  const twice = {
    ...base,
    headers: [
      ['Authorization', `Bearer ${tokens[0]}`] as const,
      ['authorization', `Bearer ${tokens[1]}`] as const,
      ...base.headers.filter(([n]) => n !== 'Authorization'),
    ],
  };
  const got = await t.call(callOf(twice));
  await cleanUpCreated(t, got);
  const singles = await Promise.all(
    probe.lines.map(async (line, i) => ({
      name: `the ${line} line`,
      answer: await single(`line ${line}`, () => withLine(tokens[i]!)),
    })),
  );
  const verdict = reading(operation, got, singles);
  t.verify('STD-AMBIG-HEADER-TWICE', verdict.ok, `${probe.rule}: ${operation.key} ${probe.what}: ${verdict.text}`);
  t.observe('STD-AMBIG-EMPTY-READING', `${operation.key} ${probe.what}: ${verdict.text}`);
}

async function oauthProbe(t: CheckTools, probe: AmbiguityProbe): Promise<void> {
  if (probe.rule !== 'AMBIG-OAUTH-REPEATED') return;
  const base = validTokenRequest(t, probe.endpoint);
  const form = [...new URLSearchParams(base.body ?? '')];
  const scopes = t.target.oauth?.scopes ?? ['read:balance', 'read:cdrs'];
  const first = form.find(([n]) => n === probe.parameter)?.[1] ?? scopes[0] ?? 'read:balance';
  const second = probe.same ? first : probe.parameter === 'scope' ? (scopes[1] ?? 'read:cdrs') : `${first}x`;
  const pairs = [...form.filter(([n]) => n !== probe.parameter), [probe.parameter, first], [probe.parameter, second]];
  const got = await t.call(callOf({ ...base, body: new URLSearchParams(pairs).toString() }));
  rememberToken(got);
  const code = (got.json as { error?: unknown } | undefined)?.error;
  t.verify(
    'STD-AMBIG-OAUTH-REPEATED',
    got.status === 400 && code === 'invalid_request',
    `${probe.rule} (RFC 6749 §3.1, §5.2): ${probe.what}: expected 400 invalid_request, got ${describeAnswer(got)}`,
  );
}

/**
 * A client authenticated two ways, one failing: Basic with a wrong secret, the body's id and secret
 * right. Refused (400 invalid_request, or 401 invalid_client for the failing one) whatever the
 * server makes of two methods; a token means it let a failing credential pass unread.
 */
async function twoMethodsProbe(t: CheckTools, probe: AmbiguityProbe): Promise<void> {
  if (probe.rule !== 'AMBIG-OAUTH-TWO-METHODS') return;
  const client = t.target.oauth!;
  const base = validTokenRequest(t, probe.endpoint);
  const wrongBasic = mapHeader(base, 'authorization', () =>
    basicAuthorization(client.clientId, `${client.clientSecret}x`),
  );
  const form = new URLSearchParams(base.body ?? '');
  form.set('client_id', client.clientId);
  form.set('client_secret', client.clientSecret);
  const got = await t.call(callOf({ ...wrongBasic, body: form.toString() }));
  rememberToken(got);
  t.verify(
    'STD-AMBIG-OAUTH-TWO-METHODS',
    (got.status ?? 0) >= 400 && (got.status ?? 0) < 500,
    `${probe.rule} (RFC 6749 §2.3, §5.2): ${probe.what}: expected a refusal, got ${describeAnswer(got)}`,
  );
}

/** Requests a check's probes take: each, and each single reading they compare against once. */
function requestsOf(probes: readonly AmbiguityProbe[]): number {
  const singles = new Set<string>();
  for (const p of probes) {
    if (p.rule === 'AMBIG-EMPTY') singles.add('omitted');
    if (p.rule === 'AMBIG-QUERY-TWICE' || p.rule === 'AMBIG-MEMBER-TWICE') {
      for (const v of p.values) singles.add(v);
      if (!p.element.required) singles.add('omitted');
    }
    if (p.rule === 'AMBIG-HEADER-TWICE') for (const l of p.lines) singles.add(`line ${l}`);
  }
  return probes.length + singles.size;
}

/** The group a probe is checked in: one input of one operation, an operation's header, the token endpoint. */
const groupOf = (p: AmbiguityProbe): string =>
  p.rule === 'AMBIG-OAUTH-REPEATED' || p.rule === 'AMBIG-OAUTH-TWO-METHODS'
    ? `POST ${p.endpoint} form`
    : p.rule === 'AMBIG-HEADER-TWICE'
      ? `${p.operation.key} Authorization`
      : p.element.id;

function ambiguityCheck(group: string, probes: readonly AmbiguityProbe[]): void {
  const verifies = [...new Set(probes.map((p) => REQUIREMENTS[p.rule]))];
  const requirements: [RequirementId, ...RequirementId[]] = [
    verifies[0]!,
    ...verifies.slice(1),
    'STD-AMBIG-EMPTY-READING',
  ];
  const part = relationPart('ambiguity', ranked, probes, verifies[0]!, (p) => `${group} ${p.what}`);
  const oauth = probes.some((p) => p.rule === 'AMBIG-OAUTH-REPEATED' || p.rule === 'AMBIG-OAUTH-TWO-METHODS');
  const tokens: TokenName[] = probes.some((p) => p.rule === 'AMBIG-HEADER-TWICE')
    ? ['all', 'noDialer', 'none', 'read:balance', 'read:cdrs']
    : ['all'];
  check(
    `relation (ambiguity): ${group} given twice or empty is refused as documented or read as one value it ` +
      'validated, never a mix',
    {
      verifies: requirements,
      needs: oauth ? { oauth: true } : { tokens },
      requests: requestsOf(part.sent),
      requestsAll: requestsOf(probes),
      turn: part.turn,
      probes: part.probes,
      unwatchedSubscriptions: true,
    },
    async (t) => {
      part.observe(t);
      const single = memo(t);
      for (const probe of part.sent) {
        await valueProbe(t, probe, single);
        await headerProbe(t, probe, single);
        await oauthProbe(t, probe);
        await twoMethodsProbe(t, probe);
      }
    },
  );
}

describe('Relations: an input given twice or empty is refused or read as one value the target validated', () => {
  const groups = new Map<string, AmbiguityProbe[]>();
  for (const probe of derived) groups.set(groupOf(probe), [...(groups.get(groupOf(probe)) ?? []), probe]);
  for (const [group, probes] of groups) ambiguityCheck(group, probes);
});
