/**
 * Near misses of credentials: the valid token of an operation, carried anywhere but where its
 * security schemes say (an http bearer scheme: `Authorization: Bearer`; an apiKey scheme: its own
 * header, query parameter or cookie). Every such placement of every secured operation is refused
 * with the operation's documented 401 code: a token in the query string, a cookie, another header
 * or under another Authorization scheme authenticates nothing. Pure.
 */
import { operationsOf, type Document, type Operation, type SecurityScheme } from './document.ts';
import type { Expectation } from './expectation.ts';
import { rankedBy, type OperatorInfo } from './operator.ts';

/** Where a probe puts the token; the request carries no `Authorization: Bearer`. */
export type Placement =
  | { readonly in: 'query'; readonly name: string }
  | { readonly in: 'cookie'; readonly name: string }
  | { readonly in: 'header'; readonly name: string; readonly scheme?: string };

export interface CredentialProbe {
  readonly operator: string;
  readonly operation: Operation;
  readonly placement: Placement;
  readonly what: string;
  readonly expect: Expectation;
}

/** The header, query and cookie values carrying `token` in `placement`. Pure. */
export function carry(
  placement: Placement,
  token: string,
): { query?: Record<string, string>; headers?: Record<string, string> } {
  switch (placement.in) {
    case 'query':
      return { query: { [placement.name]: token } };
    case 'cookie':
      return { headers: { cookie: `${placement.name}=${token}` } };
    case 'header': {
      const value =
        placement.scheme === 'Basic'
          ? `Basic ${Buffer.from(`${token}:`).toString('base64')}`
          : placement.scheme === undefined
            ? token
            : `${placement.scheme} ${token}`;
      return { headers: { [placement.name.toLowerCase()]: value } };
    }
  }
}

/** Ranked likeliest slip first: frameworks that read `access_token` from the query, then API-key headers. */
const PLACEMENTS: ReadonlyArray<{ operator: string; placement: Placement; what: string }> = [
  { operator: 'NM-TOKEN-IN-QUERY', placement: { in: 'query', name: 'access_token' }, what: '?access_token=' },
  { operator: 'NM-TOKEN-OTHER-HEADER', placement: { in: 'header', name: 'X-API-Key' }, what: 'X-API-Key' },
  {
    operator: 'NM-TOKEN-OTHER-SCHEME',
    placement: { in: 'header', name: 'Authorization', scheme: 'Token' },
    what: 'Authorization: Token',
  },
  { operator: 'NM-TOKEN-IN-QUERY', placement: { in: 'query', name: 'token' }, what: '?token=' },
  { operator: 'NM-TOKEN-IN-COOKIE', placement: { in: 'cookie', name: 'access_token' }, what: 'cookie access_token' },
  {
    operator: 'NM-TOKEN-OTHER-SCHEME',
    placement: { in: 'header', name: 'Authorization', scheme: 'Basic' },
    what: 'Authorization: Basic (token as user name)',
  },
  { operator: 'NM-TOKEN-IN-QUERY', placement: { in: 'query', name: 'api_key' }, what: '?api_key=' },
  { operator: 'NM-TOKEN-OTHER-HEADER', placement: { in: 'header', name: 'X-Access-Token' }, what: 'X-Access-Token' },
  {
    operator: 'NM-TOKEN-OTHER-HEADER',
    placement: { in: 'header', name: 'Authorization' },
    what: 'Authorization with the bare token (no scheme)',
  },
  { operator: 'NM-TOKEN-IN-COOKIE', placement: { in: 'cookie', name: 'token' }, what: 'cookie token' },
];

export const credentialOperators: readonly OperatorInfo[] = [
  {
    id: 'NM-TOKEN-IN-QUERY',
    family: 'credentials',
    appliesTo: 'every secured operation × ?access_token=, ?token=, ?api_key= (no apiKey scheme declares them)',
    verdict: 'refused with the documented 401 code (`unauthorized`)',
    because: 'Authentication 1: "Every endpoint requires `Authorization: Bearer <ACCESS_TOKEN>`"',
  },
  {
    id: 'NM-TOKEN-IN-COOKIE',
    family: 'credentials',
    appliesTo: 'every secured operation × cookies access_token, token',
    verdict: 'refused with the documented 401 code (`unauthorized`)',
    because: 'Authentication 1: "Every endpoint requires `Authorization: Bearer <ACCESS_TOKEN>`"',
  },
  {
    id: 'NM-TOKEN-OTHER-HEADER',
    family: 'credentials',
    appliesTo: 'every secured operation × X-API-Key, X-Access-Token, a bare Authorization token',
    verdict: 'refused with the documented 401 code (`unauthorized`)',
    because: 'Authentication 1; openapi.json declares one http bearer scheme and no apiKey scheme',
  },
  {
    id: 'NM-TOKEN-OTHER-SCHEME',
    family: 'credentials',
    appliesTo: 'every secured operation × Authorization: Token <t>, Authorization: Basic',
    verdict: 'refused with the documented 401 code (`unauthorized`)',
    because:
      'Authentication 1: the scheme is Bearer; an Authorization "that is not Bearer <token>" authenticates nothing',
  },
];

/** A placement some scheme of the document declares is a real credential, never a near miss. */
function declared(schemes: readonly SecurityScheme[], placement: Placement): boolean {
  return schemes.some((scheme) => {
    if (scheme.type === 'apiKey') return scheme.in === placement.in && scheme.name === placement.name;
    if (scheme.type !== 'http' || placement.in !== 'header' || placement.name.toLowerCase() !== 'authorization')
      return false;
    return scheme.scheme?.toLowerCase() === (placement.scheme ?? '').toLowerCase();
  });
}

/** Every credential probe of `doc`: each undeclared placement on each operation with security. */
export function credentialProbes(doc: Document): CredentialProbe[] {
  const schemes = Object.values(doc.components?.securitySchemes ?? {});
  const placements = PLACEMENTS.filter((p) => !declared(schemes, p.placement));
  return operationsOf(doc)
    .filter((operation) => operation.security.length > 0)
    .flatMap((operation) =>
      placements.map((p) => ({
        operator: p.operator,
        operation,
        placement: p.placement,
        what: `the token in ${p.what}`,
        expect: {
          kind: 'refused' as const,
          answers: [{ status: 401, codes: operation.errorCodes['401'] ?? [] }],
        },
      })),
    );
}

/**
 * The credential probes ranked likeliest slip first, for the request budget: each placement in the
 * order of PLACEMENTS (a framework reading `access_token` from the query first, then API-key
 * headers, another scheme, …), on every secured operation in the document's order (one auth
 * middleware usually guards them all, so a placement matters more than the operation it is sent to).
 */
export function rankCredentials(probes: readonly CredentialProbe[]): CredentialProbe[] {
  const operations = [...new Set(probes.map((p) => p.operation.key))];
  return rankedBy(probes, (p) => [
    PLACEMENTS.findIndex((x) => x.placement === p.placement),
    operations.indexOf(p.operation.key),
  ]);
}
