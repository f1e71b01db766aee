import { describe, expect, it } from 'vitest';
import type { Document } from '../../operators/document.ts';
import {
  judgeConcurrentCreation,
  judgeConcurrentDouble,
  judgeUseAfter,
  stateChangingOperations,
  subscriptionStates,
  transitionProbes,
  undeterminedDoubles,
  type StateRow,
} from '../../operators/transitions.ts';
import { copyOfDocument, doc } from './fixtures.ts';

const probe = (operation: string, id: string) =>
  transitionProbes().find((p) => p.operation === operation && p.id === id)!;

describe('transitions: derived from openapi.json and the state table', () => {
  it('takes every operation of an unsafe method of openapi.json, and only those', () => {
    const unsafe = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ['post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(stateChangingOperations()).toEqual(unsafe);
    expect(unsafe).toEqual(['POST /calls', 'POST /hooks', 'DELETE /hooks/{id}']);
  });

  it('gives each state-changing operation the table makes definite its double and use after, the others a why', () => {
    expect(transitionProbes().map((p) => `${p.id} ${p.kind} ${p.operation}`)).toEqual([
      'NM-CONCURRENT-TRANSITION create POST /hooks',
      'NM-USE-AFTER-TRANSITION create POST /hooks',
      'NM-CONCURRENT-TRANSITION move DELETE /hooks/{id}',
      'NM-USE-AFTER-TRANSITION move DELETE /hooks/{id}',
    ]);
    expect(probe('DELETE /hooks/{id}', 'NM-CONCURRENT-TRANSITION')).toMatchObject({
      from: 'active',
      next: 'disabled',
      mover: { status: 204 },
      after: { status: 404, error: 'not_found' },
      silent: true,
    });
    // A creation: the documented 200, the body's uuid id and the secret given once (openapi.json), then
    // the created subscription is active: DELETE answers 204 (the table's row from active).
    expect(probe('POST /hooks', 'NM-CONCURRENT-TRANSITION')).toMatchObject({
      from: '(none)',
      next: 'active',
      mover: { status: 200 },
      identity: 'id',
      once: ['secret'],
      usedBy: 'DELETE /hooks/{id}',
      after: { status: 204 },
    });
    const [calls, ...others] = undeterminedDoubles();
    expect(others).toEqual([]);
    expect(calls!.operation).toBe('POST /calls');
    expect(calls!.why).toMatch(/no row of the spec's state tables.*Transitions of a call after queued are not shown/);
  });

  it('a new state-changing operation with its rows gets its probes with no new code', () => {
    const copy = copyOfDocument();
    copy.paths['/hooks/{id}'].put = {
      ...copy.paths['/hooks/{id}'].delete,
      operationId: 'pauseHook',
      responses: { ...copy.paths['/hooks/{id}'].delete.responses, '200': { description: 'paused' } },
    };
    const table: StateRow[] = [
      ...subscriptionStates,
      { from: 'active', movedBy: 'PUT /hooks/{id}', condition: 'pause', next: 'paused', answer: { status: 200 } },
      { from: 'paused', movedBy: 'PUT /hooks/{id}', condition: 'always', next: 'paused', answer: { status: 409 } },
    ];
    const derived = transitionProbes(copy as Document, table).filter((p) => p.operation === 'PUT /hooks/{id}');
    expect(derived.map((p) => `${p.id} ${p.kind} ${p.mover.status} ${p.after.status}`)).toEqual([
      'NM-CONCURRENT-TRANSITION move 200 409',
      'NM-USE-AFTER-TRANSITION move 200 409',
    ]);
    // Without rows of its own it is listed, not probed.
    expect(undeterminedDoubles(copy as Document).map((u) => u.operation)).toEqual(['POST /calls', 'PUT /hooks/{id}']);
  });

  it('a move: accepts exactly one mover and one answer of the next state, in either order', () => {
    const move = probe('DELETE /hooks/{id}', 'NM-CONCURRENT-TRANSITION');
    const won = { status: 204 };
    const lost = { status: 404, error: 'not_found' };
    expect(judgeConcurrentDouble(move, [won, lost])).toBeUndefined();
    expect(judgeConcurrentDouble(move, [lost, won])).toBeUndefined();
    expect(judgeConcurrentDouble(move, [won, won])).toMatch(/exactly one/);
    expect(judgeConcurrentDouble(move, [lost, lost])).toMatch(/exactly one/);
    expect(judgeConcurrentDouble(move, [won, { status: 404, error: 'gone' }])).toBeDefined();
  });

  it('use after: the next state answers', () => {
    const after = probe('DELETE /hooks/{id}', 'NM-USE-AFTER-TRANSITION');
    expect(judgeUseAfter(after, { status: 404, error: 'not_found' })).toBeUndefined();
    expect(judgeUseAfter(after, { status: 204 })).toMatch(/must be 404 not_found/);
    const created = probe('POST /hooks', 'NM-USE-AFTER-TRANSITION');
    expect(judgeUseAfter(created, { status: 204 })).toBeUndefined();
    expect(judgeUseAfter(created, { status: 404, error: 'not_found' })).toMatch(
      /DELETE \/hooks\/\{id\} of a resource POST \/hooks created .* must be 204/,
    );
  });

  it('a creation: two creations of their own, or one refused, pass and say which; a shared id or secret fails', () => {
    const create = probe('POST /hooks', 'NM-CONCURRENT-TRANSITION');
    const made = (id: string, secret: string) => ({
      status: 200,
      json: { id, secret },
      rawBody: JSON.stringify({ id, secret }),
    });
    const two = judgeConcurrentCreation(create, [made('a', 'whsec_1'), made('b', 'whsec_2')]);
    expect(two).toEqual({
      problem: undefined,
      reading: 'two creations (ids a, b)',
      created: ['a', 'b'],
      givenTwice: [],
    });
    // A refusal may name the subscription it duplicates.
    const refused = { status: 409, json: { error: 'duplicate' }, rawBody: '{"error":"duplicate of a"}' };
    expect(judgeConcurrentCreation(create, [refused, made('a', 'whsec_1')])).toMatchObject({
      problem: undefined,
      reading: 'one creation, the other refused (409)',
      created: ['a'],
    });
    expect(judgeConcurrentCreation(create, [made('a', 'whsec_1'), made('a', 'whsec_1')])).toMatchObject({
      problem: expect.stringMatching(/the same id and secret/),
      givenTwice: ['secret'],
    });
    expect(judgeConcurrentCreation(create, [made('a', 'whsec_1'), made('b', 'whsec_1')]).problem).toMatch(
      /the same secret/,
    );
    const leaky = { status: 409, json: {}, rawBody: '{"error":"duplicate of a","secret":"whsec_1"}' };
    expect(judgeConcurrentCreation(create, [made('a', 'whsec_1'), leaky]).problem).toMatch(
      /carries the other's secret/,
    );
    expect(judgeConcurrentCreation(create, [refused, refused]).problem).toMatch(/at least one must create/);
    const failed = { status: 500, json: {}, rawBody: '' };
    expect(judgeConcurrentCreation(create, [made('a', 'whsec_1'), failed]).problem).toMatch(/answered 200 and 500/);
  });
});
