/** The rules of oauth.suite.ts that need no target: pure, so test/suites/oauth.test.ts can hold them. */

/** Problems of RFC 8414 metadata served for `authUrl`; empty when it is right. */
export function discoveryProblems(metadata: unknown, authUrl: string): string[] {
  if (metadata === null || typeof metadata !== 'object') return ['the metadata is not a JSON object'];
  const m = metadata as Record<string, unknown>;
  const base = authUrl.replace(/\/+$/, '');
  const problems: string[] = [];
  if (typeof m.issuer !== 'string' || m.issuer.replace(/\/+$/, '') !== base) {
    problems.push(`issuer is ${JSON.stringify(m.issuer)}, must be the auth URL ${base} (RFC 8414 §3.3)`);
  }
  if (typeof m.token_endpoint !== 'string' || !m.token_endpoint.startsWith(`${base}/`)) {
    problems.push(`token_endpoint is ${JSON.stringify(m.token_endpoint)}, must be under ${base}`);
  }
  if (!Array.isArray(m.grant_types_supported) || !m.grant_types_supported.includes('client_credentials')) {
    problems.push(
      `grant_types_supported is ${JSON.stringify(m.grant_types_supported)}, must include client_credentials`,
    );
  }
  return problems;
}

/**
 * The client authentication methods the metadata advertises. RFC 8414 §2: when
 * token_endpoint_auth_methods_supported is omitted the default is client_secret_basic.
 */
export function advertisedAuthMethods(metadata: unknown): string[] {
  const methods = (metadata as { token_endpoint_auth_methods_supported?: unknown } | null)
    ?.token_endpoint_auth_methods_supported;
  return Array.isArray(methods) ? methods.filter((m): m is string => typeof m === 'string') : ['client_secret_basic'];
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * A URL in the form RFC 3986 §6.2.2 makes equivalent: scheme and host in lower case, the default
 * port left out, dot segments removed (WHATWG URL parsing does these), percent-encoded unreserved
 * characters decoded and the other escapes in upper case; undefined when it is not a URL.
 */
export function normalisedUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const escapes = (s: string) =>
    s.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
      const char = String.fromCharCode(Number.parseInt(hex, 16));
      return UNRESERVED.test(char) ? char : encoded.toUpperCase();
    });
  return `${url.protocol}//${url.host}${escapes(url.pathname)}${escapes(url.search)}${escapes(url.hash)}`;
}

/** Where the spec says tokens are obtained: {auth_url}/oauth/token. */
export function documentedTokenEndpoint(authUrl: string): string {
  return `${authUrl.replace(/\/+$/, '')}/oauth/token`;
}

/**
 * What is wrong with the metadata's token_endpoint against the spec's {auth_url}/oauth/token;
 * undefined when it names that URL (in any form RFC 3986 §6.2.2 makes equivalent). A trailing
 * slash, a query or another path names another resource.
 */
export function tokenEndpointProblem(metadata: unknown, authUrl: string): string | undefined {
  const endpoint = (metadata as { token_endpoint?: unknown } | null)?.token_endpoint;
  const documented = documentedTokenEndpoint(authUrl);
  if (typeof endpoint === 'string' && normalisedUrl(endpoint) === normalisedUrl(documented)) return undefined;
  return (
    `token_endpoint is ${JSON.stringify(endpoint)}, but the spec obtains tokens from {auth_url}/oauth/token, ` +
    `${documented}`
  );
}

/** The scope tokens of an RFC 6749 §3.3 scope string (space-delimited, case-sensitive), deduplicated. */
export function scopeTokens(scope: string): string[] {
  return [...new Set(scope.split(' ').filter((s) => s !== ''))];
}

/**
 * The scope a token answer grants (RFC 6749 §5.1): its `scope`, or, where `scope` is omitted,
 * exactly the scope requested ("OPTIONAL, if identical to the scope requested by the client;
 * otherwise, REQUIRED"). A `scope` that is not a string is a problem: RFC 6749 §3.3 writes it as one.
 */
