/**
 * Equivalence relations read from the standards (metamorphic testing, Segura et al., IEEE TSE 2018;
 * docs/relations.md): a valid request rewritten into a form a standard declares equivalent must get
 * the same answer; a form a standard declares different is never taken as the valid one. Each
 * relation is a small pure function of a request on the wire (its method, raw path, raw query,
 * header lines and body text), with a stable id, the section of its RFC and the sentence behind it.
 * Which relations apply to an operation is read from openapi.json: its security scheme (the
 * Authorization header it reads), its request body's media type (Content-Type, the JSON members),
 * its query and path parameters, its method (HEAD for a GET), a member of format uri; the token
 * endpoint from the oauth2 scheme's client-credentials flow. A probe compares with the valid request,
 * or with another request made from it (`base`: the request refused for want of a token). Pure.
 */
import { elementsOf, operationsOf, resolve, type Document, type Operation, type Schema } from './document.ts';
import { rankedBy } from './operator.ts';

/** A request as it goes on the wire: the raw path and query (percent-encodings kept), header lines, body text. */
export interface WireRequest {
  readonly method: string;
  readonly path: string;
  readonly query: ReadonlyArray<readonly [string, string]>;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: string;
}

/** What a conforming target does with the rewritten request. */
export type Expect =
  /** The answer of the valid request: status, error code, and for a safe read the body. */
  | 'same'
  /** The same answer, or refused: the standard says only SHOULD (an observation, never a failure). */
  | 'same-or-refused'
  /** Never the valid request's answer: a form the standard calls different. */
  | 'different';

export interface Relation {
  /** Stable id, e.g. REL-AUTH-SCHEME-CASE. */
  readonly id: string;
  /** e.g. "RFC 9110 §5.1". */
  readonly section: string;
  /** The standard's sentence, quoted. */
  readonly quote: string;
  readonly expect: Expect;
  /** Which requests it applies to, in words (docs/relations.md). */
  readonly appliesTo: string;
  /** Whether the answer's media type is compared too (the relation is about the answer's form). */
  readonly mediaType?: boolean;
}

