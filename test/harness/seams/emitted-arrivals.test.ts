import { describe, expect, it } from 'vitest';
import type { HookView } from '../../../harness/seams/control-client.ts';
import { lostInTransit } from '../../../harness/seams/emitted-arrivals.ts';

const attempt = (n: number, kind: string, status?: number) => ({
  attempt: n,
  at: 1_000 * n,
  outcome: status === undefined ? { kind } : { kind, status },
});

const view = (deliveries: HookView['deliveries']): HookView => ({
  id: 'h',
  status: 'active',
  consecutiveFailures: 0,
  deliveries,
});

describe('emitted events lost in transit (the target recorded the attempt, the receiver never saw it)', () => {
  it('a timed-out or broken first attempt excuses the missing arrival; an answered or absent one does not', () => {
    const hook = view([
      { eventId: 'timed-out', state: 'pending', attempts: [attempt(1, 'timeout')] },
      { eventId: 'broken', state: 'pending', attempts: [attempt(1, 'connection_error')] },
      { eventId: 'answered', state: 'delivered', attempts: [attempt(1, 'status', 200)] },
      { eventId: 'not-yet', state: 'pending', attempts: [] },
    ]);
    expect(lostInTransit(hook, ['timed-out', 'broken', 'answered', 'not-yet', 'unknown'], 1)).toEqual([
      'timed-out',
      'broken',
    ]);
    expect(lostInTransit(undefined, ['timed-out'], 1)).toEqual([]);
  });

  it('waiting for a retry, the target must have made that many attempts', () => {
    const hook = view([
      { eventId: 'e', state: 'pending', attempts: [attempt(1, 'status', 503), attempt(2, 'timeout')] },
    ]);
    expect(lostInTransit(hook, ['e'], 2)).toEqual(['e']);
    expect(lostInTransit(hook, ['e'], 3)).toEqual([]);
  });
});
