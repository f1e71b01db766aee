/** RFC 8259 (JSON) as it binds whoever sends a JSON text over the network: answers and deliveries alike. */
import { field, isJsonMediaType, type LintedMessage } from './message.ts';
import { repeatedNames } from './grammar.ts';
import type { LintRule } from './rule.ts';

const isJsonText = (m: LintedMessage) => m.body.octets > 0 && isJsonMediaType(field(m, 'content-type'));

export const jsonUtf8: LintRule = {
  id: 'LINT-8259-UTF8',
  requirement: 'STD-JSON-TEXT',
  level: 'MUST',
  standard: 'RFC 8259 §8.1',
  sentence:
    'JSON text exchanged between systems that are not part of a closed ecosystem MUST be encoded using UTF-8 ' +
    '[RFC3629].',
  appliesTo: 'every answer and delivery whose Content-Type is JSON',
  applies: isJsonText,
  problem: (m) => (m.body.utf8 ? undefined : `${m.body.octets} octets of JSON that are not well-formed UTF-8`),
};

export const jsonNoBom: LintRule = {
  id: 'LINT-8259-NO-BOM',
  requirement: 'STD-JSON-TEXT',
  level: 'MUST',
  standard: 'RFC 8259 §8.1',
  sentence:
    'Implementations MUST NOT add a byte order mark (U+FEFF) to the beginning of a networked-transmitted JSON text.',
  appliesTo: 'every answer and delivery whose Content-Type is JSON',
  applies: isJsonText,
  problem: (m) => (m.body.bom ? 'the JSON text begins with a byte order mark (EF BB BF)' : undefined),
};

export const jsonUniqueNames: LintRule = {
  id: 'LINT-8259-UNIQUE-NAMES',
  requirement: 'STD-SHOULD-OBSERVED',
  level: 'SHOULD',
  standard: 'RFC 8259 §4',
  sentence: 'The names within an object SHOULD be unique.',
  appliesTo: 'every answer and delivery whose Content-Type is JSON',
  applies: isJsonText,
  problem: (m) => {
    const names = repeatedNames(m.body.text);
    return names.length > 0 ? `an object gives ${names.map((n) => JSON.stringify(n)).join(', ')} twice` : undefined;
  },
};
