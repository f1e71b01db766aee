/**
 * Counting the attempts of a hook that also receives other events of the account
 * (control-openapi.json, Events): its own events by eventId, auto-disable over every delivery.
 */
import { describe, expect, it } from 'vitest';
import { deliveriesOf, eventIdOf } from '../../../harness/checks/delivery-verdicts.ts';
import type { HookView } from '../../../harness/seams/control-client.ts';
import { consecutiveFailures, deliveryOf, otherEventIds } from '../../../harness/seams/delivery-driver.ts';

const attempt = (at: number, status: number) => ({ attempt: 1, at, outcome: { kind: 'status', status } });
const view: HookView = {
  id: 'h',
  status: 'active',
  consecutiveFailures: 3,
  deliveries: [
    { eventId: 'ours', state: 'pending', nextAttemptAt: 9, attempts: [attempt(1, 500), attempt(4, 500)] },
    { eventId: 'other', state: 'pending', nextAttemptAt: 8, attempts: [attempt(2, 200), attempt(3, 500)] },
  ],
};

describe('a hook that receives other events too', () => {
  it('finds its own delivery by eventId and lists the others', () => {
    expect(deliveryOf(view, 'ours')?.attempts).toHaveLength(2);
    expect(otherEventIds(view, ['ours'])).toEqual(['other']);
  });

  it('counts the failures in a row over every delivery, in the order the target made the attempts', () => {
    // 500 (ours) · 200 (other) · 500 (other) · 500 (ours): the acknowledgement ended the first run.
    expect(consecutiveFailures(view)).toBe(2);
    expect(consecutiveFailures(undefined)).toBe(0);
  });

  it("counts only the setup's eventIds among the deliveries that arrived", () => {
    const arrived = ['{"eventId":"ours"}', '{"eventId":"other"}', 'not json', '{"eventId":"ours"}'].map((rawBody) => ({
      rawBody,
    }));
    expect(deliveriesOf(arrived, ['ours'])).toHaveLength(2);
    expect(arrived.map(eventIdOf)).toEqual(['ours', 'other', undefined, 'ours']);
  });
});
