import { describe, expect, it } from 'vitest';
import { openapi } from '../../contract/openapi.ts';
import type { Document } from '../../operators/document.ts';
import {
  inertFields,
  judgeInert,
  judgeInertTogether,
  judgeRefusal,
  recordsOfCall,
  refusalProbes,
} from '../../operators/effects.ts';
import { stringProbes } from '../../operators/strings.ts';

const doc = openapi as unknown as Document;
const derived = () => refusalProbes(stringProbes(doc));

describe('refusal without effect: derived from openapi.json', () => {
  it('every state-changing operation gets refused near misses read at its place, or says why not', () => {
    const { probes, none } = derived();
    expect([...new Set(probes.map((p) => p.operation))]).toEqual(['POST /calls', 'POST /hooks']);
    expect(none.map((n) => n.operation)).toEqual(['DELETE /hooks/{id}']);
    expect(probes.every((p) => p.nearMiss.expect.kind === 'refused')).toBe(true);
    expect(probes.find((p) => p.operation === 'POST /hooks')?.place.read).toBe('deliveries');
  });

  it('ranks an optional field first, then a length bound', () => {
    const calls = derived().probes.filter((p) => p.operation === 'POST /calls');
    expect(calls[0]!.nearMiss.element.name).toBe('fromNumber');
    expect(calls[0]!.nearMiss.operator).toBe('NM-LENGTH-BOUND');
    const hooks = derived().probes.filter((p) => p.operation === 'POST /hooks');
    expect(hooks[0]!.nearMiss.operator).toBe('NM-LENGTH-BOUND');
  });

  it('a new state-changing operation without a place of records gets a reason, not a probe', () => {
    const copy = structuredClone(openapi) as unknown as { paths: Record<string, Record<string, unknown>> };
    copy.paths['/things'] = { put: { responses: { '204': { description: 'done' } } } };
    const { none } = refusalProbes(stringProbes(copy as never), copy as never);
    expect(none.find((n) => n.operation === 'PUT /things')?.why).toMatch(/no place/);
  });

  it('a refusal that left a record fails; an acceptance or nothing left passes', () => {
    const probe = derived().probes.find((p) => p.operation === 'POST /hooks')!;
    expect(judgeRefusal(probe, 400, 1)).toMatch(/refused 400, yet 1 deliveries/);
    expect(judgeRefusal(probe, 400, 0)).toBeUndefined();
    expect(judgeRefusal(probe, 200, 1)).toBeUndefined();
    // After a 5xx the work may have been attempted: a record of a failed attempt is a reading the spec allows.
    expect(judgeRefusal(probe, 502, 1)).toBeUndefined();
  });

  it('finds the records of a call by the digits of its called number', () => {
    const rows = [{ dst: '+14155550100' }, { dst: '14155550101' }, null];
    expect(recordsOfCall(rows, '+1 415 555 0100')).toHaveLength(1);
    expect(recordsOfCall(rows, '')).toHaveLength(0);
  });
});

describe('inert fields: derived from openapi.json', () => {
  it('finds fromNumber (not forwarded) and metadata (not persisted)', () => {
    expect(inertFields().map((f) => `${f.element.id}: ${f.words}`)).toEqual([
      'POST /calls body fromNumber: not forwarded',
      'POST /calls body metadata: not persisted',
    ]);
  });

  it('a field described as not persisted in a copy of the document gets the operator with no new code', () => {
    const copy = structuredClone(openapi) as unknown as {
      components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
    };
    copy.components.schemas.HookCreate!.properties.event!.description = 'Accepted but not persisted.';
    expect(inertFields(copy as never).map((f) => f.element.id)).toContain('POST /hooks body event');
  });

  const [field] = inertFields();
  it('fails the marker in the records of the request with it only; passes none or both', () => {
    expect(judgeInert(field!, '+1', [{ src: '+1' }], [{ src: '+2' }]).problem).toMatch(/not forwarded/);
    expect(judgeInert(field!, '+1', [{ src: '+2' }], [{ src: '+2' }]).problem).toBeUndefined();
    expect(judgeInert(field!, '+1', [{ src: '+1' }], [{ src: '+1' }]).problem).toBeUndefined();
  });

  it('where the records cannot be told apart: some but not all carrying it fails', () => {
    expect(judgeInertTogether(field!, 'm', [{ a: 'm' }, { a: 'x' }]).problem).toBeDefined();
    expect(judgeInertTogether(field!, 'm', [{ a: 'm' }, { a: 'm' }]).problem).toBeUndefined();
    expect(judgeInertTogether(field!, 'm', [{ a: 'x' }, { a: 'x' }]).problem).toBeUndefined();
  });
});
