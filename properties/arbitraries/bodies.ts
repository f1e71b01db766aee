/**
 * Generators of request bodies for POST /calls and POST /hooks that break openapi.json's
 * CallCreate / HookCreate (wrong types, missing required fields, extra nesting, huge strings,
 * non-object JSON, text that is not JSON), and of HookCreate bodies that keep to it.
 *
 * POST /calls bodies must never be able to originate a call, even at a target that validates
 * nothing: every one breaks aiAgentId or toNumber in a way no lenient reading repairs
 * (`couldOriginate`, contract/origination.ts, is the guard the property asserts before sending).
 */
import fc from 'fast-check';
import { eventTypes } from '../../contract/openapi.ts';
import { webFragments, webPath, webQueryParameters } from './uri-parts.ts';

export type Body =
  | { readonly kind: 'text'; readonly text: string; readonly why: string }
  | { readonly kind: 'json'; readonly value: unknown; readonly why: string };

const KB = 1024;

/** Strings up to ~10 KB, mostly short, of the given characters. */
const hugeString = (chars: string, minLength = 600): fc.Arbitrary<string> =>
  fc.integer({ min: minLength, max: 10 * KB }).map((n) => chars.repeat(Math.ceil(n / chars.length)).slice(0, n));

/** JSON values that are not objects. */
const nonObject: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, '', 'aiAgentId', [], [{}]),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.string({ maxLength: 30 }),
  fc.integer(),
);

/** Texts JSON.parse refuses (checked by the filter, so none slips through as valid JSON). */
export const notJson: fc.Arbitrary<string> = fc
  .oneof(
    fc.constantFrom(
      '{',
      '}',
      '{"aiAgentId": }',
      "{'event': 'call.ended'}",
      '{"a":1,}',
      'nul',
      'undefined',
      '{"a" 1}',
      '[1,2',
      '{"event":"call.ended"',
      'NaN',
      '\u0000',
    ),
    fc.string({ minLength: 1, maxLength: 40 }).map((s) => `{${s}`),
    fc.string({ minLength: 1, maxLength: 40 }).map((s) => `x${s}`),
  )
  .filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return text.trim() !== '';
    }
  });

/** Values of the wrong JSON type for a string field. */
const notAString: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, 0, 14155550100, 1.5, [], {}, ['+14155550100'], { value: '1' }),
  fc.integer(),
);

// ── POST /calls ──

/**
 * A numeric id no account has (the reference's are four digits): reaching the agent lookup is 404,
 * never an origination.
 */
const unknownAgentId = fc.bigInt({ min: 10n ** 14n, max: 10n ** 15n - 1n }).map((n) => `9${n}`);

/** aiAgentId values that are not numeric strings. */
const brokenAgentId: fc.Arbitrary<unknown> = fc.oneof(
  notAString,
  fc.constantFrom('', ' ', 'abc', '12a', '-1', '1.5', '1e3', ' 1001', '1001 ', '0x10', '١٢٣'),
  hugeString('agent'),
);

/** toNumber values that are no phone number under any lenient reading: letters, +0…, one digit, empty. */
const brokenToNumber: fc.Arbitrary<unknown> = fc.oneof(
  notAString,
  fc.constantFrom(
    '',
    '+',
    '+0',
    '+1',
    '+0123456789',
    '+00',
    'abc',
    '+1415555010a',
    'tel:abc',
    'sip:agent@example.invalid',
  ),
  fc.stringMatching(/^\+0[0-9]{1,14}$/),
  fc.stringMatching(/^[a-z]{1,12}$/),
  hugeString('x'),
);

/** Optional fields, valid or broken: the break that matters is elsewhere. */
const optionalCallFields = fc.record(
  {
    fromNumber: fc.oneof(fc.constant('+14155550100'), brokenToNumber),
    metadata: fc.oneof(fc.constant({ campaign: 'property' }), fc.constantFrom('meta', 1, [], null)),
    extra: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: [] },
);

type CallBreak = 'agent' | 'to' | 'both';

function callObject(
  agent: unknown,
  to: unknown,
  omit: { agent: boolean; to: boolean },
  rest: Record<string, unknown>,
): Record<string, unknown> {
  return { ...rest, ...(omit.agent ? {} : { aiAgentId: agent }), ...(omit.to ? {} : { toNumber: to }) };
}

