/**
 * RFC 9110 §8.6 and RFC 9112 §6 (message framing) as they bind a sender: the fields that delimit
 * content agree with the status and with each other. Answers of the API and token service go to
 * STD-HTTP-MESSAGE-FRAMING, deliveries (the webhook sender is an HTTP client) to STD-WEBHOOK-HTTP-CLIENT.
 *
 * Content-Length beside Transfer-Encoding, or twice, is read on deliveries only: the API client
 * (undici) refuses such an answer before the lint sees it, as a body whose length does not match,
 * which it cannot tell from a body the network cut (not verifiable: docs/standards.md).
 */
import { fieldValues, type LintedMessage } from './message.ts';
import type { LintRequirement, LintRule } from './rule.ts';

const bodiless = (m: LintedMessage) => m.status === 204 || (m.status !== undefined && m.status < 200);

/** RFC 9110 §8.6: no Content-Length on a 1xx or 204. */
export const noLengthOnBodiless: LintRule = {
  id: 'LINT-9110-NO-LENGTH-ON-204',
  requirement: 'STD-HTTP-MESSAGE-FRAMING',
  level: 'MUST',
  standard: 'RFC 9110 §8.6',
  sentence:
    'A server MUST NOT send a Content-Length header field in any response with a status code of 1xx ' +
    '(Informational) or 204 (No Content).',
  appliesTo: 'every 1xx and 204 answer (DELETE /hooks/{id})',
  applies: bodiless,
  problem: (m) => {
    const values = fieldValues(m, 'content-length');
    return values.length > 0 ? `a ${m.status} with Content-Length: ${values.join(', ')}` : undefined;
  },
};

/** RFC 9112 §6.1: no Transfer-Encoding on a 1xx or 204. */
export const noCodingOnBodiless: LintRule = {
  id: 'LINT-9112-NO-TE-ON-204',
  requirement: 'STD-HTTP-MESSAGE-FRAMING',
  level: 'MUST',
  standard: 'RFC 9112 §6.1',
  sentence:
    'A server MUST NOT send a Transfer-Encoding header field in any response with a status code of 1xx ' +
    '(Informational) or 204 (No Content).',
  appliesTo: 'every 1xx and 204 answer',
  applies: bodiless,
  problem: (m) => {
    const values = fieldValues(m, 'transfer-encoding');
    return values.length > 0 ? `a ${m.status} with Transfer-Encoding: ${values.join(', ')}` : undefined;
  },
};

/** RFC 9112 §6.2: never Content-Length beside Transfer-Encoding; RFC 9110 §8.6: Content-Length = 1*DIGIT. */
function framingFields(id: string, requirement: LintRequirement, appliesTo: string, applies: LintRule['applies']) {
  return {
    id,
    requirement,
    level: 'MUST',
    standard: 'RFC 9112 §6.2; RFC 9110 §8.6',
    sentence:
      'A sender MUST NOT send a Content-Length header field in any message that contains a Transfer-Encoding ' +
      'header field. / Content-Length = 1*DIGIT',
    appliesTo,
    applies,
    problem: (m) => {
      const lengths = fieldValues(m, 'content-length');
      if (lengths.length > 0 && fieldValues(m, 'transfer-encoding').length > 0)
        return `Content-Length: ${lengths.join(', ')} beside Transfer-Encoding: ${fieldValues(m, 'transfer-encoding')}`;
      if (lengths.length > 1) return `Content-Length on ${lengths.length} field lines (${lengths.join(' / ')})`;
      if (lengths.length === 1 && !/^\d+$/.test(lengths[0]!)) return `Content-Length: ${lengths[0]} is not 1*DIGIT`;
      return undefined;
    },
  } as const satisfies LintRule;
}

export const deliveryFraming = framingFields(
  'LINT-9112-DELIVERY-LENGTH-FIELDS',
  'STD-WEBHOOK-HTTP-CLIENT',
  'every webhook delivery (a request the target sends)',
  (m) => m.channel === 'delivery',
);
