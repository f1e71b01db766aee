/**
 * OAuth 2.0 for the reference server, on the auth host ({auth_url} = the server's origin):
 *
 *   POST {auth_url}/oauth/token                          client_credentials grant (RFC 6749 §4.4)
 *   GET  {auth_url}/.well-known/oauth-authorization-server   metadata (RFC 8414)
 *
 * Token request: application/x-www-form-urlencoded; client authentication by HTTP Basic
 * (client_secret_basic, RFC 6749 §2.3.1, form-urlencoded id and secret) OR by body
 * client_id/client_secret (client_secret_post), never both; optional `scope`, a space-separated
 * subset of the client's scopes (absent = all of them). Errors are RFC 6749 §5.2 JSON:
 *   400 invalid_request          wrong content type, repeated parameter, missing grant_type, two auth methods
 *   401 invalid_client           no / unknown / wrong client credentials (WWW-Authenticate: Basic, as
 *                                every 401 names a scheme: RFC 9110 §15.5.2)
 *   400 unsupported_grant_type   grant_type other than client_credentials
 *   400 invalid_scope            a scope the client isn't registered for, or a scope of spaces only
 *                                (a parameter sent without a value is omitted, RFC 6749 §3.1: `scope=`
 *                                asks for every scope of the client)
 *                                (variant oauth-scope-narrowed: the request narrowed to the
 *                                registration instead, refused only when nothing of it remains)
 * Checks run in that order (request shape, client, grant, scope). Success: 200
 * {access_token, token_type: 'Bearer', expires_in, scope} (variant oauth-scope-narrowed: no scope
 * when it is exactly the one requested) with Cache-Control: no-store and
 * Pragma: no-cache. Tokens are opaque (`oc_at_` + 32 base64url chars) and expire after
 * tokenLifetimeSeconds on the virtual clock. These routes are exempt from the /v1 rate limit.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { scopes as allScopes } from '../../contract/openapi.ts';
import { site } from '../points.ts';
import type { RouteOptions } from './options.ts';

/** The token request parameters the endpoint knows (RFC 6749 §4.4.2, §2.3.1, §3.3). */
const TOKEN_PARAMETERS = new Set(['grant_type', 'scope', 'client_id', 'client_secret']);

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function oauthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  // Every 401 names the scheme the client may authenticate with (RFC 9110 §15.5.2; RFC 6749 §5.2).
  if (status === 401) reply.header('www-authenticate', 'Basic realm="oauth", charset="UTF-8"');
  return reply.code(status).send({ error, error_description: description });
}

/** A client's id and secret as a request gave them. */
export interface Credentials {
  readonly id: string;
  readonly secret: string;
}