export const relations: readonly Relation[] = [
  {
    id: 'REL-FIELD-NAME-CASE',
    section: 'RFC 9110 §5.1',
    quote: 'Field names are case-insensitive',
    expect: 'same',
    appliesTo: 'every header an operation reads: Authorization (its security scheme), Content-Type (its body)',
  },
  {
    id: 'REL-FIELD-VALUE-OWS',
    section: 'RFC 9110 §5.5',
    quote: 'a field value does not include leading or trailing whitespace',
    expect: 'same',
    appliesTo: 'every header an operation reads',
  },
  {
    id: 'REL-AUTH-SCHEME-CASE',
    section: 'RFC 9110 §11.1',
    quote: 'It uses a case-insensitive token to identify the authentication scheme',
    expect: 'same',
    appliesTo: 'every operation secured by an http bearer scheme: `bearer`, `BEARER`',
  },
  {
    id: 'REL-AUTH-SPACES',
    section: 'RFC 9110 §11.4, RFC 6750 §2.1',
    quote: 'credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]; b64token after "Bearer" 1*SP',
    expect: 'same',
    appliesTo: 'every operation secured by an http bearer scheme: two spaces after Bearer',
  },
  {
    id: 'REL-MEDIA-TYPE-CASE',
    section: 'RFC 9110 §8.3.1',
    quote: 'The type and subtype tokens are case-insensitive',
    expect: 'same',
    appliesTo: 'every operation with a JSON request body: Application/JSON',
  },
  {
    id: 'REL-MEDIA-TYPE-PARAMETER',
    section: 'RFC 9110 §8.3.1, RFC 8259 §11',
    quote: 'The parameter name token is case-insensitive; [charset] really has no effect on compliant recipients',
    expect: 'same',
    appliesTo: 'every operation with a JSON request body: `; charset=UTF-8`, `;CHARSET=utf-8`',
  },
  {
    id: 'REL-JSON-WHITESPACE',
    section: 'RFC 8259 §2',
    quote: 'Insignificant whitespace is allowed before or after any of the six structural characters',
    expect: 'same',
    appliesTo: 'every JSON request body',
  },
  {
    id: 'REL-JSON-MEMBER-ORDER',
    section: 'RFC 8259 §4',
    quote: 'An object is an unordered collection of zero or more name/value pairs',
    expect: 'same',
    appliesTo: 'every JSON request body with two members or more: the members reversed',
  },
  {
    id: 'REL-JSON-ESCAPE',
    section: 'RFC 8259 §7',
    quote: 'Any character may be escaped ... as a six-character sequence; "\\/" represents the solidus',
    expect: 'same',
    appliesTo: 'every string member of a JSON request body: its first letter as \\u00XX, every "/" as "\\/"',
  },
  {
    id: 'REL-PERCENT-UNRESERVED',
    section: 'RFC 3986 §2.3, §6.2.2.2',
    quote:
      'URIs that differ in the replacement of an unreserved character with its corresponding percent-encoded ' +
      'US-ASCII octet are equivalent',
    expect: 'same',
    appliesTo: 'every path and query parameter (its value), every query parameter name, every literal path segment',
  },
  {
    id: 'REL-PERCENT-HEX-CASE',
    section: 'RFC 3986 §6.2.2.1',
    quote: 'For all URIs, the hexadecimal digits within a percent-encoding triplet ... are case-insensitive',
    expect: 'same',
    appliesTo: 'every path and query parameter: a percent-encoded letter in lower-case hex',
  },
  {
    id: 'REL-RESERVED-NOT-DELIMITER',
    section: 'RFC 3986 §2.2',
    quote:
      'URIs that differ in the replacement of a reserved character with its corresponding percent-encoded octet ' +
      'are not equivalent',
    expect: 'different',
    appliesTo: 'every GET operation: its path followed by %3F (an encoded "?"), and by %2F (an encoded "/")',
  },
  {
    id: 'REL-HEAD-IS-GET',
    section: 'RFC 9110 §9.3.2, §9.1',
    quote:
      'The HEAD method is identical to GET except that the server MUST NOT send content in the response; ' +
      'All general-purpose servers MUST support the methods GET and HEAD',
    expect: 'same',
    appliesTo: 'every GET operation: HEAD gets its status and no content',
  },
  {
    id: 'REL-OAUTH-EMPTY-PARAMETER',
    section: 'RFC 6749 §3.1',
    quote: 'Parameters sent without a value MUST be treated as if they were omitted from the request',
    expect: 'same',
    appliesTo: "the token endpoint of every oauth2 client-credentials flow: `scope=` (the client's scopes omitted)",
  },
  {
    id: 'REL-OAUTH-PARAMETER-ORDER',
    section: 'RFC 6749 §4.4.2',
    quote:
      'The client makes a request to the token endpoint by adding the following parameters using the ' +
      '"application/x-www-form-urlencoded" format',
    expect: 'same',
    appliesTo: 'the token endpoint: the form parameters in reverse order',
  },
  {
    id: 'REL-PRECONDITION-AFTER-CHECKS',
    section: 'RFC 9110 §13.2.1',
    quote:
      'A server MUST ignore all received preconditions if its response to the same request without those ' +
      'conditions, prior to processing the request content, would have been a status code other than a 2xx ' +
      '(Successful) or 412 (Precondition Failed)',
    expect: 'same',
    appliesTo:
      'every operation secured by an http bearer scheme, sent without its token (refused): with each precondition ' +
      'of RFC 9110 §13.1 that a current representation makes false (If-None-Match: *, If-Match, ' +
      'If-Unmodified-Since) it gets the same refusal',
  },
  {
    id: 'REL-OAUTH-UNKNOWN-PARAMETER',
    section: 'RFC 6749 §3.2',
    quote: 'The authorization server MUST ignore unrecognized request parameters.',
    expect: 'same',
    appliesTo: 'the token endpoint of every oauth2 client-credentials flow: a parameter it cannot know added',
  },
  {
    id: 'REL-ACCEPT-ANY',
    section: 'RFC 9110 §12.5.1',
    quote:
      'The asterisk "*" character is used to group media types into ranges, with "*/*" indicating all media types ' +
      '... A request without any Accept header field implies that the user agent will accept any media type in ' +
      'response.',
    expect: 'same',
    mediaType: true,
    appliesTo:
      'every operation and the token endpoint: `Accept: */*` in place of `application/json` gets the same answer, ' +
      'in the same media type (the contract has one: JSON, RFC 6749 §5.1 for the token endpoint)',
  },
  {
    id: 'REL-URI-SCHEME-CASE',
    section: 'RFC 3986 §3.1',
    quote: 'An implementation should accept uppercase letters as equivalent to lowercase in scheme names',
    expect: 'same-or-refused',
    appliesTo: 'every JSON member of format uri: its scheme in upper case',
  },
];

