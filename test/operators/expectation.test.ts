import { describe, expect, it } from 'vitest';
import { type Answer, judge } from '../../operators/expectation.ts';

const json = (status: number, body: unknown): Answer => ({
  status,
  headers: { 'content-type': 'application/json' },
  rawBody: JSON.stringify(body),
  json: body,
});
const html: Answer = { status: 405, headers: { 'content-type': 'text/html' }, rawBody: '<h1>no</h1>', json: undefined };

describe('judge', () => {
  it('refused: one of the statuses with one of its codes', () => {
    const rule = { kind: 'refused' as const, answers: [{ status: 400, codes: ['invalid_input'] }] };
    expect(judge(rule, json(400, { error: 'invalid_input' })).ok).toBe(true);
    expect(judge(rule, json(400, { error: 'other' })).ok).toBe(false);
    expect(judge(rule, json(200, {})).problem).toMatch(/expected 400 invalid_input, got 200/);
  });

  it('same-value: the canonical answer, or a listed refusal where the spec allows both', () => {
    const canonical = json(200, { count: 1, calls: [{ id: 'a' }] });
    const read = { kind: 'same-value' as const, sameBody: true };
    expect(judge(read, json(200, { count: 1, calls: [{ id: 'a' }] }), canonical).ok).toBe(true);
    expect(judge(read, json(200, { count: 0, calls: [] }), canonical).ok).toBe(false);
    // The spec gives a list no order: the same records in another order are the same answer.
    const two = json(200, { count: 2, calls: [{ id: 'a' }, { id: 'b' }] });
    expect(judge(read, json(200, { count: 2, calls: [{ id: 'b' }, { id: 'a' }] }), two).ok).toBe(true);
    // A creation answers a new id each time: the same status is the same value.
    expect(judge({ kind: 'same-value' }, json(200, { callId: 'b' }), json(200, { callId: 'a' })).ok).toBe(true);
    expect(judge({ kind: 'same-value' }, json(400, { error: 'invalid_timestamp' }), canonical).ok).toBe(false);
    const either = { kind: 'same-value' as const, or: [{ status: 400, codes: ['invalid_timestamp'] }] };
    expect(judge(either, json(400, { error: 'invalid_timestamp' }), canonical)).toMatchObject({ ok: true });
    expect(judge({ kind: 'same-value' }, json(404, { error: 'not_found' }), json(404, { error: 'not_found' })).ok).toBe(
      true,
    );
  });

  it('json-if-body: any status, a JSON body with `error` when it is an error, none at all for HEAD', () => {
    const rule = { kind: 'json-if-body' as const, method: 'PUT' };
    expect(judge(rule, json(405, { error: 'method_not_allowed' })).ok).toBe(true);
    expect(judge(rule, { status: 204, headers: {}, rawBody: '', json: undefined }).ok).toBe(true);
    expect(judge(rule, html).problem).toMatch(/text\/html/);
    expect(judge(rule, json(404, { message: 'nope' })).problem).toMatch(/`error`/);
    expect(judge(rule, json(200, { anything: 1 })).ok).toBe(true);
    const head = { kind: 'json-if-body' as const, method: 'HEAD' };
    expect(judge(head, { status: 200, headers: {}, rawBody: '', json: undefined }).ok).toBe(true);
    expect(judge(head, json(200, { x: 1 })).ok).toBe(false);
  });

  it('within: at most `max` items, or a listed refusal', () => {
    const rule = { kind: 'within' as const, max: 2, list: 'calls', or: [{ status: 400, codes: [] }] };
    expect(judge(rule, json(200, { calls: [1, 2] })).ok).toBe(true);
    expect(judge(rule, json(200, { calls: [1, 2, 3] })).problem).toMatch(/3 items in calls, more than 2/);
    expect(judge(rule, json(400, { error: 'whatever' })).ok).toBe(true);
    expect(judge({ ...rule, or: [] }, json(400, { error: 'x' })).ok).toBe(false);
  });

  it('no answer is never a pass', () => {
    expect(
      judge({ kind: 'json-if-body', method: 'GET' }, { status: undefined, headers: {}, rawBody: '', json: undefined })
        .ok,
    ).toBe(false);
  });
});
