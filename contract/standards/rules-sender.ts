/**
 * The webhook sender is an HTTP client: RFC 9112 and RFC 9110 bind the requests it sends. Each rule
 * reads one delivery as the receiver got it (its field lines, its octets).
 */
import { field, fieldValues, type LintedMessage } from './message.ts';
import { isMediaType } from './grammar.ts';
import type { LintRule } from './rule.ts';

const delivery = (m: LintedMessage) => m.channel === 'delivery';

export const deliveryHost: LintRule = {
  id: 'LINT-9112-HOST',
  requirement: 'STD-WEBHOOK-HTTP-CLIENT',
  level: 'MUST',
  standard: 'RFC 9112 §3.2',
  sentence:
    'A client MUST send a Host header field in all HTTP/1.1 request messages. ... A server MUST respond with a ' +
    '400 (Bad Request) status code to any HTTP/1.1 request message that lacks a Host header field and to any ' +
    'request message that contains more than one Host header field line or a Host header field with an invalid ' +
    'field value.',
  appliesTo: 'every webhook delivery',
  applies: delivery,
  problem: (m) => {
    const hosts = fieldValues(m, 'host');
    if (hosts.length === 0) return 'no Host';
    return hosts.length > 1 ? `Host on ${hosts.length} field lines` : undefined;
  },
};

export const deliveryFields: LintRule = {
  id: 'LINT-9110-DELIVERY-FIELDS',
  requirement: 'STD-WEBHOOK-HTTP-CLIENT',
  level: 'MUST',
  standard: 'RFC 9110 §5.3, §8.3.1',
  sentence:
    "A sender MUST NOT generate multiple field lines with the same name in a message ... unless that field's " +
    'definition allows multiple field line values to be recombined as a comma-separated list / ' +
    'Content-Type = media-type',
  appliesTo: 'every webhook delivery',
  applies: delivery,
  problem: (m) => {
    const types = fieldValues(m, 'content-type');
    if (types.length > 1) return `Content-Type on ${types.length} field lines (${types.join(' / ')})`;
    if (types.length === 1 && !isMediaType(types[0]!)) return `Content-Type: ${types[0]} is not a media type`;
    return undefined;
  },
};

/** Fields that speak only to the next hop, and the connection option their sender must name (RFC 9110 §7.6.1). */
const HOP_FIELDS = ['te', 'upgrade'] as const;

export const deliveryConnectionOptions: LintRule = {
  id: 'LINT-9110-CONNECTION-OPTIONS',
  requirement: 'STD-WEBHOOK-HTTP-CLIENT',
  level: 'MUST',
  standard: 'RFC 9110 §10.1.4, §7.8',
  sentence:
    'A sender of TE MUST also send a "TE" connection option within the Connection header field (Section 7.6.1) ' +
    'to inform intermediaries not to forward this field. / A sender of Upgrade MUST also send an "Upgrade" ' +
    'connection option in the Connection header field (Section 7.6.1) to inform intermediaries not to forward ' +
    'this field.',
  appliesTo: 'every webhook delivery that carries TE or Upgrade',
  applies: delivery,
  problem: (m) => {
    const options = (field(m, 'connection') ?? '').split(',').map((o) => o.trim().toLowerCase());
    const unnamed = HOP_FIELDS.filter((name) => field(m, name) !== undefined && !options.includes(name));
    return unnamed.length === 0
      ? undefined
      : `${unnamed.map((n) => (n === 'te' ? 'TE' : 'Upgrade')).join(' and ')} without its Connection option`;
  },
};

export const deliveryUserAgent: LintRule = {
  id: 'LINT-9110-USER-AGENT',
  requirement: 'STD-SHOULD-OBSERVED',
  level: 'SHOULD',
  standard: 'RFC 9110 §10.1.5',
  sentence:
    'A user agent SHOULD send a User-Agent header field in each request unless specifically configured not to do so.',
  appliesTo: 'every webhook delivery',
  applies: delivery,
  problem: (m) => (field(m, 'user-agent') === undefined ? 'no User-Agent' : undefined),
};
