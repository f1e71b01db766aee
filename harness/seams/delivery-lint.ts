/**
 * A webhook delivery as the protocol lint reads it (contract/standards/message.ts): the request the
 * target's sender made, its field lines in arrival order (Node's rawHeaders) and its exact octets.
 * Pure.
 */
import { bodyFacts, type LintedMessage } from '../../contract/standards/message.ts';
import type { Delivery } from '../webhooks/receiver-state.ts';

export function lintedDelivery(
  delivery: Pick<Delivery, 'method' | 'path' | 'rawHeaders' | 'bodyBase64'>,
): LintedMessage {
  const fields: Array<[string, string]> = [];
  for (let i = 0; i + 1 < delivery.rawHeaders.length; i += 2)
    fields.push([delivery.rawHeaders[i]!.toLowerCase(), delivery.rawHeaders[i + 1]!]);
  return {
    channel: 'delivery',
    method: delivery.method,
    path: delivery.path,
    requestHeaders: Object.fromEntries(fields),
    fields,
    body: bodyFacts(Buffer.from(delivery.bodyBase64, 'base64')),
  };
}