function decodeBasic(header: string): Credentials | undefined {
  const m = /^basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const form = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: form(decoded.slice(0, colon)), secret: form(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** A token request's scopes: those it asks for, and those the client is registered for. */
export interface ScopeRequest {
  readonly asked: readonly string[];
  readonly registered: readonly string[];
}

/** What a token request is granted: the scopes the answer names, those of the token, whether `scope` is said. */
export type Grant =
  | { readonly granted: readonly string[]; readonly minted: readonly string[]; readonly sayScope: boolean }
  | { readonly invalidScope: string };

export const oauth = site('OAuth', {
  /** The client authentication methods of the token endpoint: HTTP Basic, or the body's id and secret. */
  authMethods: (): readonly string[] => ['client_secret_basic', 'client_secret_post'],
  /** The metadata of RFC 8414 at {auth_url}/.well-known/oauth-authorization-server. */
  metadata: ({ issuer, authMethods }: { issuer: string; authMethods: readonly string[] }): Record<string, unknown> => ({
    issuer,
    token_endpoint: `${issuer}/oauth/token`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: authMethods,
    scopes_supported: allScopes,
    response_types_supported: [],
  }),
  /** The metadata's media type (RFC 8414 §3.2: "a JSON object using the "application/json" content type"). */
  metadataMediaType: (): string => 'application/json; charset=utf-8',
  /** A token request parameter the endpoint does not know is ignored (RFC 6749 §3.2); true: refused. */
  unknownRefused: (_name: string): boolean => false,
  secretMatches: ({ given, registered }: { given: string; registered: string }): boolean =>
    safeEqual(given, registered),
  /** A scope asked for beyond the client's registration is refused with invalid_scope; otherwise granted as asked. */
  /** How long a token minted lives, in ms of the token clock: the seconds its answer states (RFC 6749 §5.1). */
  lifetimeMs: ({ statedSeconds }: { statedSeconds: number }): number => statedSeconds * 1000,
  /** The Cache-Control of an answer holding a token: no-store (RFC 6749 §5.1). */
  tokenCacheControl: (): string => 'no-store',
  /**
   * A parameter the request did not give: absent, or sent without a value (RFC 6749 §3.1: "Parameters
   * sent without a value MUST be treated as if they were omitted from the request").
   */
  omitted: (value: string | null): boolean => value === null || value === '',
  /**
   * The credentials a request authenticating the client two ways is read with; undefined: refused 400
   * invalid_request (RFC 6749 §2.3: "The client MUST NOT use more than one authentication method").
   */
  bothMethods: (_given: { basic: Credentials | undefined; body: Credentials }): Credentials | undefined => undefined,
  /** A parameter given more than once is refused (RFC 6749 §3.1: "MUST NOT be included more than once"). */
  repeatedRefused: (_name: string): boolean => true,
  grant: ({ asked, registered }: ScopeRequest): Grant => {
    const unknown = asked.filter((s) => !registered.includes(s));
    if (unknown.length > 0) return { invalidScope: `scope not allowed for this client: ${unknown.join(' ')}` };
    return { granted: asked, minted: asked, sayScope: true };
  },
});

export async function oauthRoute(
  app: FastifyInstance,
  { store, points, origin, tokenLifetimeSeconds }: RouteOptions & { tokenLifetimeSeconds: number },
): Promise<void> {
  app.get('/.well-known/oauth-authorization-server', (_request, reply) => {
    const at = points.of(oauth);
    reply.type(at.metadataMediaType());
    return reply.send(JSON.stringify(at.metadata({ issuer: origin(), authMethods: at.authMethods() })));
  });

  app.post('/oauth/token', (request, reply) => {
    const at = points.of(oauth);
    const type = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') {
      return oauthError(reply, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    const params = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
    const seen = new Set<string>();
    for (const key of params.keys()) {
      if (seen.has(key) && at.repeatedRefused(key))
        return oauthError(reply, 400, 'invalid_request', `parameter ${key} is repeated`);
      seen.add(key);
    }
    const unknown = [...seen].find((key) => !TOKEN_PARAMETERS.has(key) && at.unknownRefused(key));
    if (unknown !== undefined) return oauthError(reply, 400, 'invalid_request', `unknown parameter ${unknown}`);
    const param = (name: string): string | null => (at.omitted(params.get(name)) ? null : params.get(name));
    const authorization = request.headers.authorization;
    const bodyId = param('client_id');
    const bodySecret = param('client_secret');
    const usedBasic = authorization !== undefined;
    let credentials: Credentials | undefined;
    if (usedBasic && (bodyId !== null || bodySecret !== null)) {
      credentials = at.bothMethods({
        basic: decodeBasic(authorization),
        body: { id: bodyId ?? '', secret: bodySecret ?? '' },
      });
      if (credentials === undefined)
        return oauthError(reply, 400, 'invalid_request', 'use one client authentication method, not both');
    } else if (usedBasic) credentials = decodeBasic(authorization);
    else if (bodyId !== null && bodySecret !== null && at.authMethods().includes('client_secret_post'))
      credentials = { id: bodyId, secret: bodySecret };
    const client = store.state.oauthClient;
    const clientOk =
      credentials !== undefined &&
      safeEqual(credentials.id, client.clientId) &&
      at.secretMatches({ given: credentials.secret, registered: client.clientSecret });
    if (!clientOk) return oauthError(reply, 401, 'invalid_client', 'client authentication failed');

    const grantType = param('grant_type');
    if (grantType === null) return oauthError(reply, 400, 'invalid_request', 'grant_type is required');
    if (grantType !== 'client_credentials')
      return oauthError(reply, 400, 'unsupported_grant_type', 'only client_credentials is supported');

    let grant: Grant = { granted: client.scopes, minted: client.scopes, sayScope: true };
    const scopeParam = param('scope');
    if (scopeParam !== null) {
      const asked = [...new Set(scopeParam.split(' ').filter((s) => s !== ''))];
      if (asked.length === 0) return oauthError(reply, 400, 'invalid_scope', 'scope is empty');
      grant = at.grant({ asked, registered: client.scopes });
    }
    if ('invalidScope' in grant) return oauthError(reply, 400, 'invalid_scope', grant.invalidScope);
    const token = store.mintToken(
      client.account,
      grant.minted,
      'oauth',
      `oauth:${client.clientId}`,
      store.tokenNow() + at.lifetimeMs({ statedSeconds: tokenLifetimeSeconds }),
    );
    reply.header('cache-control', at.tokenCacheControl()).header('pragma', 'no-cache');
    return reply.send({
      access_token: token,
      token_type: 'Bearer',
      expires_in: tokenLifetimeSeconds,
      ...(grant.sayScope ? { scope: grant.granted.join(' ') } : {}),
    });
  });
}
