/**
 * RFC 9110 (HTTP semantics) as it binds an origin server's answers: the fields a status requires
 * (401, 405), Date, and the grammar of the fields the API sends. Each rule reads one answer.
 */
import { field, fieldValues, type LintedMessage } from './message.ts';
import {
  imfFixdate,
  isEntityTag,
  isMediaType,
  isTokenList,
  isUriReference,
  parseChallenges,
  tokensOf,
} from './grammar.ts';
import type { LintRule } from './rule.ts';

const isAnswer = (m: LintedMessage) => m.status !== undefined;
const answerOfApi = (m: LintedMessage) => isAnswer(m) && m.channel === 'api';
const clip = (value: string) => (value.length > 80 ? `${value.slice(0, 80)}…` : value);

/** RFC 9110 §15.5.2 and RFC 6750 §3: a 401 of the API names a Bearer challenge. */
export const apiChallenge: LintRule = {
  id: 'LINT-9110-401-CHALLENGE',
  requirement: 'STD-HTTP-AUTH-CHALLENGE',
  level: 'MUST',
  standard: 'RFC 9110 §15.5.2; RFC 6750 §3',
  sentence:
    'The server generating a 401 response MUST send a WWW-Authenticate header field (Section 11.6.1) ' +
    'containing at least one challenge applicable to the target resource. / All challenges defined by this ' +
    'specification MUST use the auth-scheme value "Bearer".',
  appliesTo: 'every 401 answer of the API',
  applies: (m) => answerOfApi(m) && m.status === 401,
  problem: (m) => {
    const value = field(m, 'www-authenticate');
    if (value === undefined) return 'a 401 without WWW-Authenticate';
    const challenges = parseChallenges(value);
    if (typeof challenges === 'string')
      return `WWW-Authenticate: ${clip(value)} is not a list of challenges (${challenges})`;
    if (!challenges.some((c) => c.scheme.toLowerCase() === 'bearer'))
      return `WWW-Authenticate: ${clip(value)} names no Bearer challenge, the scheme the API takes`;
    return undefined;
  },
};

/** RFC 6750 §3: the attributes of a Bearer challenge. */
export const bearerAttributes: LintRule = {
  id: 'LINT-6750-CHALLENGE-ATTRIBUTES',
  requirement: 'STD-HTTP-AUTH-CHALLENGE',
  level: 'MUST',
  standard: 'RFC 6750 §3',
  sentence:
    'The "realm" attribute MUST NOT appear more than once. / The "scope" attribute MUST NOT appear more than ' +
    'once. / Values for the "error" and "error_description" attributes (specified in Appendixes A.7 and A.8 of ' +
    '[RFC6749]) MUST NOT include characters outside the set %x20-21 / %x23-5B / %x5D-7E.',
  appliesTo: 'every Bearer challenge the API sends',
  applies: (m) => isAnswer(m) && m.channel === 'api' && fieldValues(m, 'www-authenticate').length > 0,
  problem: (m) => {
    const challenges = parseChallenges(field(m, 'www-authenticate')!);
    if (typeof challenges === 'string') return undefined;
    for (const c of challenges.filter((c) => c.scheme.toLowerCase() === 'bearer')) {
      for (const name of ['realm', 'scope', 'error', 'error_description', 'error_uri']) {
        const values = c.params.filter(([n]) => n === name).map(([, v]) => v);
        if (values.length > 1) return `the Bearer challenge gives ${name} ${values.length} times`;
        const value = values[0];
        if (value !== undefined && name.startsWith('error') && !/^[\x20\x21\x23-\x5B\x5D-\x7E]*$/.test(value))
          return `the Bearer challenge's ${name} holds a character outside %x20-21 / %x23-5B / %x5D-7E`;
      }
    }
    return undefined;
  },
};

/** RFC 9110 §15.5.6: a 405 lists the methods the resource supports (those the contract documents among them). */
export const allow405: LintRule = {
  id: 'LINT-9110-405-ALLOW',
  requirement: 'STD-HTTP-ALLOW-405',
  level: 'MUST',
  standard: 'RFC 9110 §15.5.6',
  sentence:
    'The origin server MUST generate an Allow header field in a 405 response containing a list of the target ' +
    "resource's currently supported methods.",
  appliesTo: 'every 405 answer of the API',
  applies: (m) => answerOfApi(m) && m.status === 405,
  problem: (m) => {
    const value = field(m, 'allow');
    if (value === undefined) return 'a 405 without Allow';
    if (!isTokenList(value)) return `Allow: ${clip(value)} is not a list of methods`;
    const listed = tokensOf(value);
    const missing = (m.documentedMethods ?? []).filter((method) => !listed.includes(method));
    return missing.length > 0
      ? `Allow: ${clip(value)} leaves out ${missing.join(', ')}, which the contract documents for ${m.path}`
      : undefined;
  },
};

