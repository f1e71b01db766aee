import { describe, expect, it } from 'vitest';
import { openapi } from '../../contract/openapi.ts';
import { judgeSecondAnswer, oneTimeValues } from '../../operators/one-time-values.ts';

describe('one-time values: derived from openapi.json', () => {
  it('finds the secret of POST /hooks, with the id as its identity', () => {
    expect(oneTimeValues()).toEqual([{ operation: 'POST /hooks', field: 'secret', identity: ['id'] }]);
  });

  it('a property described as returned once in a copy of the document gets the operator with no new code', () => {
    const copy = structuredClone(openapi) as unknown as {
      components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
    };
    copy.components.schemas.CallQueued!.properties.status!.description = 'Never returned again.';
    const found = oneTimeValues(copy as never).map((v) => `${v.operation} ${v.field}`);
    expect(found).toEqual(['POST /calls status', 'POST /hooks secret']);
  });

  const [value] = oneTimeValues();
  const first = { id: 'a', secret: 'whsec_one' };
  const answer = (status: number, json: unknown) => ({ status, json, rawBody: JSON.stringify(json) });

  it('accepts a new record or a refusal, and records which', () => {
    expect(judgeSecondAnswer(value!, first, answer(200, { id: 'b', secret: 'whsec_two' }))).toEqual({
      problem: undefined,
      reading: 'a new record',
    });
    expect(judgeSecondAnswer(value!, first, answer(409, { error: 'conflict' })).reading).toBe('refused');
  });

  it('fails the first value given again, anywhere in the answer, and the first record with a value', () => {
    expect(judgeSecondAnswer(value!, first, answer(200, first)).problem).toMatch(/first response's secret/);
    expect(judgeSecondAnswer(value!, first, answer(400, { error: 'x', message: 'whsec_one' })).problem).toBeDefined();
    expect(judgeSecondAnswer(value!, first, answer(200, { id: 'a', secret: 'whsec_new' })).problem).toMatch(
      /first record's id/,
    );
  });
});
