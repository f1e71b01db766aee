/**
 * Ambiguity and absence (docs/relations.md): every input of openapi.json given twice, and every
 * field given an empty, zero, false or null value. Whatever the target makes of it, the value it
 * acts on must be one it validated: the request is refused with a documented status and code, or
 * answered exactly as one of the single-valued requests (or, for an optional input, the request
 * without it) would be; which reading it took is recorded. At the token endpoint RFC 6749 decides:
 * a repeated parameter is 400 invalid_request. The inputs are read from the document: every query
 * parameter and JSON body member of every operation, the Authorization header of every operation
 * an http bearer scheme secures, the form of the oauth2 client-credentials flow. Pure.
 */
import { elementsOf, operationsOf, type Document, type Element, type Operation } from './document.ts';
import { readsBearer, tokenEndpoints } from './equivalences.ts';
import { rankedBy } from './operator.ts';

/** Which of an input's seeded values the two occurrences carry: a valid one, another valid one, an invalid one. */
export type Value = 'valid' | 'other' | 'invalid';

/** The principals whose tokens two Authorization lines carry (token names of the run's fixtures, or none valid). */
export type Line = 'every' | 'otherAccount' | 'narrow' | 'unknown';

export const ambiguityRules = [
  {
    id: 'AMBIG-QUERY-TWICE',
    requirement: 'STD-AMBIG-QUERY-TWICE',
    section: 'RFC 3986 §3.4',
    quote:
      'The query component contains non-hierarchical data that, along with data in the path component ' +
      '(Section 3.3), serves to identify a resource',
  },
  {
    id: 'AMBIG-MEMBER-TWICE',
    requirement: 'STD-AMBIG-JSON-MEMBER-TWICE',
    section: 'RFC 8259 §4',
    quote:
      'When the names within an object are not unique, the behavior of software that receives such an object is ' +
      'unpredictable',
  },
  {
    id: 'AMBIG-HEADER-TWICE',
    requirement: 'STD-AMBIG-HEADER-TWICE',
    section: 'RFC 9110 §5.3',
    quote:
      'A sender MUST NOT generate multiple field lines with the same name in a message ... unless that ' +
      "field's definition allows multiple field line values to be recombined as a comma-separated list",
  },
  {
    id: 'AMBIG-EMPTY',
    requirement: 'STD-AMBIG-EMPTY-VALUE',
    section: 'RFC 8259 §3',
    quote:
      'A JSON value MUST be an object, array, number, or string, or one of the following three literal names: ' +
      'false null true (null and "" are values, not absence)',
  },
  {
    id: 'AMBIG-OAUTH-REPEATED',
    requirement: 'STD-AMBIG-OAUTH-REPEATED',
    section: 'RFC 6749 §3.1, §5.2',
    quote:
      'Request and response parameters MUST NOT be included more than once; invalid_request: ... repeats a ' +
      'parameter',
  },
  {
    id: 'AMBIG-OAUTH-TWO-METHODS',
    requirement: 'STD-AMBIG-OAUTH-TWO-METHODS',
    section: 'RFC 6749 §2.3, §5.2',
    quote:
      'The client MUST NOT use more than one authentication method in each request; invalid_request: ... ' +
      'utilizes more than one mechanism for authenticating the client',
  },
] as const;

export type AmbiguityRuleId = (typeof ambiguityRules)[number]['id'];

export type AmbiguityProbe =
  /** A query parameter or JSON member given twice, carrying two of its seeded values in this order. */
  | {
      readonly rule: 'AMBIG-QUERY-TWICE' | 'AMBIG-MEMBER-TWICE';
      readonly element: Element;
      readonly values: readonly [Value, Value];
      readonly what: string;
    }
  /** A field given an empty value ("" for a string, 0, false, null), or a query parameter given as `name=`. */
  | { readonly rule: 'AMBIG-EMPTY'; readonly element: Element; readonly value: unknown; readonly what: string }
  /** Two Authorization lines. */
  | {
      readonly rule: 'AMBIG-HEADER-TWICE';
      readonly operation: Operation;
      readonly lines: readonly [Line, Line];
      readonly what: string;
    }
  /** The client authenticated twice: HTTP Basic with a wrong secret, and the right id and secret in the body. */
  | { readonly rule: 'AMBIG-OAUTH-TWO-METHODS'; readonly endpoint: string; readonly what: string }
  /** A token-request parameter repeated, with its own value or another. */
  | {
      readonly rule: 'AMBIG-OAUTH-REPEATED';
      readonly endpoint: string;
      readonly parameter: string;
      readonly same: boolean;
      readonly what: string;
    };

/** The orders of two values: two valid ones, then a valid one and an invalid one each way. */
const ORDERS: ReadonlyArray<readonly [Value, Value]> = [
  ['valid', 'other'],
  ['valid', 'invalid'],
  ['invalid', 'valid'],
];

/** The Authorization pairs: a valid token and an unknown one each way, two principals of two accounts and scopes. */
const LINES: ReadonlyArray<readonly [Line, Line]> = [
  ['every', 'unknown'],
  ['unknown', 'every'],
  ['otherAccount', 'narrow'],
];