const relation = (id: string): Relation => {
  const found = relations.find((r) => r.id === id);
  if (found === undefined) throw new Error(`no relation ${id}`);
  return found;
};

/** One rewriting of one operation's valid request. */
export interface EquivalenceProbe {
  readonly relation: Relation;
  /** "GET /cdrs", or "POST {token endpoint}". */
  readonly operation: string;
  /** What the rewriting is, e.g. "AUTHORIZATION: the field name in upper case". */
  readonly what: string;
  readonly rewrite: (request: WireRequest) => WireRequest;
  /**
   * The request the rewritten one is compared with, made from the valid request (default: the valid
   * request itself); `rewrite` is applied to it. Probes of one operation share it by identity.
   */
  readonly base?: (request: WireRequest) => WireRequest;
}

// ── The rewritings: pure functions of a request on the wire ──

const isName = (wanted: string) => (name: string) => name.toLowerCase() === wanted.toLowerCase();

/** The header lines with the value of `name` changed by `change` (its name by `rename`). */
export function mapHeader(
  request: WireRequest,
  name: string,
  change: (value: string) => string,
  rename: (name: string) => string = (n) => n,
): WireRequest {
  return {
    ...request,
    headers: request.headers.map(([n, v]) => (isName(name)(n) ? ([rename(n), change(v)] as const) : ([n, v] as const))),
  };
}

