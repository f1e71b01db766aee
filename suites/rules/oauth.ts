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
