/**
 * Every rule of the protocol lint on a message that holds it and one that breaks it: a new rule
 * without both here fails the last test.
 */
import { describe, expect, it } from 'vitest';
import { createLintTally, lintMessage } from '../../../contract/standards/lint.ts';
import { bodyFacts, type LintedMessage } from '../../../contract/standards/message.ts';
import { lintRules } from '../../../contract/standards/registry.ts';

const DATE = 'Sat, 28 Nov 2026 23:00:00 GMT';
const json = (value: unknown) => bodyFacts(Buffer.from(JSON.stringify(value)));

function answer(over: Partial<LintedMessage> & { add?: Array<[string, string]>; drop?: string[] } = {}): LintedMessage {
  const { add = [], drop = [], ...rest } = over;
  const fields: Array<[string, string]> = [
    ['content-type', 'application/json; charset=utf-8'],
    ['date', DATE],
    ['content-length', '2'],
  ];
  return {
    channel: 'api',
    method: 'GET',
    path: '/v1/me',
    documentedMethods: ['GET'],
    requestHeaders: {},
    status: 200,
    body: json({}),
    ...rest,
    fields: [...fields.filter(([n]) => !drop.includes(n)), ...add],
  };
}

const unauthorized = (add: Array<[string, string]>) =>
  answer({ status: 401, add, body: json({ error: 'unauthorized' }) });
const token = { access_token: 'oc_at_abc', token_type: 'Bearer', expires_in: 3600, scope: 'read:balance read:cdrs' };
const tokenAnswer = (body: unknown, add: Array<[string, string]> = [['cache-control', 'no-store']]) =>
  answer({ channel: 'token', method: 'POST', path: '/oauth/token', body: json(body), add });
const refusal = (status: number, body: unknown, add: Array<[string, string]> = []) =>
  answer({ channel: 'token', method: 'POST', path: '/oauth/token', status, body: json(body), add });
const delivery = (fields: Array<[string, string]>, body = json({ eventId: 'e' })): LintedMessage => ({
  channel: 'delivery',
  method: 'POST',
  path: '/hooks/a',
  requestHeaders: Object.fromEntries(fields),
  fields,
  body,
});
const basicRefusal = (add: Array<[string, string]>) => ({
  ...refusal(401, { error: 'invalid_client' }, add),
  requestHeaders: { authorization: 'Basic YTpi' },
});
const deliveryFields: Array<[string, string]> = [
  ['host', 'r.example'],
  ['content-type', 'application/json'],
  ['content-length', '15'],
  ['user-agent', 'x'],
];

/** rule id → [a message that holds it, a message that breaks it]. */
const cases: Record<string, [LintedMessage, LintedMessage]> = {
  'LINT-9110-401-CHALLENGE': [
    unauthorized([['www-authenticate', 'Bearer realm="api"']]),
    unauthorized([['www-authenticate', 'Basic realm="api"']]),
  ],
  'LINT-6750-CHALLENGE-ATTRIBUTES': [
    unauthorized([['www-authenticate', 'Bearer realm="api", error="invalid_token"']]),
    unauthorized([['www-authenticate', 'Bearer realm="a", realm="b"']]),
  ],
  'LINT-6750-NO-ERROR-WITHOUT-CREDENTIALS': [
    unauthorized([['www-authenticate', 'Bearer realm="api"']]),
    unauthorized([['www-authenticate', 'Bearer realm="api", error="invalid_token"']]),
  ],
  'LINT-9110-405-ALLOW': [
    answer({ status: 405, documentedMethods: ['GET'], add: [['allow', 'GET, HEAD']] }),
    answer({ status: 405, documentedMethods: ['GET'], add: [['allow', 'HEAD']] }),
  ],
  'LINT-9110-DATE-PRESENT': [answer(), answer({ drop: ['date'] })],
  'LINT-9110-IMF-FIXDATE': [answer(), answer({ drop: ['date'], add: [['date', '2026-11-28T23:00:00Z']] })],
  'LINT-9110-SINGLETON-FIELDS': [answer(), answer({ add: [['content-type', 'application/json']] })],
  'LINT-9110-FIELD-GRAMMAR': [
    answer({ add: [['retry-after', '30']] }),
    answer({ status: 429, add: [['retry-after', '30s']] }),
  ],
  'LINT-9110-LAST-MODIFIED-PAST': [
    answer({ add: [['last-modified', 'Sat, 28 Nov 2026 22:00:00 GMT']] }),
    answer({ add: [['last-modified', 'Sun, 29 Nov 2026 00:00:00 GMT']] }),
  ],
  'LINT-9110-CONTENT-TYPE-SENT': [answer(), answer({ drop: ['content-type'] })],
  'LINT-9110-NO-LENGTH-ON-204': [
    answer({ status: 204, drop: ['content-length', 'content-type'], body: bodyFacts(Buffer.alloc(0)) }),
    answer({ status: 204, drop: ['content-type'], body: bodyFacts(Buffer.alloc(0)) }),
  ],
  'LINT-9112-NO-TE-ON-204': [
    answer({ status: 204, drop: ['content-length'], body: bodyFacts(Buffer.alloc(0)) }),
    answer({ status: 204, drop: ['content-length'], add: [['transfer-encoding', 'chunked']] }),
  ],
  'LINT-9112-DELIVERY-LENGTH-FIELDS': [
    delivery(deliveryFields),
    delivery([...deliveryFields, ['content-length', '15']]),
  ],
  'LINT-8259-UTF8': [answer(), answer({ body: bodyFacts(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])) })],
  'LINT-8259-NO-BOM': [answer(), answer({ body: bodyFacts(Buffer.from('\uFEFF{}')) })],
  'LINT-8259-UNIQUE-NAMES': [answer(), answer({ body: bodyFacts(Buffer.from('{"a":1,"a":2}')) })],
  'LINT-6749-TOKEN-ANSWER': [tokenAnswer(token), tokenAnswer({ ...token, expires_in: '3600' })],
  'LINT-6749-NO-STORE': [tokenAnswer(token), tokenAnswer(token, [['cache-control', 'private']])],
  'LINT-6749-PRAGMA': [
    tokenAnswer(token, [
      ['cache-control', 'no-store'],
      ['pragma', 'no-cache'],
    ]),
    tokenAnswer(token),
  ],
  'LINT-6749-NO-REFRESH-TOKEN': [tokenAnswer(token), tokenAnswer({ ...token, refresh_token: 'r' })],
  'LINT-6749-ERROR-ANSWER': [
    refusal(400, { error: 'invalid_scope', error_description: 'not registered' }),
    refusal(400, { error: 'invalid_scope', error_description: 'scope "x" is unknown' }),
  ],
  'LINT-6749-401-CHALLENGE': [
    basicRefusal([['www-authenticate', 'Basic realm="oauth"']]),
    basicRefusal([['www-authenticate', 'Bearer realm="oauth"']]),
  ],
  'LINT-9112-HOST': [delivery(deliveryFields), delivery(deliveryFields.filter(([n]) => n !== 'host'))],
  'LINT-9110-CONNECTION-OPTIONS': [
    delivery([...deliveryFields, ['te', 'trailers'], ['connection', 'keep-alive, TE']]),
    delivery([...deliveryFields, ['te', 'trailers'], ['connection', 'keep-alive']]),
  ],
  'LINT-9110-DELIVERY-FIELDS': [
    delivery(deliveryFields),
    delivery([...deliveryFields.filter(([n]) => n !== 'content-type'), ['content-type', 'json']]),
  ],
  'LINT-9110-USER-AGENT': [delivery(deliveryFields), delivery(deliveryFields.filter(([n]) => n !== 'user-agent'))],
};

