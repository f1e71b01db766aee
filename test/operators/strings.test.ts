import { describe, expect, it } from 'vitest';
import { exemplar, shortestMatch } from '../../operators/exemplar.ts';
import { isNumericString, stringProbes, withOffset } from '../../operators/strings.ts';
import { doc } from './fixtures.ts';

const probes = stringProbes(doc);
const of = (element: string, operator: string) =>
  probes.filter((p) => p.element.id === element && p.operator === operator);

describe('constrained-string probes', () => {
  it('give every constrained string the whitespace, newline and NUL near misses, refused', () => {
    for (const element of [
      'GET /cdrs query from',
      'POST /calls body aiAgentId',
      'POST /calls body toNumber',
      'POST /hooks body event',
      'POST /hooks body target_url',
      'DELETE /hooks/{id} path id',
    ]) {
      expect(
        of(element, 'NM-TRAILING-NEWLINE').map((p) => p.value('v')),
        element,
      ).toEqual(['v\n']);
      expect(of(element, 'NM-SURROUNDING-SPACE').map((p) => p.value('v'))).toEqual([' v', 'v ']);
      expect(of(element, 'NM-NUL').map((p) => p.expect.kind)).toEqual(['refused']);
    }
    expect(probes.some((p) => p.element.name === 'metadata' || p.element.name === 'limit')).toBe(false);
  });

  it('refuse a numeric id with 400 or the operation’s not-found 404; a leading zero may be the same id', () => {
    const [plus] = of('POST /calls body aiAgentId', 'NM-NUMERIC-LENIENT');
    expect(plus!.value('70418')).toBe('+70418');
    expect(plus!.expect).toEqual({
      kind: 'refused',
      answers: [
        { status: 400, codes: ['invalid_input'] },
        { status: 404, codes: ['ai_agent_not_found'] },
      ],
    });
    const zero = of('POST /calls body aiAgentId', 'NM-NUMERIC-LENIENT').find((p) => p.what === 'a leading zero')!;
    expect(zero.expect.kind).toBe('same-value');
    expect(zero.mayBeAccepted).toBe(true);
    expect(of('POST /calls body toNumber', 'NM-NUMERIC-LENIENT')).toEqual([]);
  });

  it('write digits as Arabic-Indic and full-width ones', () => {
    const values = of('POST /calls body toNumber', 'NM-NON-ASCII-DIGITS').map((p) => p.value('+15555550123'));
    expect(values).toEqual(['+١٥٥٥٥٥٥٠١٢٣', '+１５５５５５５０１２３']);
    expect(of('POST /hooks body event', 'NM-NON-ASCII-DIGITS')).toEqual([]);
  });

  it('accept what RFC 9562 and RFC 3339 make equal; leave lower-case t/z and hyphenless UUIDs to the target', () => {
    const uuid = of('DELETE /hooks/{id} path id', 'NM-UUID-FORMS');
    expect(uuid.map((p) => [p.value('ab-c'), p.expect.kind])).toEqual([
      ['AB-C', 'same-value'],
      ['urn:uuid:ab-c', 'refused'],
      ['abc', 'same-value'],
    ]);
    const dates = of('GET /cdrs query till', 'NM-DATETIME-EQUIVALENT').map((p) => p.value('2026-01-15T10:00:00Z'));
    expect(dates).toEqual([
      '2026-01-15T10:00:00+00:00',
      '2026-01-15T15:30:00+05:30',
      '2026-01-15T10:00:00.000Z',
      '2026-01-15t10:00:00z',
    ]);
    expect(Date.parse(withOffset('2026-01-15T22:00:00Z', 330))).toBe(Date.parse('2026-01-15T22:00:00Z'));
  });

  it('flip an enumeration’s case and go one character over a maximum length', () => {
    expect(of('POST /hooks body event', 'NM-ENUM-CASE').map((p) => p.value('call.ended'))).toEqual([
      'CALL.ENDED',
      'Call.ended',
    ]);
    const [over] = of('POST /hooks body target_url', 'NM-LENGTH-BOUND');
    expect(over!.value('https://example.invalid/x')).toHaveLength(513);
  });

  it('make a valid value of a schema with no seed: example, enumeration, format or pattern', () => {
    expect(exemplar({ type: 'string', enum: ['b', 'a'] })).toBe('b');
    expect(exemplar({ type: 'string', format: 'uuid' })).toMatch(/^[0-9a-f-]{36}$/);
    expect(shortestMatch('^\\+[1-9][0-9]{1,14}$')).toBe('+10');
    expect(shortestMatch('^[A-Z]{2}-[0-9]+$')).toBe('AA-0');
    expect(shortestMatch('^(a|b)$')).toBeUndefined();
    expect(isNumericString({ type: 'string', pattern: '^[0-9]+$' })).toBe(true);
    expect(isNumericString({ type: 'string', pattern: '^\\+[1-9][0-9]{1,14}$' })).toBe(false);
  });
});

describe('length bounds in a pattern', () => {
  it('go one repetition over and under the last bounded repetition: E.164 with 16 digits and with 1', () => {
    const values = of('POST /calls body toNumber', 'NM-LENGTH-BOUND').map((p) => p.value('+15555550123'));
    expect(values).toEqual(['+1000000000000000', '+1']);
    expect(of('POST /calls body aiAgentId', 'NM-LENGTH-BOUND')).toEqual([]);
  });
});
