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
