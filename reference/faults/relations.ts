/**
 * Faults of the standards' relations, ambiguity and principals (docs/relations.md): each breaks one
 * rule a standard states and the spec's own sentences do not, so only the relation checks
 * (suites/equivalences.suite.ts, ambiguity.suite.ts, principals.suite.ts) catch it. ../faults.ts
 * describes each.
 */
import type { FastifyRequest } from 'fastify';
import { isJsonContentType } from '../http.ts';
import { faultsAt } from '../points.ts';
import { authentication } from '../routes/authentication.ts';
import { jsonBody } from '../routes/json-body.ts';
import { oauth } from '../routes/oauth.ts';
import { getCdrs } from '../routes/cdrs.ts';
import { authorizationLines, requestSite } from '../routes/request.ts';

/** An unreserved character percent-encoded (RFC 3986 §2.3): ALPHA, DIGIT, "-", ".", "_", "~". */
const ENCODED_UNRESERVED = /%(?:3[0-9]|4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|2D|2E|5F|7E)/i;

/** The path and the query of a URL as received. */
const split = (url: string): [string, string] => {
  const at = url.indexOf('?');
  return at < 0 ? [url, ''] : [url.slice(0, at), url.slice(at)];
};

/** The Authorization line whose name is written exactly `Authorization` or `authorization`. */
function exactAuthorization(request: FastifyRequest): string | undefined {
  const raw = request.raw.rawHeaders;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i] === 'Authorization' || raw[i] === 'authorization') return raw[i + 1];
  return undefined;
}

/** The top-level member names a JSON text gives more than once (a shallow scan of its text). */
export function repeatedMembers(text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.keys(value).filter(
    (name) =>
      (text.match(new RegExp(`${JSON.stringify(name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:`, 'g')) ?? [])
        .length > 1,
  );
}

/**
 * What one request's repeated `limit` left for the next point of the same (synchronous) handler: the
 * value validated is the first, the one the query uses the last.
 */
let lastLimit: string | undefined;
/** The scopes of a request's first Authorization line, for the scope check of the same handler. */
let firstLineScopes: ReadonlySet<string> | undefined;