/** The Authorization value's scheme replaced by `scheme`, and `spaces` between it and the token. */
export function withScheme(request: WireRequest, scheme: string, spaces = 1): WireRequest {
  return mapHeader(request, 'authorization', (value) => {
    const [, token] = /^\S+\s+(.*)$/.exec(value) ?? [];
    return `${scheme}${' '.repeat(spaces)}${token ?? ''}`;
  });
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** `%XX` of an ASCII character, hex digits upper case (or lower). */
export function percentOf(char: string, lower = false): string {
  const hex = char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
  return `%${lower ? hex.toLowerCase() : hex}`;
}

/**
 * `text` with one unreserved character percent-encoded: the first letter (where `letter`, one
 * whose hex has a letter digit, so hex case can differ: a-o, A-O, except digits), else the first one.
 */
export function encodeOne(text: string, lower = false): string {
  const inTriplet = new Set<number>();
  for (const m of text.matchAll(/%[0-9A-Fa-f]{2}/g)) for (let i = 0; i < 3; i++) inTriplet.add(m.index + i);
  const candidates = [...text].map((c, i) => ({ c, i })).filter(({ c, i }) => !inTriplet.has(i) && UNRESERVED.test(c));
  // In lower case only a character whose hex has a letter digit (":" is %3A, "j" is %6A) differs from upper case.
  const pick = lower ? (candidates.find(({ c }) => /[A-F]/.test(percentOf(c))) ?? candidates[0]) : candidates[0];
  if (pick === undefined) return text;
  return text.slice(0, pick.i) + percentOf(pick.c, lower) + text.slice(pick.i + 1);
}

/** Every unreserved character of `text` percent-encoded, its percent-encodings kept as they are. */
export function encodeAll(text: string): string {
  return text.replace(/%[0-9A-Fa-f]{2}|[A-Za-z0-9\-._~]/g, (m) => (m.length === 3 ? m : percentOf(m)));
}

/** The JSON text with its top-level members reordered by `order`. */
function reorder(body: string, order: (keys: string[]) => string[]): string {
  const value = JSON.parse(body) as Record<string, unknown>;
  return `{${order(Object.keys(value))
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(value[k])}`)
    .join(',')}}`;
}

/** The first letter of a JSON string as \u00XX, and every "/" as "\/": the same string (RFC 8259 §7). */
export function escapedString(value: string): string {
  const plain = JSON.stringify(value);
  const letter = plain.length > 2 ? Math.max(1, plain.search(/[A-Za-z]/)) : -1;
  const unicode = (i: number) => `\\u${plain.charCodeAt(i).toString(16).padStart(4, '0')}`;
  const escaped = letter < 0 ? plain : `${plain.slice(0, letter)}${unicode(letter)}${plain.slice(letter + 1)}`;
  return escaped.replaceAll('/', '\\/');
}

/** The JSON body with member `name` (a string) written with escapes. */
function escapeMember(body: string, name: string): string {
  const value = JSON.parse(body) as Record<string, unknown>;
  return `{${Object.entries(value)
    .map(
      ([k, v]) => `${JSON.stringify(k)}:${k === name && typeof v === 'string' ? escapedString(v) : JSON.stringify(v)}`,
    )
    .join(',')}}`;
}

/** A JSON value written with insignificant whitespace around every structural character (strings untouched). */
function spacedValue(value: unknown): string {
  const ws = ' \r\n\t ';
  if (Array.isArray(value)) return `[${ws}${value.map(spacedValue).join(`${ws},${ws}`)}${ws}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}${ws}:${ws}${spacedValue(v)}`);
  return `{${ws}${members.join(`${ws},${ws}`)}${ws}}`;
}

/** The JSON body with whitespace around every structural character (RFC 8259 §2: ws is space, tab, LF, CR). */
export function spaced(body: string): string {
  return `\n ${spacedValue(JSON.parse(body))} \n`;
}

const withMember = (body: string, name: string, change: (v: string) => string): string => {
  const value = JSON.parse(body) as Record<string, unknown>;
  return JSON.stringify({ ...value, [name]: change(String(value[name])) });
};

// ── Which rewritings each operation gets, from the document ──

interface RawOperation {
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string }>;
  readonly requestBody?: { readonly content?: Record<string, { schema?: Schema }> };
}

function rawOf(doc: Document, operation: Operation): RawOperation {
  return doc.paths[operation.path]![operation.method.toLowerCase()] as RawOperation;
}

/** The operation is secured by an http bearer scheme: it reads an Authorization header. */
export function readsBearer(doc: Document, operation: Operation): boolean {
  const schemes = doc.components?.securitySchemes ?? {};
  return operation.security.some((requirement) =>
    Object.keys(requirement).some((name) => schemes[name]?.type === 'http' && schemes[name]?.scheme === 'bearer'),
  );
}

function authorizationProbes(operation: string): EquivalenceProbe[] {
  const p = (id: string, what: string, rewrite: EquivalenceProbe['rewrite']) => ({
    relation: relation(id),
    operation,
    what,
    rewrite,
  });
  return [
    p('REL-AUTH-SCHEME-CASE', 'Authorization: bearer <token>', (r) => withScheme(r, 'bearer')),
    p('REL-FIELD-NAME-CASE', 'AUTHORIZATION: the field name in upper case', (r) =>
      mapHeader(
        r,
        'authorization',
        (v) => v,
        (n) => n.toUpperCase(),
      ),
    ),
    p('REL-AUTH-SPACES', 'Authorization: Bearer, two spaces, <token>', (r) => withScheme(r, 'Bearer', 2)),
    p('REL-AUTH-SCHEME-CASE', 'Authorization: BEARER <token>', (r) => withScheme(r, 'BEARER')),
    p('REL-FIELD-NAME-CASE', 'aUtHoRiZaTiOn: the field name in mixed case', (r) =>
      mapHeader(
        r,
        'authorization',
        (v) => v,
        () => 'aUtHoRiZaTiOn',
      ),
    ),
    p('REL-FIELD-VALUE-OWS', 'Authorization with a space and a tab around its value', (r) =>
      mapHeader(r, 'authorization', (v) => ` \t${v}\t `),
    ),
  ];
}

/** The valid request accepting any media type, as curl and most libraries send it. */
const acceptAny = (operation: string): EquivalenceProbe => ({
  relation: relation('REL-ACCEPT-ANY'),
  operation,
  what: 'Accept: */*',
  rewrite: (r) => ({ ...r, headers: [...r.headers.filter(([n]) => n.toLowerCase() !== 'accept'), ['accept', '*/*']] }),
});

/** The valid request without its Authorization: what every bearer-secured operation refuses. */
const withoutToken = (r: WireRequest): WireRequest => ({
  ...r,
  headers: r.headers.filter(([name]) => name.toLowerCase() !== 'authorization'),
});

/**
 * RFC 9110 §13.1's preconditions, each with a value a current representation makes false: a server
 * that evaluated it would answer 304 or 412; on a request refused before it (no token) it must not.
 */
const FALSE_PRECONDITIONS: ReadonlyArray<readonly [string, string]> = [
  ['If-None-Match', '*'],
  ['If-Match', '"occ-no-such-entity-tag"'],
  ['If-Unmodified-Since', 'Thu, 01 Jan 1970 00:00:00 GMT'],
];

function preconditionProbes(operation: string): EquivalenceProbe[] {
  return FALSE_PRECONDITIONS.map(([name, value]) => ({
    relation: relation('REL-PRECONDITION-AFTER-CHECKS'),
    operation,
    what: `no token, ${name}: ${value}`,
    base: withoutToken,
    rewrite: (r: WireRequest) => ({ ...r, headers: [...r.headers, [name, value] as const] }),
  }));
}

function bodyProbes(doc: Document, operation: Operation, raw: RawOperation): EquivalenceProbe[] {
  const media = Object.keys(raw.requestBody?.content ?? {});
  if (!media.includes('application/json')) return [];
  const key = operation.key;
  const p = (id: string, what: string, rewrite: EquivalenceProbe['rewrite']) => ({
    relation: relation(id),
    operation: key,
    what,
    rewrite,
  });
  const body = (change: (b: string) => string) => (r: WireRequest) => ({ ...r, body: change(r.body ?? '{}') });
  const type = (value: string) => (r: WireRequest) => mapHeader(r, 'content-type', () => value);
  const fields = elementsOf(doc).filter((e) => e.operation.key === key && e.location === 'body');
  const strings = fields.filter((e) => e.schema.type === 'string' && e.required);
  const uris = fields.filter((e) => e.schema.format === 'uri');
  return [
    p(
      'REL-MEDIA-TYPE-PARAMETER',
      'Content-Type: application/json; charset=UTF-8',
      type('application/json; charset=UTF-8'),
    ),
    p('REL-MEDIA-TYPE-CASE', 'Content-Type: Application/JSON', type('Application/JSON')),
    p('REL-FIELD-NAME-CASE', 'CONTENT-TYPE: the field name in upper case', (r) =>
      mapHeader(
        r,
        'content-type',
        (v) => v,
        (n) => n.toUpperCase(),
      ),
    ),
    p('REL-JSON-WHITESPACE', 'the body with whitespace around every structural character', body(spaced)),
    ...(fields.filter((e) => e.required).length >= 2
      ? [
          p(
            'REL-JSON-MEMBER-ORDER',
            'the members in reverse order',
            body((b) => reorder(b, (k) => [...k].reverse())),
          ),
        ]
      : []),
    ...strings.map((e) =>
      p(
        'REL-JSON-ESCAPE',
        `${e.name} written with \\u00XX and \\/ escapes`,
        body((b) => escapeMember(b, e.name)),
      ),
    ),
    p(
      'REL-MEDIA-TYPE-PARAMETER',
      'Content-Type: application/json;CHARSET=utf-8',
      type('application/json;CHARSET=utf-8'),
    ),
    p('REL-FIELD-VALUE-OWS', 'Content-Type with spaces around its value', type(' application/json ')),
    ...uris.map((e) =>
      p(
        'REL-URI-SCHEME-CASE',
        `${e.name} with its scheme in upper case`,
        body((b) => withMember(b, e.name, (v) => v.replace(/^[a-z][a-z0-9+.-]*:/i, (s) => s.toUpperCase()))),
      ),
    ),
  ];
}

/** The query pair `name` with its value (or name) changed. */
function mapQuery(
  r: WireRequest,
  name: string,
  change: (pair: readonly [string, string]) => readonly [string, string],
) {
  return { ...r, query: r.query.map((pair) => (pair[0] === name ? change(pair) : pair)) };
}

function parameterProbes(doc: Document, operation: Operation): EquivalenceProbe[] {
  const key = operation.key;
  const p = (id: string, what: string, rewrite: EquivalenceProbe['rewrite']) => ({
    relation: relation(id),
    operation: key,
    what,
    rewrite,
  });
  const parameters = elementsOf(doc).filter((e) => e.operation.key === key && e.location !== 'body');
  return parameters.flatMap((e) => {
    if (e.location === 'path') {
      const segment = (change: (s: string) => string) => (r: WireRequest) => ({
        ...r,
        path: r.path
          .split('/')
          .map((s, i) => (operation.path.split('/')[i] === `{${e.name}}` ? change(s) : s))
          .join('/'),
      });
      return [
        p(
          'REL-PERCENT-UNRESERVED',
          `path ${e.name} with a character percent-encoded`,
          segment((s) => encodeOne(s)),
        ),
        p(
          'REL-PERCENT-HEX-CASE',
          `path ${e.name} with a letter percent-encoded in lower-case hex`,
          segment((s) => encodeOne(s, true)),
        ),
      ];
    }
    return [
      p('REL-PERCENT-UNRESERVED', `query ${e.name} with its value percent-encoded`, (r) =>
        mapQuery(r, e.name, ([n, v]) => [n, encodeAll(v)]),
      ),
      p('REL-PERCENT-UNRESERVED', `query ${e.name} with its name's first letter percent-encoded`, (r) =>
        mapQuery(r, e.name, ([n, v]) => [encodeOne(n), v]),
      ),
      p('REL-PERCENT-HEX-CASE', `query ${e.name} with its name's letter in lower-case hex`, (r) =>
        mapQuery(r, e.name, ([n, v]) => [encodeOne(n, true), v]),
      ),
    ];
  });
}

