/**
 * occ control-check's rule on an event-emitted answer (CTL-SETUP-VALUES): eventIds, where given,
 * list every event the setup emitted, the eventId of the requested kind among them.
 */
import { describe, expect, it } from 'vitest';
import { eventIdsProblem } from '../../control-check/check.ts';

describe('eventIdsProblem', () => {
  it('accepts one event without eventIds, or a list holding eventId anywhere', () => {
    expect(eventIdsProblem({ eventId: 'a' })).toBeUndefined();
    expect(eventIdsProblem({ eventId: 'a', eventIds: ['a'] })).toBeUndefined();
    expect(eventIdsProblem({ eventId: 'b', eventIds: ['a', 'b', 'c'] })).toBeUndefined();
  });

  it('names a list that leaves eventId out', () => {
    expect(eventIdsProblem({ eventId: 'a', eventIds: ['b', 'c'] })).toBe('eventIds ["b","c"] do not list eventId a');
  });

  it('leaves what the schema decides to the schema (no eventId, eventIds not an array)', () => {
    expect(eventIdsProblem({ eventIds: ['b'] })).toBeUndefined();
    expect(eventIdsProblem({ eventId: 'a', eventIds: 'a' })).toBeUndefined();
  });
});
