/**
 * Near misses of the bearer tokens the target issues (the identifiers family applied to the other
 * channel a value is issued on: the token service's answers, and the API tokens the account holds).
 * A token is an opaque string compared as issued (RFC 6750 §2.1: b64token; RFC 6749 §1.4): the
 * same token in another case, one character short, or with one appended, is another string, and
 * "a token that is invalid" gets 401 `unauthorized`. The slips: a case-insensitive collation on the
 * token column, a prefix or LIKE match, a comparison of the first n characters. Pure.
 */
import type { Document } from './document.ts';
import type { OperatorInfo } from './operator.ts';

export interface TokenProbe {
  readonly operator: string;
  /** The security scheme whose tokens it writes another way (an http bearer scheme of the document). */
  readonly scheme: string;
  readonly what: string;
  /** The token to send, from the issued one; undefined when the operator cannot change it (no letter to case). */
  readonly value: (issued: string) => string | undefined;
}

const because =
  'Authentication: "A token that is invalid … gets 401 with error `unauthorized`"; RFC 6750 §2.1: a bearer ' +
  'token is an opaque string, sent and compared as issued';
const appliesTo = 'every bearer token the target issues: an API token of the account, an OAuth access token';

export const issuedTokenOperators: readonly OperatorInfo[] = [
  {
    id: 'NM-TOKEN-CASE',
    family: 'issued tokens',
    appliesTo,
    verdict: 'the issued token with its letters case-swapped is refused 401 `unauthorized`',
    because,
  },
  {
    id: 'NM-TOKEN-TRUNCATED',
    family: 'issued tokens',
    appliesTo,
    verdict: 'the issued token without its last character is refused 401 `unauthorized`',
    because,
  },
  {
    id: 'NM-TOKEN-APPENDED',
    family: 'issued tokens',
    appliesTo,
    verdict: 'the issued token with a character appended is refused 401 `unauthorized`',
    because,
  },
];

const swapCase = (token: string): string | undefined => {
  const swapped = [...token].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
  return swapped === token ? undefined : swapped;
};

/** The ways of writing one issued token another way, likeliest slip first (a case-insensitive collation). */
const ways: ReadonlyArray<Omit<TokenProbe, 'scheme'>> = [
  { operator: 'NM-TOKEN-CASE', what: 'its letters case-swapped', value: swapCase },
  { operator: 'NM-TOKEN-TRUNCATED', what: 'its last character dropped', value: (t) => t.slice(0, -1) },
  { operator: 'NM-TOKEN-APPENDED', what: 'a character appended', value: (t) => `${t}A` },
];

/** Every probe of `doc`: each way, for each http bearer scheme it declares (the tokens it issues). */
export function issuedTokenProbes(doc: Document): TokenProbe[] {
  return Object.entries(doc.components?.securitySchemes ?? {})
    .filter(([, scheme]) => scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer')
    .flatMap(([name]) => ways.map((way) => ({ ...way, scheme: name })));
}