/** RFC 9110 §6.6.1: an origin server with a clock dates its 2xx, 3xx and 4xx answers. */
export const datePresent: LintRule = {
  id: 'LINT-9110-DATE-PRESENT',
  requirement: 'STD-HTTP-DATE',
  level: 'MUST',
  standard: 'RFC 9110 §6.6.1',
  sentence:
    'An origin server with a clock (as defined in Section 5.6.7) MUST generate a Date header field in all 2xx ' +
    '(Successful), 3xx (Redirection), and 4xx (Client Error) responses',
  appliesTo:
    'every 2xx, 3xx and 4xx answer to an operation the contract documents, and of the token endpoint (both keep ' +
    'time: tokens expire); a request outside the contract may be answered by a front end, which is no origin',
  applies: (m) =>
    isAnswer(m) &&
    m.status! >= 200 &&
    m.status! < 500 &&
    (m.channel === 'token' || (m.documentedMethods ?? []).includes(m.method)),
  problem: (m) => (fieldValues(m, 'date').length === 0 ? 'no Date' : undefined),
};

const HTTP_DATE_FIELDS = ['date', 'last-modified', 'expires'];

/** RFC 9110 §5.6.7: a generated HTTP-date is an IMF-fixdate. */
export const dateFormat: LintRule = {
  id: 'LINT-9110-IMF-FIXDATE',
  requirement: 'STD-HTTP-DATE',
  level: 'MUST',
  standard: 'RFC 9110 §5.6.7',
  sentence:
    'When a sender generates a field that contains one or more timestamps defined as HTTP-date, the sender ' +
    'MUST generate those timestamps in the IMF-fixdate format.',
  appliesTo: 'Date, Last-Modified and Expires in every answer and every delivery (the webhook sender is a sender)',
  applies: (m) => m.fields.some(([name]) => HTTP_DATE_FIELDS.includes(name)),
  problem: (m) => {
    for (const name of HTTP_DATE_FIELDS)
      for (const value of fieldValues(m, name))
        if (imfFixdate(value) === undefined && !(name === 'expires' && /^-?\d+$/.test(value)))
          return `${name}: ${clip(value)} is not an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT")`;
    return undefined;
  },
};

/** RFC 9110 §5.3: fields that are not lists come once. */
const SINGLETONS = ['content-type', 'date', 'retry-after', 'location', 'etag', 'last-modified', 'content-location'];

export const singletonFields: LintRule = {
  id: 'LINT-9110-SINGLETON-FIELDS',
  requirement: 'STD-HTTP-FIELD-SYNTAX',
  level: 'MUST',
  standard: 'RFC 9110 §5.3',
  sentence:
    'A sender MUST NOT generate multiple field lines with the same name in a message (whether in the headers ' +
    'or trailers) or append a field line when a field line of the same name already exists in the message, ' +
    "unless that field's definition allows multiple field line values to be recombined as a comma-separated list",
  appliesTo: 'Content-Type, Date, Retry-After, Location, ETag, Last-Modified, Content-Location of every answer',
  applies: isAnswer,
  problem: (m) => {
    const repeated = SINGLETONS.filter((name) => fieldValues(m, name).length > 1);
    return repeated.length > 0 ? `${repeated.join(', ')} sent on more than one field line` : undefined;
  },
};