/** The operation's literal path segment (its last one without a parameter), one letter percent-encoded. */
function literalSegmentProbe(operation: Operation): EquivalenceProbe[] {
  const segments = operation.path.split('/');
  const at = segments.findLastIndex((s) => s !== '' && !s.includes('{'));
  if (at < 0) return [];
  return [
    {
      relation: relation('REL-PERCENT-UNRESERVED'),
      operation: operation.key,
      what: `the path segment "${segments[at]}" with its first letter percent-encoded`,
      rewrite: (r) => ({
        ...r,
        path: r.path
          .split('/')
          .map((s, i) => (i === at ? encodeOne(s) : s))
          .join('/'),
      }),
    },
  ];
}

function getProbes(operation: Operation): EquivalenceProbe[] {
  if (operation.method !== 'GET') return [];
  const p = (id: string, what: string, rewrite: EquivalenceProbe['rewrite']) => ({
    relation: relation(id),
    operation: operation.key,
    what,
    rewrite,
  });
  return [
    p('REL-HEAD-IS-GET', `HEAD ${operation.path}`, (r) => ({ ...r, method: 'HEAD' })),
    p('REL-RESERVED-NOT-DELIMITER', `${operation.path}%3F (an encoded "?" in the last segment)`, (r) => ({
      ...r,
      path: `${r.path}%3F`,
    })),
    p('REL-RESERVED-NOT-DELIMITER', `${operation.path}%2F (an encoded "/" in the last segment)`, (r) => ({
      ...r,
      path: `${r.path}%2F`,
    })),
  ];
}

