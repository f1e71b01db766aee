/**
 * Two principals reading at once (docs/relations.md "Two principals"): every read of openapi.json
 * (each GET operation) asked by two principals, sent at the same moment and in quick alternation,
 * must answer each principal exactly as it answers that principal alone. The principals are read
 * from the document: two accounts (the bearer scheme authenticates an account: another account's
 * token), and two scope sets of one account (the operation's security requirement names a scope:
 * the token of another scope the document declares, which the operation does not take). A cache,
 * a connection-bound context or a shared buffer that mixes them shows as one principal's answer
 * given to the other. Pure.
 */
import { operationsOf, type Document, type Operation } from './document.ts';
import { rankedBy } from './operator.ts';

export const principalsRelation = {
  id: 'PRINCIPALS-NO-MIX',
  section: 'RFC 9111 §3.5',
  quote:
    'A shared cache MUST NOT use a cached response to a request with an Authorization header field ... to ' +
    'satisfy any subsequent request unless the response contains a Cache-Control field with a response ' +
    'directive that allows it to be stored by a shared cache',
} as const;

export type PairKind = 'two accounts' | 'two scope sets';

/** One read asked by two principals: the token names of the run's fixtures (harness/config/tokens.ts). */
export interface PrincipalProbe {
  readonly operation: Operation;
  readonly kind: PairKind;
  /** The principal whose token reaches every operation (every scope). */
  readonly first: string;
  /** Another account's token, or a token of a scope the operation does not take. */
  readonly second: string;
  readonly what: string;
  /**
   * The second principal lacks a scope the operation takes, so its own answer is the contract's 401
   * (openapi.json: the operation's security requirement), whatever a cache served it before.
   */
  readonly secondRefused: boolean;
}

/** The scopes the document declares (its oauth2 flows), in its order. */
export function declaredScopes(doc: Document): string[] {
  const schemes = Object.values(doc.components?.securitySchemes ?? {}) as Array<{
    flows?: Record<string, { scopes?: Record<string, string> }>;
  }>;
  return [...new Set(schemes.flatMap((s) => Object.values(s.flows ?? {}).flatMap((f) => Object.keys(f.scopes ?? {}))))];
}

/** The scopes an operation's security requirements name. */
const scopesOf = (operation: Operation): string[] => [
  ...new Set(operation.security.flatMap((requirement) => Object.values(requirement).flat())),
];

/**
 * Every read of `doc` × each pair of principals: another account; another scope set of the same
 * account (the first declared read scope the operation does not take, a scope of another read).
 */
export function principalProbes(doc: Document, other = 'noDialer', every = 'all'): PrincipalProbe[] {
  const reads = operationsOf(doc).filter((o) => o.method === 'GET' && o.security.length > 0);
  const readScopes = [...new Set(reads.flatMap(scopesOf))];
  return reads.flatMap((operation) => {
    const own = scopesOf(operation);
    const narrow = declaredScopes(doc).find((s) => readScopes.includes(s) && !own.includes(s));
    const pair = (kind: PairKind, second: string, secondRefused: boolean): PrincipalProbe => ({
      operation,
      kind,
      first: every,
      second,
      what: `${every} and ${second}`,
      secondRefused,
    });
    return [
      pair('two accounts', other, false),
      ...(narrow === undefined ? [] : [pair('two scope sets', narrow, own.length > 0)]),
    ];
  });
}

/**
 * Ranked likeliest slip first: a cache keyed by the URL and the account (two scope sets of one
 * account get each other's answers, and the scope check is skipped) before one that mixes accounts
 * (a cache keyed by the URL alone is rarer and caught by the isolation checks too); then the
 * operations in the document's order.
 */
export function rankPrincipals(probes: readonly PrincipalProbe[]): PrincipalProbe[] {
  const operations = [...new Set(probes.map((p) => p.operation.key))];
  return rankedBy(probes, (p) => [p.kind === 'two scope sets' ? 0 : 1, operations.indexOf(p.operation.key)]);
}

/** Requests of one probe: each principal alone, both at once, then each again in the other order. */
export const PRINCIPAL_PROBE_REQUESTS = 6;