/**
 * CallCreate-shaped objects with aiAgentId or toNumber broken (or missing), optionally nested one
 * level down. `goodAgent` is the aiAgentId of bodies whose only break is toNumber: an agent of the
 * account makes toNumber the body's one defect, so only 400 invalid_input is right (with an
 * unknown agent, 404 ai_agent_not_found would be an allowed answer too: the spec gives no
 * precedence, and a target that never validates toNumber would go unseen).
 */
function brokenCallObject(goodAgent: fc.Arbitrary<string>): fc.Arbitrary<Body> {
  return fc
    .record({
      which: fc.constantFrom<CallBreak>('agent', 'to', 'both'),
      agent: brokenAgentId,
      goodAgent,
      to: brokenToNumber,
      omitAgent: fc.boolean(),
      omitTo: fc.boolean(),
      rest: optionalCallFields,
      nest: fc.oneof(
        { weight: 4, arbitrary: fc.constant<string | undefined>(undefined) },
        { weight: 1, arbitrary: fc.constantFrom('call', 'data', 'body') },
      ),
    })
    .map(({ which, agent, goodAgent, to, omitAgent, omitTo, rest, nest }): Body => {
      const breaksAgent = which !== 'to';
      const breaksTo = which !== 'agent';
      const object = callObject(
        breaksAgent ? agent : goodAgent,
        breaksTo ? to : '+0000000000',
        { agent: breaksAgent && omitAgent, to: breaksTo && omitTo },
        rest as Record<string, unknown>,
      );
      // A valid agent goes with a broken toNumber only; '+0000000000' stands in when the break is
      // the agent's (it is not E.164 either, so no reading of the body can dial).
      const value = nest === undefined ? object : { [nest]: object };
      return { kind: 'json', value, why: `${which} broken${nest === undefined ? '' : `, nested under ${nest}`}` };
    });
}

/** Schema-invalid POST /calls bodies; `agentId` (an agent of the account) pairs with a broken toNumber. */
export function brokenCallBody(agentId?: string): fc.Arbitrary<Body> {
  return fc.oneof(
    { weight: 6, arbitrary: brokenCallObject(agentId === undefined ? unknownAgentId : fc.constant(agentId)) },
    { weight: 1, arbitrary: nonObject.map((value): Body => ({ kind: 'json', value, why: 'not an object' })) },
    { weight: 2, arbitrary: notJson.map((text): Body => ({ kind: 'text', text, why: 'not JSON' })) },
  );
}

// ── POST /hooks ──

/** Event names outside the enumeration: near misses and other text. */
export const unknownEvent: fc.Arbitrary<string> = fc
  .oneof(
    fc.constantFrom(...eventTypes).map((e) => e.toUpperCase()),
    fc.constantFrom(...eventTypes).map((e) => `${e} `),
    fc.constantFrom(...eventTypes).map((e) => e.replace('.', '_')),
    fc.constantFrom('', 'call', 'call.started', 'call.*', '*', 'call.ended,dnc.added', 'seat.created', 'invoice.paid'),
    fc.stringMatching(/^[a-z]{1,10}\.[a-z_]{1,12}$/),
  )
  .filter((event) => !(eventTypes as readonly string[]).includes(event));

const hosts = ['example.com', 'hooks.example.org', 'receiver.example.net', 'example.invalid'];

/** target_url values that are not https, not absolute, or longer than 512 characters. */
export const brokenTargetUrl: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(fc.constantFrom(...hosts), webPath()).map(([host, path]) => `http://${host}${path}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('ftp', 'ws', 'wss', 'file', 'HTTP'), fc.constantFrom(...hosts), webPath())
      .map(([scheme, host, path]) => `${scheme}://${host}${path}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      'example.com/hook',
      '//example.com/hook',
      'https:example.com',
      'https//example.com',
      '/hooks/x',
      'not a url',
      'https://exa mple.com/',
      'https:/example.com/hook',
      'HTTPS:example.com',
    ),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom(...hosts), fc.integer({ min: 513, max: 10 * KB }))
      .map(([host, n]) => `https://${host}/${'a'.repeat(Math.max(1, n - `https://${host}/`.length))}`),
  },
  { weight: 1, arbitrary: fc.constant(`https://${'a'.repeat(63)}.example.com/${'b'.repeat(460)}`) },
  { weight: 1, arbitrary: notAString },
);

