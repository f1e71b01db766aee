import { describe, expect, it } from 'vitest';
import { bindingsOf, changedHexDigit, identifierProbes } from '../../operators/identifiers.ts';
import { doc } from './fixtures.ts';

const ID = '3f0a1c52-9b7e-4d21-8c55-6a2f0e9d4b17';

describe('identifier probes', () => {
  it('bind DELETE /hooks/{id} to the id POST /hooks issues', () => {
    const [binding] = bindingsOf(doc);
    expect(bindingsOf(doc)).toHaveLength(1);
    expect(binding).toMatchObject({
      producer: 'POST /hooks',
      field: 'id',
      success: 204,
      malformed: [{ status: 400, codes: ['invalid_input'] }],
      unknown: [{ status: 404, codes: ['not_found'] }],
    });
    expect(binding!.parameter.id).toBe('DELETE /hooks/{id} path id');
  });

  it('write the issued id in upper case, appended, changed, and name a sibling and a foreign one', () => {
    const probes = identifierProbes(doc);
    const values = probes.map((p) => [p.operator, p.value(ID, 'other')]);
    expect(values).toEqual([
      ['NM-ID-CASE', ID.toUpperCase()],
      ['NM-ID-APPENDED', `${ID}0`],
      ['NM-ID-CHANGED', changedHexDigit(ID)],
      ['NM-ID-CHANGED', `${ID.slice(0, -1)}g`],
      ['NM-ID-SIBLING', 'other'],
      ['NM-ID-FOREIGN', 'OTHER'],
    ]);
    expect(changedHexDigit(ID)).toMatch(/^[0-9a-f-]{36}$/);
    expect(changedHexDigit(ID)).not.toBe(ID);
    expect(probes[0]!.outcome).toEqual({ kind: 'acts-on-it' });
  });
});
