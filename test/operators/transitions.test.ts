import { describe, expect, it } from 'vitest';
import {
  judgeConcurrentDouble,
  judgeUseAfter,
  subscriptionStates,
  transitionProbes,
  type StateRow,
} from '../../operators/transitions.ts';

describe('transitions: derived from the state table', () => {
  it('gives DELETE /hooks/{id} (active → disabled) its concurrent double and its use after, nothing else', () => {
    const probes = transitionProbes();
    expect(probes.map((p) => `${p.id} ${p.operation}`)).toEqual([
      'NM-CONCURRENT-TRANSITION DELETE /hooks/{id}',
      'NM-USE-AFTER-TRANSITION DELETE /hooks/{id}',
    ]);
    expect(probes[0]).toMatchObject({ mover: { status: 204 }, after: { status: 404, error: 'not_found' } });
    expect(probes[0]!.silent).toBe(true);
  });

  it('a row added to the table gets its probes with no new code', () => {
    const table: StateRow[] = [
      ...subscriptionStates,
      { from: 'active', movedBy: 'POST /calls', condition: 'paused', next: 'paused', answer: { status: 200 } },
      { from: 'paused', movedBy: 'POST /calls', condition: 'always', next: 'paused', answer: { status: 409 } },
    ];
    expect(transitionProbes(table).filter((p) => p.operation === 'POST /calls')).toHaveLength(2);
  });

  it('accepts exactly one mover and one answer of the next state, in either order', () => {
    const [probe] = transitionProbes();
    const won = { status: 204 };
    const lost = { status: 404, error: 'not_found' };
    expect(judgeConcurrentDouble(probe!, [won, lost])).toBeUndefined();
    expect(judgeConcurrentDouble(probe!, [lost, won])).toBeUndefined();
    expect(judgeConcurrentDouble(probe!, [won, won])).toMatch(/exactly one/);
    expect(judgeConcurrentDouble(probe!, [lost, lost])).toMatch(/exactly one/);
    expect(judgeConcurrentDouble(probe!, [won, { status: 404, error: 'gone' }])).toBeDefined();
  });

  it('use after: the next state answers', () => {
    const [, probe] = transitionProbes();
    expect(judgeUseAfter(probe!, { status: 404, error: 'not_found' })).toBeUndefined();
    expect(judgeUseAfter(probe!, { status: 204 })).toMatch(/must be 404 not_found/);
  });
});
