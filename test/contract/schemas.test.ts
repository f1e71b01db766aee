import { describe, expect, it } from 'vitest';
import { openapi } from '../../contract/openapi.ts';
import { createContract } from '../../contract/validator.ts';
import { suiteCacheDirectory } from '../../harness/config/settings.ts';

const contract = createContract({ cacheDirectory: suiteCacheDirectory(process.env) });
const uuid4 = '0b8e8c3e-5f2a-4c1d-9e7b-2a6f4d8c1b3e';

/** For each schema: one correct sample, and one wrong sample per rule with the problem it must raise. */
const cases: Record<string, { valid: unknown[]; invalid: Array<[string, unknown, RegExp]> }> = {
  Me: {
    valid: [
      {
        customerId: 'c1',
        companyName: 'Acme',
        primaryContactEmail: 'ops@acme.test',
        extra: 'additive fields are fine',
      },
    ],
    invalid: [
      [
        'missing companyName',
        { customerId: 'c1', primaryContactEmail: 'a@b.co' },
        /lacks required field "companyName"/,
      ],
      [
        'email not an e-mail',
        { customerId: 'c1', companyName: 'A', primaryContactEmail: 'nope' },
        /primaryContactEmail must match format "email"/,
      ],
      [
        'customerId a number',
        { customerId: 1, companyName: 'A', primaryContactEmail: 'a@b.co' },
        /customerId is 1, must be string/,
      ],
    ],
  },
  Balance: {
    valid: [
      { balance: 12.5, currency: 'EUR', accountType: 'prepaid', creditLimit: null, blocked: false, stale: false },
      { balance: -3, currency: 'USD', accountType: 'postpaid', creditLimit: 100, blocked: true, stale: true },
      { balance: 0, currency: 'USD', accountType: 'prepaid', blocked: false, stale: false },
    ],
    invalid: [
      [
        'balance a string',
        { balance: '12.50', currency: 'EUR', accountType: 'prepaid', blocked: false, stale: false },
        /balance is "12.50", must be number/,
      ],
      [
        'creditLimit a string',
        { balance: 1, currency: 'EUR', accountType: 'prepaid', creditLimit: 'none', blocked: false, stale: false },
        /creditLimit/,
      ],
      [
        'stale missing',
        { balance: 1, currency: 'EUR', accountType: 'prepaid', blocked: false },
        /lacks required field "stale"/,
      ],
      [
        'blocked a string',
        { balance: 1, currency: 'EUR', accountType: 'prepaid', blocked: 'no', stale: false },
        /blocked is "no", must be boolean/,
      ],
    ],
  },
  CdrList: {
    valid: [
      {
        count: 1,
        calls: [
          {
            id: 'r1',
            startTime: '2026-01-01T00:00:00Z',
            duration: 30,
            billsec: 25,
            src: '+15550001',
            dst: '+4930123',
            disposition: 'ANSWERED',
            sipUsername: 's1',
            sellPriceCents: 3,
            currency: 'EUR',
            country: 'Germany',
            did: null,
          },
        ],
      },
    ],
    invalid: [
      ['count missing', { calls: [] }, /lacks required field "count"/],
      [
        'duration not an integer',
        { count: 1, calls: [{ duration: 1.5 }] },
        /calls\/0\/duration is 1.5, must be integer/,
      ],
      [
        'startTime not a date-time',
        { count: 1, calls: [{ startTime: 'yesterday' }] },
        /startTime must match format "date-time"/,
      ],
      ['did a number', { count: 1, calls: [{ did: 49 }] }, /did is 49/],
      ['calls not an array', { count: 0, calls: {} }, /calls is \{\}, must be array/],
    ],
  },
  AgentList: {
    valid: [
      { count: 1, agents: [{ id: '1042', sipUsername: 'agent1', label: 'Sales', createdAt: '2026-01-01T00:00:00Z' }] },
    ],
    invalid: [
      ['id not numeric', { count: 1, agents: [{ id: 'a-1' }] }, /agents\/0\/id must match pattern/],
      ['a password field', { count: 1, agents: [{ id: '1', sipPassword: 'x' }] }, /field named "sipPassword"/],
      ['a secret field', { count: 1, agents: [{ id: '1', secret: 'x' }] }, /field named "secret"/],
      ['a credentials object', { count: 1, agents: [{ id: '1', credentials: {} }] }, /field named "credentials"/],
      ['agents missing', { count: 0 }, /lacks required field "agents"/],
    ],
  },
  CallCreate: {
    valid: [
      { aiAgentId: '1042', toNumber: '+14155550123' },
      { aiAgentId: '7', toNumber: '+442071838750', fromNumber: '+14155550100', metadata: { crm: { id: 5 } } },
    ],
    invalid: [
      [
        'aiAgentId numeric but a number',
        { aiAgentId: 1042, toNumber: '+14155550123' },
        /aiAgentId is 1042, must be string/,
      ],
      ['aiAgentId not numeric', { aiAgentId: 'abc', toNumber: '+14155550123' }, /aiAgentId must match pattern/],
      ['toNumber without plus', { aiAgentId: '1', toNumber: '14155550123' }, /toNumber must match pattern/],
      ['toNumber too long', { aiAgentId: '1', toNumber: '+1234567890123456' }, /toNumber must match pattern/],
      [
        'fromNumber not E.164',
        { aiAgentId: '1', toNumber: '+14155550123', fromNumber: '+0123' },
        /fromNumber must match pattern/,
      ],
      [
        'metadata an array',
        { aiAgentId: '1', toNumber: '+14155550123', metadata: [1] },
        /metadata is \[1\], must be object/,
      ],
      ['toNumber missing', { aiAgentId: '1' }, /lacks required field "toNumber"/],
    ],
  },
  CallQueued: {
    valid: [{ callId: uuid4, status: 'queued' }],
    invalid: [
      ['callId not a UUID', { callId: 'call-1', status: 'queued' }, /callId must match format "uuid"/],
      ['status not queued', { callId: uuid4, status: 'ringing' }, /status is "ringing", must be "queued"/],
    ],
  },
  HookCreate: {
    // The URI scheme is case-insensitive (RFC 3986 §3.1): HTTPS:// is an https URI too.
    valid: [
      { event: 'call.ended', target_url: 'https://hooks.example.com/in' },
      { event: 'dnc.added', target_url: 'HTTPS://hooks.example.com/in' },
      { event: 'lead.completed', target_url: `https://x.test/${'a'.repeat(512 - 'https://x.test/'.length)}` },
    ],
    invalid: [
      ['unknown event', { event: 'call.started', target_url: 'https://a.test' }, /event is "call.started", not one of/],
      [
        'http target',
        { event: 'call.ended', target_url: 'http://a.test/x' },
        /target_url must match pattern "\^\[Hh\]\[Tt\]\[Tt\]\[Pp\]\[Ss\]:\/\/"/,
      ],
      [
        '513 characters',
        { event: 'call.ended', target_url: `https://x.test/${'a'.repeat(513 - 'https://x.test/'.length)}` },
        /target_url must NOT have more than 512 characters/,
      ],
      ['not a URI', { event: 'call.ended', target_url: 'https://exa mple' }, /target_url must match format "uri"/],
      ['event missing', { target_url: 'https://a.test' }, /lacks required field "event"/],
    ],
  },
  HookCreated: {
    valid: [{ id: uuid4, secret: 'whsec_abc123' }],
    invalid: [
      ['secret without prefix', { id: uuid4, secret: 'abc123' }, /secret must match pattern/],
      ['id a v1 UUID', { id: 'c232ab00-9414-11ec-b3c8-9f6bdeced846', secret: 'whsec_a' }, /id must match pattern/],
    ],
  },
  Error: {
    valid: [{ error: 'not_found' }, { error: 'not_found', message: 'no such hook' }],
    invalid: [
      ['error missing', { message: 'x' }, /lacks required field "error"/],
      ['message not a string', { error: 'x', message: 5 }, /message is 5, must be string/],
    ],
  },
};

