/**
 * What the protocol lint reads of one HTTP message the run saw: an answer of the API or of its
 * token service (a response, with the request that asked for it), or a webhook delivery (a request
 * the target sent). Only what crossed the wire: field lines as received (names lower-cased, a name
 * sent twice appears twice), the content's octet count and whether its octets are UTF-8. Pure data:
 * the client (harness/http/) and the receiver build it, the rules of ./rules-*.ts read it.
 */

/** Which party spoke, and so whose MUSTs apply: the API server, its token endpoint, its webhook sender. */
export type Channel = 'api' | 'token' | 'delivery';

export interface BodyFacts {
  /** Octets of the content as received (after transfer coding, before any content coding). */
  readonly octets: number;
  /** Whether those octets are well-formed UTF-8 (RFC 3629). */
  readonly utf8: boolean;
  /** Whether they begin with the UTF-8 byte order mark EF BB BF. */
  readonly bom: boolean;
  /** The content decoded as UTF-8 (what JSON rules parse); '' when there is none. */
  readonly text: string;
}

export interface LintedMessage {
  readonly channel: Channel;
  /** The request's method (for a delivery: the method the target sent). */
  readonly method: string;
  /** The request's path, without the query. */
  readonly path: string;
  /** The request's header fields, names lower-cased (for a delivery: the linted fields themselves). */
  readonly requestHeaders: Readonly<Record<string, string>>;
  /** The answer's status; undefined for a delivery, which is a request. */
  readonly status?: number;
  /** The linted message's field lines, names lower-cased, a repeated name once per line. */
  readonly fields: ReadonlyArray<readonly [string, string]>;
  readonly body: BodyFacts;
  /** The methods the contract documents for the request's path, when it matches one (openapi.json). */
  readonly documentedMethods?: readonly string[];
  /** The documented operation the request was, e.g. "POST /hooks" or "DELETE /hooks/{id}". */
  readonly operation?: string;
}

/** Every value of a field, one per line, in order. Pure. */
export function fieldValues(message: Pick<LintedMessage, 'fields'>, name: string): string[] {
  return message.fields.filter(([n]) => n === name).map(([, value]) => value);
}

/** The field's value when it was sent (several lines joined as RFC 9110 §5.3 combines them). Pure. */
export function field(message: Pick<LintedMessage, 'fields'>, name: string): string | undefined {
  const values = fieldValues(message, name);
  return values.length === 0 ? undefined : values.join(', ');
}

/** The facts of a content's octets. Pure. */
export function bodyFacts(octets: Uint8Array): BodyFacts {
  const bom = octets.length >= 3 && octets[0] === 0xef && octets[1] === 0xbb && octets[2] === 0xbf;
  let utf8 = true;
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(octets);
  } catch {
    utf8 = false;
  }
  return { octets: octets.length, utf8, bom, text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(octets) };
}

/** Whether a Content-Type names JSON: application/json or a +json suffix (RFC 6839), parameters aside. Pure. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const type = contentType?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** "GET /v1/me → 401", "delivery POST /hooks/abc": how a finding names its message. Pure. */
export function messageLabel(message: Pick<LintedMessage, 'channel' | 'method' | 'path' | 'status'>): string {
  return message.channel === 'delivery'
    ? `delivery ${message.method} ${message.path}`
    : `${message.method} ${message.path} → ${message.status}`;
}