export function grantedScope(
  scope: unknown,
  requested: readonly string[],
): { readonly scopes: readonly string[]; readonly said: boolean } | { readonly problem: string } {
  if (scope === undefined) return { scopes: [...requested], said: false };
  if (typeof scope !== 'string')
    return { problem: `scope is ${JSON.stringify(scope)}, not a space-delimited string (RFC 6749 §3.3)` };
  return { scopes: scopeTokens(scope), said: true };
}

/**
 * What a grant that asked for `requested` (more than `registered`) carries beyond the
 * registration, as a sentence; undefined when it carries nothing more (RFC 6749 §3.3: the server
 * may narrow the request, and must then say so in `scope`).
 */
export function wideningProblem(
  scope: unknown,
  requested: readonly string[],
  registered: readonly string[],
): string | undefined {
  const granted = grantedScope(scope, requested);
  if ('problem' in granted) return `the token answer says nothing readable about what it grants: ${granted.problem}`;
  const beyond = granted.scopes.filter((s) => !registered.includes(s));
  if (beyond.length === 0) return undefined;
  const asked = `a grant asking for "${requested.join(' ')}" (registered: "${registered.join(' ')}")`;
  return granted.said
    ? `${asked} issued a token with scope "${granted.scopes.join(' ')}": ${beyond.join(', ')} beyond the registration`
    : `${asked} issued a token without \`scope\`, which RFC 6749 §5.1 allows only when it grants exactly the ` +
        `request: it declares ${beyond.join(', ')} granted beyond the registration (a narrowed grant must say so)`;
}

/** The order in which an operation is chosen to show what a token exercises: reads first, then the harmless writes. */
const probeOrder: readonly string[] = ['GET', 'DELETE', 'POST'];

/**
 * The grant that asks for more than `registered`: the registered scopes and every scope of the
 * spec beyond them; and the operation (one the spec documents, needing one of those scopes) whose
 * answer shows whether the token exercises more. `beyond` is empty when the registration holds
 * every scope; `operation` is undefined when no documented operation needs a scope beyond it.
 */
export function wideningPlan<Op extends { readonly method: string; readonly scope: string | undefined }>(
  registered: readonly string[],
  allScopes: readonly string[],
  operations: readonly Op[],
): { readonly request: readonly string[]; readonly beyond: readonly string[]; readonly operation: Op | undefined } {
  const beyond = allScopes.filter((s) => !registered.includes(s));
  const candidates = operations.filter((op) => op.scope !== undefined && beyond.includes(op.scope));
  const operation = [...candidates].sort((a, b) => probeOrder.indexOf(a.method) - probeOrder.indexOf(b.method))[0];
  return { request: [...registered, ...beyond], beyond, operation };
}

/**
 * RFC 6749 §5.1 (OAuth 2.0, which the spec names): "The authorization server MUST include the HTTP
 * "Cache-Control" response header field with a value of "no-store" in any response containing
 * tokens". Directives compare case-insensitively (RFC 9111 §5.2). undefined when it holds.
 */
export function noStoreProblem(headers: Readonly<Record<string, string>>): string | undefined {
  const value = headers['cache-control'];
  const directives = (value ?? '').split(',').map((d) => d.trim().split('=')[0]!.toLowerCase());
  if (directives.includes('no-store')) return undefined;
  return (
    `the token answer carries ${value === undefined ? 'no Cache-Control' : `Cache-Control: ${value}`}: RFC 6749 ` +
    '§5.1 requires Cache-Control: no-store on any answer holding a token (no-cache still lets a cache store it)'
  );
}

/** RFC 6749 §5.1 also asks for Pragma: no-cache, a header RFC 9111 §5.4 deprecates: recorded, not judged. */
export function pragmaReading(headers: Readonly<Record<string, string>>): string {
  const pragma = headers.pragma;
  return pragma === undefined ? 'no Pragma header' : `Pragma: ${pragma}`;
}

/** HTTP Basic client authentication (RFC 6749 §2.3.1: form-urlencode each part before base64). */
export function basicAuthorization(id: string, secret: string): string {
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}