export default [
  ...faultsAt(authentication, {
    // A gateway checks the first Authorization line's scopes; the service serves the last line's account.
    'ambig-authorization-scopes-of-first-line': {
      authorization: (request, next) => {
        const lines = authorizationLines(request);
        firstLineScopes = lines.length > 1 ? lines[0]!.scopes : undefined;
        return lines.length > 1 ? lines.at(-1)!.line : next(request);
      },
      lacksScope: (asked, next) => {
        const scopes = firstLineScopes;
        firstLineScopes = undefined;
        return next(scopes === undefined ? asked : { ...asked, token: { ...asked.token, scopes } });
      },
    },
    'rel-auth-scheme-case-sensitive': { bearer: (header) => /^Bearer +(\S+) *$/.exec(header)?.[1] },
    // The classic split on one space: "Bearer  t" gives ["Bearer", "", "t"].
    'rel-auth-split-one-space': {
      bearer: (header) => {
        const [scheme, token] = header.split(' ');
        return scheme?.toLowerCase() === 'bearer' && token !== undefined && token !== '' ? token : undefined;
      },
    },
    'rel-authorization-name-exact': { authorization: (request) => exactAuthorization(request) },
  }),
  ...faultsAt(jsonBody, {
    'rel-media-type-case-sensitive': {
      read: (request, next) =>
        (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim() === 'application/json'
          ? next(request)
          : { ok: false as const, message: 'the body must be sent with Content-Type: application/json' },
    },
    // A strict parser refuses a repeated member with an answer the contract does not document.
    'ambig-json-duplicate-422': {
      read: (request, next) => {
        const repeated = isJsonContentType(request.headers['content-type'])
          ? repeatedMembers(String(request.body ?? ''))
          : [];
        return repeated.length === 0
          ? next(request)
          : {
              ok: false as const,
              answer: { status: 422, body: { error: 'duplicate_member', message: `${repeated[0]} given twice` } },
            };
      },
    },
    // The scheme of target_url looked for in the body's text, before it is parsed.
    'rel-json-raw-text-check': {
      read: (request, next) =>
        request.url.split('?', 1)[0]!.replace(/\/$/, '') === '/v1/hooks' &&
        isJsonContentType(request.headers['content-type']) &&
        !/"target_url"\s*:\s*"https:\/\//i.test(String(request.body ?? ''))
          ? { ok: false as const, message: 'target_url must use https' }
          : next(request),
    },
  }),
  ...faultsAt(requestSite, {
    // A guard that reads the raw request-target and expects a "/": a whole URL finds no route.
    'std-absolute-form-404': {
      url: (input, next) => (input.url.startsWith('/') ? next(input) : '/v1/_absolute-form'),
    },
    // Content negotiation by exact match: an Accept that does not name application/json is 406.
    'rel-accept-exact-match-406': {
      acceptable: (input, next) =>
        !input.url.startsWith('/v1/') ||
        input.accept === undefined ||
        input.accept.split(',').some((range) => range.split(';', 1)[0]!.trim().toLowerCase() === 'application/json')
          ? next(input)
          : false,
    },
    // An optimistic-concurrency layer in front of authentication: an If-Match on a write that names no
    // current entity tag is 412 before any token is read.
    'rel-if-match-412-before-auth': {
      precondition: (input, next) =>
        input.method !== 'GET' && input.method !== 'HEAD' && input.headers['if-match'] !== undefined
          ? 412
          : next(input),
    },
    // A router matching the path as received: /v1/%6De is no route.
    'rel-path-matched-undecoded': {
      url: (input, next) => {
        const [path, query] = split(next(input));
        return ENCODED_UNRESERVED.test(path) ? `/v1/_undecoded${path}${query}` : `${path}${query}`;
      },
    },
    // The path decoded whole before routing: /v1/me%3F becomes /v1/me? and /v1/me%2F becomes /v1/me/.
    'rel-reserved-decoded-before-routing': {
      url: (input, next) => {
        const [path, query] = split(next(input));
        if (!/%(?:2F|3F)/i.test(path)) return `${path}${query}`;
        try {
          return `${decodeURIComponent(path)}${query}`;
        } catch {
          return `${path}${query}`;
        }
      },
    },
    // Reads coalesced for 5 ms under their URL and the token's account (authenticated, before the
    // scope check): another token of the same account asking at the same moment gets the same answer.
    'principals-cache-keyed-by-account': {
      sharedAnswer: ({ method, url, account }) =>
        method === 'GET' && url.startsWith('/v1/') && account !== undefined ? `${account} ${url}` : undefined,
    },
    // Only the declared methods routed: HEAD finds no route (404).
    'rel-head-not-routed': {
      url: (input, next) =>
        input.method === 'HEAD' && input.url.startsWith('/v1/') ? `/v1/_head${next(input)}` : next(input),
    },
  }),
  ...faultsAt(oauth, {
    // `scope=` read as asking for no scope at all.
    'rel-oauth-empty-scope-refused': { omitted: (value) => value === null },
    // Body credentials read first: the Authorization header is not looked at when the body has them.
    'ambig-oauth-body-credentials-win': { bothMethods: ({ body }) => body },
    // URLSearchParams.get: a repeated parameter's first value, no refusal.
    'ambig-oauth-repeated-first-wins': { repeatedRefused: () => false },
  }),
  ...faultsAt(getCdrs, {
    // The validator reads the first of a repeated limit, the query builder the last, unclamped.
    'ambig-query-first-validated-last-used': {
      query: (input, next) => {
        if (input.name !== 'limit' || !Array.isArray(input.value)) return next(input);
        lastLimit = String(input.value.at(-1));
        return String(input.value[0]);
      },
      limit: (raw, next) => {
        const last = lastLimit;
        lastLimit = undefined;
        const validated = next(raw);
        return last !== undefined && /^[0-9]+$/.test(last) ? Number(last) : validated;
      },
    },
    // `limit=` read as the number 0, and 0 as "no limit".
    'ambig-empty-limit-unbounded': { limit: (raw, next) => (raw === '' ? Number.POSITIVE_INFINITY : next(raw)) },
  }),
];
