/**
 * RFC 6749 (OAuth 2.0) as it binds the token endpoint the spec names ({auth_url}/oauth/token): the
 * shape of a token answer (§5.1, Appendix A), of a refusal (§5.2), and the challenge of a 401.
 */
import { field, fieldValues, isJsonMediaType, type LintedMessage } from './message.ts';
import { isNqchars, isNqschars, isUriReference, isVschars, parseChallenges } from './grammar.ts';
import type { LintRule } from './rule.ts';

const tokenAnswer = (m: LintedMessage) => m.channel === 'token' && m.status === 200;
const tokenRefusal = (m: LintedMessage) => m.channel === 'token' && (m.status === 400 || m.status === 401);

function jsonObject(m: LintedMessage): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(m.body.text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** §5.1 and Appendix A: what a token answer holds, in which JSON types and characters. */
function tokenAnswerProblem(m: LintedMessage): string | undefined {
  if (!isJsonMediaType(field(m, 'content-type')))
    return `Content-Type ${field(m, 'content-type')} is not application/json`;
  const body = jsonObject(m);
  if (body === undefined) return 'the content is not a JSON object';
  const { access_token: token, token_type: type, expires_in: expires, scope } = body;
  if (typeof token !== 'string' || !isVschars(token)) return 'access_token is not a string of VSCHAR (%x20-7E)';
  if (typeof type !== 'string') return 'token_type is missing or not a string';
  if (type.toLowerCase() !== 'bearer') return `token_type "${type}" is not bearer (compared case-insensitively)`;
  if (expires !== undefined && !(typeof expires === 'number' && Number.isInteger(expires) && expires >= 0))
    return `expires_in ${JSON.stringify(expires)} is not a JSON number of seconds (1*DIGIT)`;
  if (scope !== undefined && (typeof scope !== 'string' || !scope.split(' ').every(isNqchars)))
    return `scope ${JSON.stringify(scope)} is not scope-tokens (NQCHAR) separated by single spaces`;
  return undefined;
}

export const tokenAnswerShape: LintRule = {
  id: 'LINT-6749-TOKEN-ANSWER',
  requirement: 'STD-OAUTH-TOKEN-ANSWER',
  level: 'MUST',
  standard: 'RFC 6749 §5.1; Appendix A.12-A.14',
  sentence:
    'The parameters are included in the entity-body of the HTTP response using the "application/json" media ' +
    'type ... Parameter names and string values are included as JSON strings. Numerical values are included as ' +
    'JSON numbers. / access_token REQUIRED. / token_type REQUIRED. The value is case insensitive.',
  appliesTo: 'every 200 answer of the token endpoint',
  applies: tokenAnswer,
  problem: tokenAnswerProblem,
};

export const tokenNoStore: LintRule = {
  id: 'LINT-6749-NO-STORE',
  requirement: 'STD-OAUTH-TOKEN-ANSWER',
  level: 'MUST',
  standard: 'RFC 6749 §5.1',
  sentence:
    'The authorization server MUST include the HTTP "Cache-Control" response header field [RFC2616] with a ' +
    'value of "no-store" in any response containing tokens, credentials, or other sensitive information',
  appliesTo: 'every 200 answer of the token endpoint',
  applies: tokenAnswer,
  problem: (m) =>
    (field(m, 'cache-control') ?? '').split(',').some((directive) => directive.trim().toLowerCase() === 'no-store')
      ? undefined
      : `Cache-Control: ${field(m, 'cache-control') ?? '(none)'} has no no-store`,
};

export const tokenPragma: LintRule = {
  id: 'LINT-6749-PRAGMA',
  requirement: 'STD-SHOULD-OBSERVED',
  level: 'SHOULD',
  standard: 'RFC 6749 §5.1 (Pragma: deprecated by RFC 9111 §5.4)',
  sentence: '... as well as the "Pragma" response header field [RFC2616] with a value of "no-cache".',
  appliesTo: 'every 200 answer of the token endpoint',
  applies: tokenAnswer,
  problem: (m) => (/no-cache/i.test(field(m, 'pragma') ?? '') ? undefined : 'no Pragma: no-cache'),
};

export const noRefreshToken: LintRule = {
  id: 'LINT-6749-NO-REFRESH-TOKEN',
  requirement: 'STD-SHOULD-OBSERVED',
  level: 'SHOULD',
  standard: 'RFC 6749 §4.4.3',
  sentence: 'A refresh token SHOULD NOT be included.',
  appliesTo: 'every 200 answer of the token endpoint (the suite asks only for client_credentials grants)',
  applies: tokenAnswer,
  problem: (m) =>
    jsonObject(m)?.refresh_token !== undefined ? 'a refresh_token in a client_credentials answer' : undefined,
};

const ERROR_CODES = ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client'];
const REGISTERED = [...ERROR_CODES, 'unsupported_grant_type', 'invalid_scope'];

/** §5.2: a refusal's status, media type, code and characters. */
function refusalProblem(m: LintedMessage): string | undefined {
  if (!isJsonMediaType(field(m, 'content-type')))
    return `Content-Type ${field(m, 'content-type')} is not application/json`;
  const body = jsonObject(m);
  if (body === undefined) return 'the content is not a JSON object';
  const { error, error_description: description, error_uri: uri } = body;
  if (typeof error !== 'string' || !REGISTERED.includes(error))
    return `error ${JSON.stringify(error)} is not one of ${REGISTERED.join(', ')}`;
  if (m.status === 401 && error !== 'invalid_client')
    return `a 401 with error ${error}: only invalid_client may be 401`;
  if (description !== undefined && (typeof description !== 'string' || !isNqschars(description)))
    return 'error_description holds a character outside %x20-21 / %x23-5B / %x5D-7E (or is not a string)';
  if (uri !== undefined && (typeof uri !== 'string' || !isUriReference(uri) || /["\\ ]/.test(uri)))
    return 'error_uri is not a URI-reference of %x21 / %x23-5B / %x5D-7E';
  return undefined;
}

export const tokenRefusalShape: LintRule = {
  id: 'LINT-6749-ERROR-ANSWER',
  requirement: 'STD-OAUTH-ERROR-ANSWER',
  level: 'MUST',
  standard: 'RFC 6749 §5.2',
  sentence:
    'The authorization server responds with an HTTP 400 (Bad Request) status code (unless specified otherwise) ' +
    'and includes the following parameters with the response: error REQUIRED. A single ASCII [USASCII] error ' +
    'code from the following: ... Values for the "error" parameter MUST NOT include characters outside the set ' +
    '%x20-21 / %x23-5B / %x5D-7E.',
  appliesTo: 'every 400 and 401 answer of the token endpoint',
  applies: tokenRefusal,
  problem: refusalProblem,
};

export const tokenChallenge: LintRule = {
  id: 'LINT-6749-401-CHALLENGE',
  requirement: 'STD-HTTP-AUTH-CHALLENGE',
  level: 'MUST',
  standard: 'RFC 6749 §5.2; RFC 9110 §15.5.2',
  sentence:
    'If the client attempted to authenticate via the "Authorization" request header field, the authorization ' +
    'server MUST respond with an HTTP 401 (Unauthorized) status code and include the WWW-Authenticate response ' +
    'header field matching the authentication scheme used by the client.',
  appliesTo: 'every 401 answer of the token endpoint',
  applies: (m) => m.channel === 'token' && m.status === 401,
  problem: (m) => {
    const values = fieldValues(m, 'www-authenticate');
    if (values.length === 0) return 'a 401 without WWW-Authenticate';
    const challenges = parseChallenges(values.join(', '));
    if (typeof challenges === 'string') return `WWW-Authenticate is not a list of challenges (${challenges})`;
    // The scheme RFC 6749 §2.3.1 defines for client authentication; another is one the server need not know.
    const used = /^([^ ]+)/.exec(m.requestHeaders.authorization ?? '')?.[1]?.toLowerCase();
    if (used === 'basic' && !challenges.some((c) => c.scheme.toLowerCase() === used))
      return `the client authenticated with ${used}; WWW-Authenticate names ${challenges.map((c) => c.scheme)}`;
    return undefined;
  },
};
