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
 *   401 invalid_client           no / unknown / wrong client credentials (WWW-Authenticate: Basic when
 *                                Basic was used or no authentication was given)
 *   400 unsupported_grant_type   grant_type other than client_credentials
 *   400 invalid_scope            a scope the client isn't registered for, or an empty scope
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
import { scopes as allScopes } from '../contract/openapi.ts';
import type { ReferenceStore } from './store.ts';

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function oauthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
  basicChallenge = false,
): FastifyReply {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  if (basicChallenge) reply.header('www-authenticate', 'Basic realm="oauth", charset="UTF-8"');
  return reply.code(status).send({ error, error_description: description });
}

function decodeBasic(header: string): { id: string; secret: string } | undefined {
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

export function registerOAuth(
  app: FastifyInstance,
  store: ReferenceStore,
  options: { authUrl: () => string; tokenLifetimeSeconds: number },
): void {
  app.get('/.well-known/oauth-authorization-server', (_request, reply) => {
    const issuer = options.authUrl();
    return reply.send({
      issuer,
      // oauth-metadata-token-endpoint-elsewhere: a framework's default path, not the one served.
      token_endpoint: store.faults.has('oauth-metadata-token-endpoint-elsewhere')
        ? `${issuer}/token`
        : `${issuer}/oauth/token`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: store.variants.has('oauth-basic-only')
        ? ['client_secret_basic']
        : ['client_secret_basic', 'client_secret_post'],
      scopes_supported: allScopes,
      response_types_supported: [],
    });
  });

  app.post('/oauth/token', (request, reply) => {
    const type = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') {
      return oauthError(reply, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    const params = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
    const seen = new Set<string>();
    for (const key of params.keys()) {
      if (seen.has(key)) return oauthError(reply, 400, 'invalid_request', `parameter ${key} is repeated`);
      seen.add(key);
    }
    const authorization = request.headers.authorization;
    const bodyId = params.get('client_id');
    const bodySecret = params.get('client_secret');
    const usedBasic = authorization !== undefined;
    if (usedBasic && (bodyId !== null || bodySecret !== null)) {
      return oauthError(reply, 400, 'invalid_request', 'use one client authentication method, not both');
    }
    let credentials: { id: string; secret: string } | undefined;
    if (usedBasic) credentials = decodeBasic(authorization);
    // oauth-basic-only (a conformant variant): body credentials are not a method this server has.
    else if (bodyId !== null && bodySecret !== null && !store.variants.has('oauth-basic-only'))
      credentials = { id: bodyId, secret: bodySecret };
    const client = store.state.oauthClient;
    const clientOk =
      credentials !== undefined &&
      safeEqual(credentials.id, client.clientId) &&
      (safeEqual(credentials.secret, client.clientSecret) || store.faults.has('oauth-bad-secret-accepted'));
    if (!clientOk)
      return oauthError(reply, 401, 'invalid_client', 'client authentication failed', usedBasic || bodyId === null);

    const grant = params.get('grant_type');
    if (grant === null || grant === '') return oauthError(reply, 400, 'invalid_request', 'grant_type is required');
    if (grant !== 'client_credentials')
      return oauthError(reply, 400, 'unsupported_grant_type', 'only client_credentials is supported');

    let granted: readonly string[] = client.scopes;
    let minted = granted;
    let sayScope = true;
    const scopeParam = params.get('scope');
    if (scopeParam !== null) {
      const asked = [...new Set(scopeParam.split(' ').filter((s) => s !== ''))];
      if (asked.length === 0) return oauthError(reply, 400, 'invalid_scope', 'scope is empty');
      // oauth-token-widened: a requested scope is checked against every scope the service knows,
      // not against the client's registration.
      const allowed = store.faults.has('oauth-token-widened') ? allScopes : client.scopes;
      const registeredAsked = asked.filter((s) => client.scopes.includes(s));
      if (store.variants.has('oauth-scope-narrowed') || store.faults.has('oauth-narrowed-answer-wide-token')) {
        // RFC 6749 §3.3: the request narrowed to the registration, said in `scope`.
        if (registeredAsked.length === 0)
          return oauthError(reply, 400, 'invalid_scope', `scope not allowed for this client: ${asked.join(' ')}`);
        granted = registeredAsked;
        // oauth-narrowed-answer-wide-token: the answer is built from the narrowed list, the token
        // from the request as it came (every scope the service knows).
        minted = store.faults.has('oauth-narrowed-answer-wide-token')
          ? asked.filter((s) => allScopes.includes(s))
          : granted;
      } else {
        const unknown = asked.filter((s) => !allowed.includes(s));
        if (unknown.length > 0)
          return oauthError(reply, 400, 'invalid_scope', `scope not allowed for this client: ${unknown.join(' ')}`);
        granted = minted = asked;
      }
      // RFC 6749 §5.1: scope is optional when it is exactly the one requested.
      sayScope = !(store.variants.has('oauth-scope-narrowed') && granted.length === asked.length);
    }
    const lifetime = options.tokenLifetimeSeconds;
    const token = store.mintToken(
      client.account,
      minted,
      'oauth',
      `oauth:${client.clientId}`,
      store.tokenNow() + lifetime * 1000,
    );
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    return reply.send({
      access_token: token,
      token_type: 'Bearer',
      expires_in: lifetime,
      ...(sayScope ? { scope: granted.join(' ') } : {}),
    });
  });
}