/** The empty values of a schema's type: "" for a string, 0 for a number, false for a boolean, null for any. */
export function emptyValues(element: Element): unknown[] {
  const types = Array.isArray(element.schema.type) ? element.schema.type : [element.schema.type];
  if (element.location === 'query') return [''];
  return [
    ...(types.includes('string') ? [''] : []),
    ...(types.includes('integer') || types.includes('number') ? [0] : []),
    ...(types.includes('boolean') ? [false] : []),
    ...(types.includes('object') ? [{}] : []),
    null,
  ];
}

const describeValue = (value: unknown) => (value === '' ? 'an empty string' : JSON.stringify(value));

/** Every ambiguity probe of `doc`. */
export function ambiguityProbes(doc: Document): AmbiguityProbe[] {
  const elements = elementsOf(doc).filter((e) => e.location === 'query' || e.location === 'body');
  const twice = elements.flatMap((element) =>
    ORDERS.map((values) => ({
      rule: element.location === 'query' ? ('AMBIG-QUERY-TWICE' as const) : ('AMBIG-MEMBER-TWICE' as const),
      element,
      values,
      what: `${element.name} twice (${values.join(', then ')})`,
    })),
  );
  const empty = elements.flatMap((element) =>
    emptyValues(element).map((value) => ({
      rule: 'AMBIG-EMPTY' as const,
      element,
      value,
      what: element.location === 'query' ? `${element.name}= (no value)` : `${element.name}: ${describeValue(value)}`,
    })),
  );
  const headers = operationsOf(doc)
    .filter((operation) => readsBearer(doc, operation))
    .flatMap((operation) =>
      LINES.map((lines) => ({
        rule: 'AMBIG-HEADER-TWICE' as const,
        operation,
        lines,
        what: `two Authorization lines (${lines.join(', then ')})`,
      })),
    );
  const oauth = tokenEndpoints(doc).flatMap((endpoint) =>
    ['grant_type', 'scope'].flatMap((parameter) =>
      [true, false].map((same) => ({
        rule: 'AMBIG-OAUTH-REPEATED' as const,
        endpoint,
        parameter,
        same,
        what: `${parameter} twice (${same ? 'the same value' : 'two values'})`,
      })),
    ),
  );
  const methods = tokenEndpoints(doc).map((endpoint) => ({
    rule: 'AMBIG-OAUTH-TWO-METHODS' as const,
    endpoint,
    what: 'HTTP Basic with a wrong secret beside the right client_id and client_secret in the body',
  }));
  return [...twice, ...empty, ...headers, ...oauth, ...methods];
}

/** The operation a probe asks ("POST {auth_url}/oauth/token" for the token endpoint). */
export function operationOf(probe: AmbiguityProbe): string {
  if (probe.rule === 'AMBIG-OAUTH-REPEATED' || probe.rule === 'AMBIG-OAUTH-TWO-METHODS')
    return `POST ${probe.endpoint}`;
  return probe.rule === 'AMBIG-HEADER-TWICE' ? probe.operation.key : probe.element.operation.key;
}

/**
 * Ranked likeliest slip first: a query parameter twice (frameworks disagree: the first, the last,
 * an array, a join), a valid then an invalid value before the reverse (a validator reading the
 * first and a handler the last), an empty query value (`limit=` read as 0, "no limit"), two
 * Authorization lines of two principals, a repeated token parameter, a client authenticated two ways,
 * then JSON members; on each,
 * the operations in the document's order.
 */
const RANK: readonly string[] = [
  'AMBIG-QUERY-TWICE',
  'AMBIG-EMPTY',
  'AMBIG-HEADER-TWICE',
  'AMBIG-OAUTH-REPEATED',
  'AMBIG-OAUTH-TWO-METHODS',
];

export function rankAmbiguity(probes: readonly AmbiguityProbe[]): AmbiguityProbe[] {
  const operations = [...new Set(probes.map(operationOf))];
  const order = (p: AmbiguityProbe) => {
    if (p.rule === 'AMBIG-QUERY-TWICE' || p.rule === 'AMBIG-MEMBER-TWICE')
      return ORDERS.findIndex((o) => o === p.values) === 1 ? 0 : 1;
    if (p.rule === 'AMBIG-HEADER-TWICE') return p.lines[0] === 'otherAccount' ? 0 : 1;
    return 0;
  };
  const rank = (p: AmbiguityProbe) => (RANK.includes(p.rule) ? RANK.indexOf(p.rule) : RANK.length);
  return rankedBy(probes, (p) => [order(p), rank(p), operations.indexOf(operationOf(p))]);
}

/** The JSON text of `body` with member `name` given twice: `first`, then `second` (RFC 8259 §4). */
export function memberTwice(body: Record<string, unknown>, name: string, first: unknown, second: unknown): string {
  const members = Object.entries(body).filter(([k]) => k !== name);
  const pairs = [
    `${JSON.stringify(name)}:${JSON.stringify(first)}`,
    ...members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`),
    `${JSON.stringify(name)}:${JSON.stringify(second)}`,
  ];
  return `{${pairs.join(',')}}`;
}
