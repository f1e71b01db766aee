import { describe, expect, it } from 'vitest';
import { boundCandidates, listOf, numberProbes } from '../../operators/numbers.ts';
import { copyOfDocument, doc } from './fixtures.ts';

describe('bounded-number probes', () => {
  const probes = numberProbes(doc);

  it('send each bound ±1, 0, −1, fractions, exponent forms and a huge value of GET /cdrs limit', () => {
    expect(probes.every((p) => p.element.id === 'GET /cdrs query limit')).toBe(true);
    expect(probes.map((p) => p.value(''))).toEqual([
      '1001',
      '1000',
      '999',
      '0',
      '1',
      '2',
      '-1',
      '1.5',
      '1e2',
      '1e4',
      '1001.0',
      '0x3e9',
      '2147483648',
      '4294967295',
      '99999999999999999999',
    ]);
  });

  it('hold a value inside the bounds to at most that many items, one outside to the maximum or a 400', () => {
    const at = (v: string) => probes.find((p) => p.value('') === v)!.expect;
    expect(listOf(doc, probes[0]!.element)).toBe('calls');
    expect(at('999')).toEqual({ kind: 'within', max: 999, list: 'calls', or: [] });
    expect(at('-1')).toMatchObject({ kind: 'within', max: 1000, or: [{ status: 400 }] });
  });

  it('refuse outright where the spec gives the answer (no x-unspecified)', () => {
    const copy = copyOfDocument();
    delete copy.paths['/cdrs'].get.parameters[2]['x-unspecified'];
    const probe = numberProbes(copy as never).find((p) => p.value('') === '0')!;
    expect(probe.expect).toEqual({
      kind: 'refused',
      answers: [{ status: 400, codes: ['invalid_timestamp', 'till_must_be_after_from', 'window_too_wide'] }],
    });
  });

  it('derive bounds of any integer schema', () => {
    expect(boundCandidates({ type: 'integer', minimum: 5 }).map((c) => c.value)).toEqual([
      '4',
      '5',
      '6',
      '0',
      '-1',
      '1.5',
      '1e2',
      '2147483648',
      '4294967295',
      '99999999999999999999',
    ]);
  });
});