const brokenHookObject: fc.Arbitrary<Body> = fc
  .record({
    // One field broken at a time most often, so each rule is what decides the answer.
    which: fc.oneof(
      { weight: 4, arbitrary: fc.constant('target') },
      { weight: 3, arbitrary: fc.constant('event') },
      { weight: 1, arbitrary: fc.constantFrom('both', 'missing-event', 'missing-target', 'empty') },
    ),
    event: fc.oneof(unknownEvent, notAString),
    goodEvent: fc.constantFrom(...eventTypes),
    target: brokenTargetUrl,
    extra: fc.option(fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), {
      nil: undefined,
    }),
    nest: fc.oneof(
      { weight: 4, arbitrary: fc.constant<string | undefined>(undefined) },
      { weight: 1, arbitrary: fc.constantFrom('hook', 'data') },
    ),
  })
  .map(({ which, event, goodEvent, target, extra, nest }): Body => {
    const goodTarget = 'https://example.invalid/hooks/property';
    const object: Record<string, unknown> = { ...extra };
    if (which === 'event' || which === 'both') object.event = event;
    if (which === 'target' || which === 'both') object.target_url = target;
    if (which === 'target' || which === 'missing-target') object.event = goodEvent;
    if (which === 'event' || which === 'missing-event') object.target_url = goodTarget;
    if (which === 'empty') for (const key of Object.keys(object)) delete object[key];
    const value = nest === undefined ? object : { [nest]: { event: goodEvent, target_url: goodTarget } };
    return { kind: 'json', value, why: nest === undefined ? which : `valid fields nested under ${nest}` };
  });

export const brokenHookBody: fc.Arbitrary<Body> = fc.oneof(
  { weight: 6, arbitrary: brokenHookObject },
  { weight: 1, arbitrary: nonObject.map((value): Body => ({ kind: 'json', value, why: 'not an object' })) },
  { weight: 2, arbitrary: notJson.map((text): Body => ({ kind: 'text', text, why: 'not JSON' })) },
);

/**
 * Valid https target URLs up to 512 characters, the scheme sometimes in capitals: reserved example
 * hosts (a created hook never points at a real third party), generated RFC 3986 paths, queries and
 * fragments, and often padded to exactly the 512-character limit.
 */
export const validTargetUrl: fc.Arbitrary<string> = fc
  .record({
    // The scheme is case-insensitive (RFC 3986 §3.1): HTTPS:// and Https:// are https URIs too.
    scheme: fc.oneof(
      { weight: 6, arbitrary: fc.constant('https') },
      { weight: 1, arbitrary: fc.constantFrom('HTTPS', 'Https') },
    ),
    sub: fc.option(fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,20}[a-z0-9])?$/), { nil: undefined }),
    host: fc.constantFrom(...hosts),
    port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    path: webPath(),
    query: fc.option(webQueryParameters(), { nil: undefined }),
    fragment: fc.option(webFragments(), { nil: undefined }),
    padTo: fc.oneof(
      { weight: 2, arbitrary: fc.constant<number | undefined>(undefined) },
      { weight: 1, arbitrary: fc.constant(512) },
      { weight: 1, arbitrary: fc.integer({ min: 20, max: 512 }) },
    ),
  })
  .map(({ scheme, sub, host, port, path, query, fragment, padTo }) => {
    const base =
      `${scheme}://${sub === undefined ? '' : `${sub}.`}${host}${port === undefined ? '' : `:${port}`}` +
      `${path.startsWith('/') || path === '' ? path : `/${path}`}`;
    const tail = `${query === undefined ? '' : `?${query}`}${fragment === undefined ? '' : `#${fragment}`}`;
    let url = `${base}${tail}`;
    // Pad inside the path (before ? and #) so the padded URL stays the same kind of URL.
    if (padTo !== undefined && url.length < padTo)
      url =
        `${base}${base.endsWith('/') ? '' : '/'}` +
        `${'p'.repeat(Math.max(0, padTo - url.length - (base.endsWith('/') ? 0 : 1)))}${tail}`;
    return url;
  })
  .filter((url) => url.length <= 512);

export const validHookBody = fc.record({ event: fc.constantFrom(...eventTypes), target_url: validTargetUrl });