/** RFC 9110 §8.3, §10.2.2, §10.2.3, §8.8.3: the grammar of the fields the API sends. */
export const fieldGrammar: LintRule = {
  id: 'LINT-9110-FIELD-GRAMMAR',
  requirement: 'STD-HTTP-FIELD-SYNTAX',
  level: 'MUST',
  standard: 'RFC 9110 §8.3.1, §10.2.3, §10.2.2, §8.8.3, §10.2.1',
  sentence:
    'Content-Type = media-type / Retry-After = HTTP-date / delay-seconds / Location = URI-reference / ' +
    'ETag = entity-tag / Allow = #method (the ABNF each section defines; a sender MUST generate what it defines)',
  appliesTo: 'Content-Type, Retry-After, Location, ETag and Allow wherever the API or token service sends them',
  applies: (m) =>
    isAnswer(m) && m.fields.some(([n]) => ['content-type', 'retry-after', 'location', 'etag', 'allow'].includes(n)),
  problem: (m) => {
    const bad = (name: string, ok: (v: string) => boolean) => fieldValues(m, name).find((v) => !ok(v));
    const checks: Array<[string, (v: string) => boolean, string]> = [
      ['content-type', isMediaType, 'a media type (type "/" subtype *( ";" parameter ))'],
      ['retry-after', (v) => /^\d+$/.test(v) || imfFixdate(v) !== undefined, 'delay-seconds or an IMF-fixdate'],
      ['location', isUriReference, 'a URI-reference'],
      ['etag', isEntityTag, 'an entity-tag (a quoted opaque tag, W/ for a weak one)'],
      ['allow', isTokenList, 'a list of method tokens'],
    ];
    for (const [name, ok, what] of checks) {
      const value = bad(name, ok);
      if (value !== undefined) return `${name}: ${clip(value)} is not ${what}`;
    }
    return undefined;
  },
};

/** RFC 9110 §8.8.2.1: Last-Modified is never later than the answer's own Date. */
export const lastModifiedPast: LintRule = {
  id: 'LINT-9110-LAST-MODIFIED-PAST',
  requirement: 'STD-HTTP-DATE',
  level: 'MUST',
  standard: 'RFC 9110 §8.8.2.1',
  sentence:
    'An origin server with a clock MUST NOT generate a Last-Modified date that is later than the ' +
    "server's time of message origination (Date).",
  appliesTo: 'every answer with both Last-Modified and Date',
  applies: (m) => isAnswer(m) && field(m, 'last-modified') !== undefined && field(m, 'date') !== undefined,
  problem: (m) => {
    const modified = imfFixdate(fieldValues(m, 'last-modified')[0]!);
    const date = imfFixdate(fieldValues(m, 'date')[0]!);
    return modified !== undefined && date !== undefined && modified > date
      ? `Last-Modified ${fieldValues(m, 'last-modified')[0]} is later than Date ${fieldValues(m, 'date')[0]}`
      : undefined;
  },
};

/** RFC 9110 §8.3: content comes with its Content-Type (SHOULD: an observation). */
export const contentTypeSent: LintRule = {
  id: 'LINT-9110-CONTENT-TYPE-SENT',
  requirement: 'STD-SHOULD-OBSERVED',
  level: 'SHOULD',
  standard: 'RFC 9110 §8.3',
  sentence:
    'A sender that generates a message containing content SHOULD generate a Content-Type header field in that message',
  appliesTo: 'every answer and delivery with content',
  applies: (m) => m.body.octets > 0 && m.method !== 'HEAD',
  problem: (m) =>
    field(m, 'content-type') === undefined ? `${m.body.octets} octets of content, no Content-Type` : undefined,
};

/** RFC 6750 §3.1: a request without credentials gets a challenge without an error code (SHOULD NOT: an observation). */
export const challengeWithoutCredentials: LintRule = {
  id: 'LINT-6750-NO-ERROR-WITHOUT-CREDENTIALS',
  requirement: 'STD-SHOULD-OBSERVED',
  level: 'SHOULD',
  standard: 'RFC 6750 §3.1',
  sentence:
    'If the request lacks any authentication information (e.g., the client was unaware that authentication is ' +
    'necessary or attempted using an unsupported authentication method), the resource server SHOULD NOT include ' +
    'an error code or other error information.',
  appliesTo: 'every 401 of the API to a request without Authorization',
  applies: (m) => answerOfApi(m) && m.status === 401 && m.requestHeaders.authorization === undefined,
  problem: (m) => {
    const challenges = parseChallenges(field(m, 'www-authenticate') ?? '');
    if (typeof challenges === 'string') return undefined;
    const error = challenges.flatMap((c) => c.params).find(([name]) => name === 'error');
    return error === undefined ? undefined : `error="${error[1]}" in the challenge to a request without credentials`;
  },
};
