import { describe, expect, it } from 'vitest';
import {
  attemptTransition,
  AUTO_DISABLE_AFTER,
  deleteTransition,
  deliveryTransition,
  isUuid,
} from '../../properties/models/hook-state-model.ts';

describe('hook state model', () => {
  it('DELETE: active → 204 and disabled; disabled → 404 not_found, unchanged', () => {
    expect(deleteTransition('active')).toEqual({ expected: { status: 204 }, next: 'disabled' });
    expect(deleteTransition('disabled')).toEqual({ expected: { status: 404, code: 'not_found' }, next: 'disabled' });
  });

  it('a delivery failing k < 10 times then acknowledged: k + 1 attempts, still active, failures back to 0', () => {
    for (let k = 0; k < AUTO_DISABLE_AFTER; k++) {
      expect(deliveryTransition({ state: 'active', failures: 0 }, k)).toEqual({
        attempts: k + 1,
        next: { state: 'active', failures: 0 },
      });
    }
  });

  it('the 10th consecutive failure disables the hook and ends the retries', () => {
    for (const k of [10, 11, 50])
      expect(deliveryTransition({ state: 'active', failures: 0 }, k)).toEqual({
        attempts: 10,
        next: { state: 'disabled', failures: 10 },
      });
    expect(deliveryTransition({ state: 'active', failures: 7 }, 5)).toEqual({
      attempts: 3,
      next: { state: 'disabled', failures: 10 },
    });
    expect(deliveryTransition({ state: 'disabled', failures: 10 }, 3)).toEqual({
      attempts: 0,
      next: { state: 'disabled', failures: 10 },
    });
  });

  it('attempt by attempt, of any event: the delivery transition is the fold of its attempts', () => {
    for (const [failures, k] of [
      [0, 3],
      [7, 5],
      [0, 12],
    ] as const) {
      let hook = { state: 'active' as const, failures } as Parameters<typeof attemptTransition>[0];
      const { attempts, next } = deliveryTransition(hook, k);
      for (let n = 1; n <= attempts; n++) hook = attemptTransition(hook, n > k);
      expect(hook).toEqual(next);
    }
    // Another event acknowledged between two failures ends the run of failures.
    const interleaved = [false, true, false].reduce(attemptTransition, { state: 'active', failures: 8 });
    expect(interleaved).toEqual({ state: 'active', failures: 1 });
    expect(attemptTransition({ state: 'disabled', failures: 10 }, true)).toEqual({ state: 'disabled', failures: 10 });
  });

  it('tells UUIDs (any version, any case) from other ids', () => {
    expect(isUuid('3f2504e0-4f89-41d3-9a0c-0305e82c3301')).toBe(true);
    expect(isUuid('3F2504E0-4F89-11D3-9A0C-0305E82C3301')).toBe(true);
    for (const id of [
      '3f2504e04f8941d39a0c0305e82c3301',
      '{3f2504e0-4f89-41d3-9a0c-0305e82c3301}',
      '3f2504e0-4f89-41d3-9a0c-0305e82c330',
      'g f',
    ])
      expect(isUuid(id)).toBe(false);
  });
});