/** The token endpoint of the document's oauth2 client-credentials flows ("{auth_url}/oauth/token"), if any. */
export function tokenEndpoints(doc: Document): string[] {
  const schemes = Object.values(doc.components?.securitySchemes ?? {}) as Array<{
    type: string;
    flows?: { clientCredentials?: { tokenUrl?: string; 'x-token-url-template'?: string } };
  }>;
  return [
    ...new Set(
      schemes
        .filter((s) => s.type === 'oauth2')
        .map((s) => s.flows?.clientCredentials?.['x-token-url-template'] ?? s.flows?.clientCredentials?.tokenUrl)
        .filter((u): u is string => u !== undefined),
    ),
  ];
}

function tokenEndpointProbes(doc: Document): EquivalenceProbe[] {
  return tokenEndpoints(doc).flatMap((endpoint) => {
    const operation = `POST ${endpoint}`;
    const form = (change: (pairs: Array<[string, string]>) => Array<[string, string]>) => (r: WireRequest) => ({
      ...r,
      body: new URLSearchParams(change([...new URLSearchParams(r.body ?? '')])).toString(),
    });
    return [
      {
        relation: relation('REL-OAUTH-EMPTY-PARAMETER'),
        operation,
        what: "scope= (no value) in place of the form's scope, or added",
        rewrite: form((pairs) => [...pairs.filter(([n]) => n !== 'scope'), ['scope', '']]),
      },
      {
        relation: relation('REL-OAUTH-PARAMETER-ORDER'),
        operation,
        what: 'the form parameters in reverse order',
        rewrite: form((pairs) => [...pairs].reverse()),
      },
      {
        relation: relation('REL-OAUTH-UNKNOWN-PARAMETER'),
        operation,
        what: 'occ_unrecognized=1 added to the form',
        rewrite: form((pairs) => [...pairs, ['occ_unrecognized', '1']]),
      },
      acceptAny(operation),
    ];
  });
}

