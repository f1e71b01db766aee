/**
 * Authentication, the first step of every /v1 operation (spec: Authentication): the bearer token
 * of `Authorization: Bearer <token>` must be a known token, not revoked, not expired, and hold the
 * operation's scope (openapi.json); otherwise 401 unauthorized, before any parameter or body is
 * looked at.
 *
 * Decisions where the spec is silent (OBSERVE requirements of the catalogue):
 * - the scheme is matched case-insensitively (`Bearer`/`bearer`, RFC 7235);
 * - a token's last-used time is stamped whenever it authenticates (known, not revoked, not
 *   expired), even when it then lacks the scope.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { operations } from '../../contract/openapi.ts';
import type { OperationKey } from '../../contract/openapi.ts';
import { sendError } from '../http.ts';
import { site } from '../points.ts';
import type { TokenRecord } from '../seed.ts';
import type { RouteOptions } from './options.ts';

const BEARER = /^bearer +([^\s]+) *$/i;

const scopeOf = new Map<OperationKey, string | undefined>(operations.map((o) => [o.key, o.scope]));

/** The scope `operation` requires (openapi.json); undefined for GET /me, which takes any valid token. */
export function requiredScope(operation: OperationKey): string | undefined {
  if (!scopeOf.has(operation)) throw new Error(`openapi.json has no operation ${operation}`);
  return scopeOf.get(operation);
}

export const authentication = site('authentication', {
  /** The Authorization header: the one place a token is read from. */
  authorization: (request: FastifyRequest): string | undefined => request.headers.authorization,
  /** The token of `Bearer <token>`; undefined for any other scheme. */
  bearer: (header: string): string | undefined => BEARER.exec(header)?.[1],
  /** The token's record: the presented string, compared as issued. */
  lookup: ({ presented, tokens }: { presented: string; tokens: ReadonlyMap<string, TokenRecord> }) =>
    tokens.get(presented),
  /** A revoked token is refused from the very next request. */
  revoked: (token: TokenRecord): boolean => token.revoked,
  expired: ({ token, now }: { token: TokenRecord; now: number }): boolean =>
    token.expiresAt !== undefined && token.expiresAt <= now,
  /** Why the token may not call the operation (the scope it lacks); undefined when it may. */
  lacksScope: ({ token, operation }: { token: TokenRecord; operation: OperationKey }): string | undefined => {
    const scope = requiredScope(operation);
    return scope === undefined || token.scopes.has(scope) ? undefined : `the token lacks the ${scope} scope`;
  },
  /** A request refused for its scope still used the token: its last-used time is stamped. */
  scopeRefusalIsUse: (): boolean => true,
  /**
   * The WWW-Authenticate of a 401 (RFC 9110 §15.5.2, RFC 6750 §3): a Bearer challenge, with no
   * error code when the request carried no Bearer credentials (§3.1: SHOULD NOT), invalid_token
   * for a token it cannot use, insufficient_scope (and the scope) for one lacking the scope.
   */
  challenge: ({ presented, scope }: { presented: boolean; scope?: string | undefined }): string => {
    if (!presented) return 'Bearer realm="api"';
    if (scope !== undefined) return `Bearer realm="api", error="insufficient_scope", scope="${scope}"`;
    return 'Bearer realm="api", error="invalid_token"';
  },
});

/** The token's record when it may call `operation`; otherwise sends 401 and returns undefined. */
export function authenticate(
  request: FastifyRequest,
  reply: FastifyReply,
  operation: OperationKey,
  { store, points }: RouteOptions,
): TokenRecord | undefined {
  const at = points.of(authentication);
  const refuse = (
    message: string,
    challenge: { presented: boolean; scope?: string } = { presented: true },
  ): undefined => {
    reply.header('www-authenticate', at.challenge(challenge));
    sendError(reply, points, 401, 'unauthorized', message);
    return undefined;
  };
  const header = at.authorization(request);
  const none = { presented: false };
  if (header === undefined) return refuse('missing Authorization header; send Authorization: Bearer <token>', none);
  const presented = at.bearer(header);
  if (presented === undefined) return refuse('the Authorization header must be Bearer <token>', none);
  const token = at.lookup({ presented, tokens: store.state.tokens });
  if (token === undefined) return refuse('unknown token');
  if (at.revoked(token)) return refuse('the token has been revoked');
  const now = store.tokenNow();
  if (at.expired({ token, now })) return refuse('the token has expired');
  const lacking = at.lacksScope({ token, operation });
  if (lacking === undefined || at.scopeRefusalIsUse()) token.lastUsedAt = now;
  if (lacking !== undefined) return refuse(lacking, { presented: true, scope: requiredScope(operation) });
  return token;
}
