/**
 * Near-miss family "client identity for the rate limit" (NM-FORWARDED-IDENTITY): "Request rate:
 * 100 requests per minute per IP". The IP is the address the request came from; a header the
 * client writes itself can name any address, so a client whose budget is spent must stay refused
 * whatever forwarding header it adds (a proxy the operator runs may set one, but never the client).
 *
 * Applied to every standard or de-facto header naming a client address, each naming an address
 * that has not spent its budget.
 */

export interface ForwardingProbe {
  readonly header: string;
  /** The header's value naming `address` as the client. */
  value(address: string): string;
}

/** The headers that name a client address (RFC 7239 Forwarded, and the de-facto X- headers). */
export const forwardingHeaders: readonly ForwardingProbe[] = [
  { header: 'x-forwarded-for', value: (address) => address },
  { header: 'forwarded', value: (address) => `for=${address}` },
  { header: 'x-real-ip', value: (address) => address },
  { header: 'x-client-ip', value: (address) => address },
];

/** A fresh-looking address for each probe (TEST-NET-3, RFC 5737: never a real client). */
export function freshAddress(index: number): string {
  return `203.0.113.${10 + (index % 200)}`;
}

/**
 * The verdict on a probe sent from a spent address: it must still be refused (429 is the only
 * refusal for rate the run knows: its shape is not shown, RATE-LIMIT-RESPONSE-SHAPE).
 * undefined when it holds or when the probe is void (`conclusive` false: a window turned).
 */
export function judgeForwarded(
  header: string,
  status: number | 'unreachable',
  conclusive: boolean,
): string | undefined {
  if (!conclusive || status === 429 || status === 'unreachable') return undefined;
  return (
    `once the client's address had spent its budget, the same client adding ${header} naming another ` +
    `address was served (${status}): a header the client chooses must not give it a fresh budget`
  );
}

/**
 * NM-UNAUTHENTICATED-BUDGET, the sibling for what the limit counts: "Request rate: 100 requests
 * per minute per IP … Applies to: all". The limit counts requests from an address, not tokens or
 * accounts, so a request that authenticates nothing is a request of that address all the same.
 * Applied to each way a bearer-secured request authenticates nothing (openapi.json declares one
 * http bearer scheme): no Authorization header, and a bearer token the target never issued.
 *
 * What the spec leaves open is the answer to such a request once the budget is spent: "Every
 * endpoint can answer 401 `unauthorized` when the token is invalid" and "Response when the request
 * rate is exceeded: not shown", so 401 before the refusal for rate and 429 before 401 are both
 * readings it allows (recorded). What it decides: once an address has spent its budget with such
 * requests, a valid request from it is refused too, whichever of the two answers they got.
 */
export interface UnauthenticatedRequest {
  /** What authenticates nothing, in words. */
  readonly what: string;
  /** The headers of such a request. */
  readonly headers: Readonly<Record<string, string>>;
}

/** A bearer token no target issued: the prefix of none, a fixed text (never a secret). */
export const UNKNOWN_TOKEN = 'nm-unauthenticated-budget-never-issued-0000';

/** The ways a bearer-secured request authenticates nothing that the rate limit must count all the same. */
export const unauthenticatedRequests: readonly UnauthenticatedRequest[] = [
  { what: 'no Authorization header', headers: {} },
  { what: 'a bearer token never issued', headers: { authorization: `Bearer ${UNKNOWN_TOKEN}` } },
];

/** Which answer came first to an unauthenticated request once the budget was spent (both allowed): recorded. */
export function unauthenticatedReading(statuses: readonly (number | 'unreachable')[]): string {
  const refused = statuses.filter((s) => s === 429).length;
  return refused > 0
    ? `the refusal for rate before 401: ${refused} of ${statuses.length} were answered 429 once the budget was spent`
    : `401 before the refusal for rate: ${statuses.length} answered ${[...new Set(statuses)].join(', ')}`;
}

/**
 * One round of the side-by-side spend: a valid request from the control address (which spends its
 * budget with valid requests) and one from the probe address (which spends it with unauthenticated
 * ones), sent together after each batch. Both addresses send the same number of requests at the same
 * pace, so a window that frees slots (a slow host, a sliding window) frees them for both alike.
 */
export interface BudgetRound {
  readonly control: number | 'unreachable';
  readonly probe: number | 'unreachable';
}

/**
 * What the rounds show: `counted` once the probe address was refused (429, the refusal for rate the run
 * knows); `not-counted` when, `inARow` rounds in a row, the control was refused and the probe served (its
 * unauthenticated requests left its budget untouched); `no-limit` when the control was never refused (no
 * limit showed at this pace: RATE-LIMIT-ENFORCED's); else `unresolved`.
 */
export type SpendVerdict =
  | { readonly kind: 'counted' | 'no-limit' | 'unresolved' }
  | { readonly kind: 'not-counted'; readonly problem: string };

export function judgeUnauthenticatedSpend(
  what: string,
  sent: number,
  rounds: readonly BudgetRound[],
  inARow: number,
): SpendVerdict {
  if (rounds.some((r) => r.probe === 429)) return { kind: 'counted' };
  const served = (s: number | 'unreachable'): boolean => typeof s === 'number' && s >= 200 && s < 300;
  let run = 0;
  for (const round of rounds) {
    run = round.control === 429 && served(round.probe) ? run + 1 : 0;
    if (run >= inARow) {
      return {
        kind: 'not-counted',
        problem:
          `an address sent ${sent} requests with ${what}, and ${inARow} times in a row a valid request from it was ` +
          'served while one from an address that had sent as many valid requests at the same pace was refused: ' +
          '"100 requests per minute per IP … Applies to: all" counts every request of the address, whatever ' +
          'credentials it carries',
      };
    }
  }
  return { kind: rounds.some((r) => r.control === 429) ? 'unresolved' : 'no-limit' };
}
