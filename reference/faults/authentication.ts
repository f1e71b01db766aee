/** Faults of authentication, the first step of every /v1 operation (../routes/authentication.ts). */
import type { FastifyRequest } from 'fastify';
import type { OperationKey } from '../../contract/openapi.ts';
import { faultsAt, type Overrides } from '../points.ts';
import { authentication, requiredScope } from '../routes/authentication.ts';

type At = typeof authentication.defaults;

/** The scope check skipped for these operations. */
const scopeUnchecked = (...unchecked: OperationKey[]): Overrides<At> => ({
  lacksScope: (asked, next) => (unchecked.includes(asked.operation) ? undefined : next(asked)),
});

/** Without an Authorization header, a token the request carries elsewhere is taken as its bearer token. */
const tokenElsewhere = (find: (request: FastifyRequest) => string | undefined): Overrides<At> => ({
  authorization: (request, next) => {
    const header = next(request);
    if (header !== undefined) return header;
    const token = find(request);
    return token === undefined ? undefined : `Bearer ${token}`;
  },
});

/** The first record whose token `matches` the presented one, as a query with a loose comparison finds it. */
const looseLookup = (matches: (stored: string, presented: string) => boolean): Overrides<At> => ({
  lookup: ({ presented, tokens }) => [...tokens].find(([stored]) => matches(stored, presented))?.[1],
});

export default faultsAt(authentication, {
  // A case-insensitive collation on the token column (MySQL's *_ci default).
  'nm-token-case-insensitive': looseLookup((stored, presented) => stored.toLowerCase() === presented.toLowerCase()),
  // WHERE token LIKE '<presented>%': a token one character short still finds its record.
  'nm-token-prefix-match': looseLookup((stored, presented) => presented.length >= 16 && stored.startsWith(presented)),
  'scope-unchecked-balance': scopeUnchecked('GET /balance'),
  'scope-unchecked-cdrs': scopeUnchecked('GET /cdrs'),
  'scope-unchecked-agents': scopeUnchecked('GET /agents'),
  'scope-unchecked-calls': scopeUnchecked('POST /calls'),
  'scope-unchecked-hooks': scopeUnchecked('POST /hooks', 'DELETE /hooks/{id}'),
  // A copy-pasted line of the scope table: GET /agents takes read:cdrs too.
  'scope-table-copy-paste': {
    lacksScope: (asked, next) =>
      asked.operation === 'GET /agents' && asked.token.scopes.has('read:cdrs') ? undefined : next(asked),
  },
  'me-scope-required': {
    lacksScope: (asked, next) =>
      next(asked) ??
      (requiredScope(asked.operation) === undefined && asked.token.scopes.size === 0
        ? 'the token has no scopes'
        : undefined),
  },
  'revoked-token-accepted': { revoked: () => false },
  'expired-token-accepted': { expired: () => false },
  'auth-any-scheme-accepted': { bearer: (header) => /^[^\s]+ +([^\s]+) *$/.exec(header)?.[1] },
  'nm-token-scheme-accepted': { bearer: (header) => /^(?:bearer|token) +([^\s]+) *$/i.exec(header)?.[1] },
  'nm-token-in-query': tokenElsewhere((request) => {
    const token = (request.query as Record<string, unknown> | undefined)?.access_token;
    return typeof token === 'string' ? token : undefined;
  }),
  'nm-token-in-cookie': tokenElsewhere(
    (request) => /(?:^|;\s*)access_token=([^;\s]+)/.exec(request.headers.cookie ?? '')?.[1],
  ),
  'nm-token-x-api-key': tokenElsewhere((request) => {
    const key = request.headers['x-api-key'];
    return typeof key === 'string' ? key : undefined;
  }),
});
