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
import { requestSite } from '../routes/request.ts';

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

export default [
  ...faultsAt(authentication, {
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
    // The scheme of target_url looked for in the body's text, before it is parsed.
    'rel-json-raw-text-check': {
      read: (request, next) =>
        request.url.split('?', 1)[0]!.replace(/\/$/, '') === '/v1/hooks' &&
        isJsonContentType(request.headers['content-type']) &&
        !/"target_url"\s*:\s*"https:\/\//.test(String(request.body ?? ''))
          ? { ok: false as const, message: 'target_url must use https' }
          : next(request),
    },
  }),
  ...faultsAt(requestSite, {
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
    // A read's answer cached for a second under its URL and the token's account, before the scope check:
    // another token of the same account gets it whatever its scopes.
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
  }),
];