describe('the protocol lint', () => {
  for (const rule of lintRules)
    it(`${rule.id} (${rule.standard}) holds on a conforming message and finds the broken one`, () => {
      const [good, bad] = cases[rule.id] ?? [];
      expect(good, `no test case for ${rule.id}`).toBeDefined();
      expect(rule.applies(good!), 'the good message is of its kind').toBe(true);
      expect(rule.problem(good!)).toBeUndefined();
      expect(rule.applies(bad!), 'the broken message is of its kind').toBe(true);
      expect(rule.problem(bad!)).toEqual(expect.any(String));
    });

  it('has a case for every rule and a rule for every case, ids unique, sentences quoted', () => {
    expect(Object.keys(cases).sort()).toEqual(lintRules.map((r) => r.id).sort());
    expect(new Set(lintRules.map((r) => r.id)).size).toBe(lintRules.length);
    for (const rule of lintRules) {
      expect(rule.id).toMatch(/^LINT-\d{4}-[A-Z0-9-]+$/);
      expect(rule.standard).toMatch(/^RFC \d{4} §/);
      expect(rule.sentence.length).toBeGreaterThan(30);
      expect(rule.level === 'SHOULD').toBe(rule.requirement === 'STD-SHOULD-OBSERVED');
    }
  });

  it('finds nothing in a conforming answer, and tallies what it reads by requirement and rule', () => {
    const tally = createLintTally();
    tally.add(lintMessage(answer()));
    tally.add(lintMessage(answer({ drop: ['date'] })));
    tally.add(lintMessage(answer({ drop: ['date'] })));
    expect(lintMessage(answer()).findings).toEqual([]);
    expect(tally.applied.get('STD-HTTP-DATE')).toBe(3);
    expect(tally.broken.get('STD-HTTP-DATE')).toBe(2);
    expect(tally.appliedRules.get('LINT-9110-DATE-PRESENT')).toBe(3);
    expect(tally.examples.get('STD-HTTP-DATE')).toEqual([
      {
        rule: 'LINT-9110-DATE-PRESENT',
        requirement: 'STD-HTTP-DATE',
        level: 'MUST',
        message: 'GET /v1/me → 200',
        problem: 'no Date',
      },
    ]);
  });
});

describe('what a front end may answer', () => {
  it('leaves the Date of an answer to a request outside the contract (FOO, an unknown path) unjudged', () => {
    const undated = answer({ method: 'FOO', status: 400, drop: ['date'] });
    const rule = lintRules.find((r) => r.id === 'LINT-9110-DATE-PRESENT')!;
    expect(rule.applies(undated)).toBe(false);
    expect(rule.applies({ ...undated, method: 'GET' })).toBe(true);
    expect(rule.applies({ ...undated, documentedMethods: undefined, method: 'GET' })).toBe(false);
  });
});

describe('the webhook sender is a sender', () => {
  it('generates its HTTP-dates as IMF-fixdates too (RFC 9110 §5.6.7)', () => {
    const rule = lintRules.find((r) => r.id === 'LINT-9110-IMF-FIXDATE')!;
    const dated = (date: string) => delivery([...deliveryFields, ['date', date]]);
    expect(rule.applies(dated(DATE)) && rule.problem(dated(DATE))).toBeUndefined();
    expect(rule.problem(dated('2026-11-28T23:00:00Z'))).toEqual(expect.any(String));
  });
});