/** Every equivalence probe of `doc`: each relation on every operation (and token endpoint) it applies to. */
export function equivalenceProbes(doc: Document): EquivalenceProbe[] {
  return [
    ...operationsOf(doc).flatMap((operation) => [
      ...(readsBearer(doc, operation) ? authorizationProbes(operation.key) : []),
      ...(readsBearer(doc, operation) ? preconditionProbes(operation.key) : []),
      ...bodyProbes(doc, operation, rawOf(doc, operation)),
      ...parameterProbes(doc, operation),
      ...literalSegmentProbe(operation),
      ...getProbes(operation),
      acceptAny(operation.key),
    ]),
    ...tokenEndpointProbes(doc),
  ];
}

/**
 * Ranked likeliest slip first, for the request budget (docs/relations.md): a scheme compared
 * case-sensitively or split on one space (hand-written auth middleware), HEAD not routed, a
 * media type compared exactly, a percent-encoding not decoded, a conditional-request layer in
 * front of authentication, the token endpoint's empty parameter, then the rest; on each, the
 * operations in the document's order.
 */
const RANK = [
  'REL-AUTH-SCHEME-CASE',
  'REL-AUTH-SPACES',
  'REL-HEAD-IS-GET',
  'REL-MEDIA-TYPE-PARAMETER',
  'REL-PERCENT-UNRESERVED',
  'REL-PRECONDITION-AFTER-CHECKS',
  'REL-OAUTH-EMPTY-PARAMETER',
  'REL-OAUTH-UNKNOWN-PARAMETER',
  'REL-ACCEPT-ANY',
  'REL-MEDIA-TYPE-CASE',
  'REL-JSON-ESCAPE',
  'REL-FIELD-NAME-CASE',
  'REL-RESERVED-NOT-DELIMITER',
  'REL-PERCENT-HEX-CASE',
  'REL-JSON-WHITESPACE',
  'REL-JSON-MEMBER-ORDER',
  'REL-OAUTH-PARAMETER-ORDER',
  'REL-FIELD-VALUE-OWS',
  'REL-URI-SCHEME-CASE',
];

export function rankEquivalences(probes: readonly EquivalenceProbe[]): EquivalenceProbe[] {
  const operations = [...new Set(probes.map((p) => p.operation))];
  const occurrence = new Map<EquivalenceProbe, number>();
  const seen = new Map<string, number>();
  for (const probe of probes) {
    const group = `${probe.relation.id} ${probe.operation}`;
    occurrence.set(probe, seen.get(group) ?? 0);
    seen.set(group, (seen.get(group) ?? 0) + 1);
  }
  return rankedBy(probes, (p) => [occurrence.get(p)!, RANK.indexOf(p.relation.id), operations.indexOf(p.operation)]);
}

/** Whether an operation's 2xx body is a live value (its description says "live"): compared by shape only. */
export function liveBody(doc: Document, operation: Operation): boolean {
  const raw = doc.paths[operation.path]![operation.method.toLowerCase()] as {
    responses?: Record<string, { description?: string }>;
  };
  return /\blive\b/i.test(raw.responses?.['200']?.description ?? '');
}

/** The JSON schema of an operation's request body ($ref resolved). */
export function bodySchema(doc: Document, operation: Operation): Schema {
  return resolve(doc, rawOf(doc, operation).requestBody?.content?.['application/json']?.schema);
}

/** The wire form of a query: `name=value` pairs joined as given (their percent-encodings kept). */
export function queryString(query: WireRequest['query']): string {
  return query.map(([n, v]) => `${n}=${v}`).join('&');
}
