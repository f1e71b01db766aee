import { describe, expect, it } from 'vitest';
import {
  attemptTransition,
  AUTO_DISABLE_AFTER,
  deleteTransition,
  isUuid,
  replayAttempts,
} from '../../../properties/models/hook-state-model.ts';

describe('hook state model', () => {
  it('DELETE: active → 204 and disabled; disabled → 404 not_found, unchanged', () => {
    expect(deleteTransition('active')).toEqual({ expected: { status: 204 }, next: 'disabled' });
    expect(deleteTransition('disabled')).toEqual({ expected: { status: 404, code: 'not_found' }, next: 'disabled' });
  });

  const ours = (acknowledged: boolean) => ({ eventId: 'e1', acknowledged });
  const other = (acknowledged: boolean) => ({ eventId: 'e2', acknowledged });
  const failingThenAck = (k: number) => [...Array.from({ length: k }, () => ours(false)), ours(true)];

  it('a delivery failing k < 10 times then acknowledged: k + 1 attempts, still active, failures back to 0', () => {
    for (let k = 0; k < AUTO_DISABLE_AFTER; k++)
      expect(replayAttempts({ state: 'active', failures: 0 }, failingThenAck(k), ['e1'])).toEqual({
        attempts: k + 1,
        next: { state: 'active', failures: 0 },
      });
  });

  it('the 10th consecutive failure disables the hook and ends the retries; one more attempt is a violation', () => {
    const ten = Array.from({ length: AUTO_DISABLE_AFTER }, () => ours(false));
    expect(replayAttempts({ state: 'active', failures: 0 }, ten, ['e1'])).toEqual({
      attempts: 10,
      next: { state: 'disabled', failures: 10 },
    });
    expect(replayAttempts({ state: 'active', failures: 7 }, ten.slice(0, 3), ['e1'])).toEqual({
      attempts: 3,
      next: { state: 'disabled', failures: 10 },
    });
    expect(replayAttempts({ state: 'active', failures: 0 }, [...ten, ours(true)], ['e1']).problem).toMatch(
      /attempt 11 of the delivery came after it was disabled/,
    );
  });

  it('giving up before the 10th failure, or retrying after an acknowledgement, is a violation', () => {
    const nine = Array.from({ length: AUTO_DISABLE_AFTER - 1 }, () => ours(false));
    expect(replayAttempts({ state: 'active', failures: 0 }, nine, ['e1']).problem).toMatch(
      /stopped after 9 attempt\(s\) with the subscription active and 9 consecutive failure/,
    );
    expect(replayAttempts({ state: 'active', failures: 0 }, [ours(true), ours(false)], ['e1']).problem).toMatch(
      /attempt 2 of the delivery came after it was acknowledged/,
    );
    expect(replayAttempts({ state: 'active', failures: 0 }, [other(true)], ['e1']).problem).toMatch(/never attempted/);
  });

  it('a timeout the target recorded for an answered attempt is a failure: the 10th disables', () => {
    // Nine 500s, then the receiver's 200 reached the target after its delivery timeout.
    const late = [...Array.from({ length: 9 }, () => ours(false)), ours(false)];
    expect(replayAttempts({ state: 'active', failures: 0 }, late, ['e1'])).toEqual({
      attempts: 10,
      next: { state: 'disabled', failures: 10 },
    });
  });

  it("other events' attempts count toward auto-disable, and their acknowledgements reset the run", () => {
    const interleaved = [other(false), ours(false), other(true), ours(false), ours(true)];
    expect(replayAttempts({ state: 'active', failures: 7 }, interleaved, ['e1'])).toEqual({
      attempts: 3,
      next: { state: 'active', failures: 0 },
    });
    // Disabled by another event's failure: our event is not attempted after it.
    expect(replayAttempts({ state: 'active', failures: 9 }, [other(false), ours(false)], ['e1']).problem).toMatch(
      /came after it was disabled/,
    );
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
