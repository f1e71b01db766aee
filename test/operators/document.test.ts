import { describe, expect, it } from 'vitest';
import { elementsOf, firstStatus, operationsOf, resolve } from '../../operators/document.ts';
import { doc } from './fixtures.ts';

describe('the elements of openapi.json', () => {
  it('lists every operation with the error codes each status enumerates', () => {
    const ops = operationsOf(doc);
    expect(ops.map((o) => o.key)).toEqual([
      'GET /me',
      'GET /balance',
      'GET /cdrs',
      'GET /agents',
      'POST /calls',
      'POST /hooks',
      'DELETE /hooks/{id}',
    ]);
    const remove = ops.find((o) => o.key === 'DELETE /hooks/{id}')!;
    expect(remove.errorCodes['400']).toEqual(['invalid_input']);
    expect(remove.errorCodes['401']).toEqual(['unauthorized']);
    expect(remove.errorCodes['404']).toEqual(['not_found']);
    expect(firstStatus(remove, '2')).toBe(204);
  });

  it('lists every parameter and top-level body field, $refs resolved', () => {
    const ids = elementsOf(doc).map((e) => e.id);
    expect(ids).toEqual([
      'GET /cdrs query from',
      'GET /cdrs query till',
      'GET /cdrs query limit',
      'POST /calls body aiAgentId',
      'POST /calls body toNumber',
      'POST /calls body fromNumber',
      'POST /calls body metadata',
      'POST /hooks body event',
      'POST /hooks body target_url',
      'DELETE /hooks/{id} path id',
    ]);
    const to = elementsOf(doc).find((e) => e.id === 'POST /calls body toNumber')!;
    expect(to.schema.pattern).toBe('^\\+[1-9][0-9]{1,14}$');
    expect(to.required).toBe(true);
    expect(elementsOf(doc).find((e) => e.name === 'limit')!.unspecified).toBe(true);
  });

  it('refuses a $ref it cannot resolve', () => {
    expect(() => resolve(doc, { $ref: '#/components/schemas/Nope' })).toThrow(/Nope/);
  });
});