describe('component schemas', () => {
  for (const [name, { valid, invalid }] of Object.entries(cases)) {
    it(`${name} accepts correct samples`, () => {
      for (const sample of valid) expect(contract.checkSchema(name, sample)).toEqual([]);
    });
    it.each(invalid)(`${name} rejects a sample with %s`, (_rule, sample, problem) => {
      const problems = contract.checkSchema(name, sample);
      expect(problems.join('\n')).toMatch(problem);
    });
  }

  it('every component schema is exercised here, directly or through the schema that holds it', () => {
    const throughParents = [
      'Cdr',
      'Agent',
      'E164',
      'EventType',
      'CredentialFieldName',
      'EventBase',
      'CallEndedEvent',
      'CallTransferredEvent',
      'DispositionSetEvent',
      'DncAddedEvent',
      'LeadCompletedEvent',
    ];
    for (const name of Object.keys(openapi.components.schemas)) {
      expect(name in cases || throughParents.includes(name), `${name} has no test case`).toBe(true);
    }
  });
});

describe('event payload schemas', () => {
  const base = {
    eventId: 'evt_1',
    callId: uuid4,
    contactId: 'c1',
    phone: '+14155550123',
    dispositionCode: 'SALE',
    actor: 'ai',
  };
  it.each([
    [
      'call.ended',
      { ...base, durationSec: 42, hangupReason: 'normal', sentimentLabel: 'positive', transferInitiated: false },
    ],
    ['call.transferred', { ...base, transferTarget: '+14155550100' }],
    ['call.transferred', base],
    ['disposition.set', { ...base, terminal: true, triggersDnc: false }],
    ['dnc.added', { ...base, occurredAt: '2026-01-01T00:00:00Z' }],
    ['lead.completed', base],
  ])('%s accepts a correct payload', (event, payload) => {
    expect(contract.checkEvent(event, payload)).toEqual([]);
  });
  it.each([
    ['call.ended', { ...base, hangupReason: 'normal', sentimentLabel: 'x', transferInitiated: false }, /durationSec/],
    [
      'call.ended',
      { ...base, durationSec: '42', hangupReason: 'normal', sentimentLabel: 'x', transferInitiated: false },
      /durationSec is "42", must be integer/,
    ],
    ['disposition.set', { ...base, terminal: 'yes', triggersDnc: false }, /terminal is "yes", must be boolean/],
    ['dnc.added', { ...base, eventId: undefined }, /lacks required field "eventId"/],
    ['lead.completed', { ...base, actor: 7 }, /actor is 7, must be string/],
    ['call.transferred', { ...base, transferTarget: 5 }, /transferTarget is 5, must be string/],
  ])('%s rejects a payload breaking a rule', (event, payload, problem) => {
    expect(contract.checkEvent(event, payload).join('\n')).toMatch(problem);
  });
});
