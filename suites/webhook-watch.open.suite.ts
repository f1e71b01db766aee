/**
 * Opens the run's watch of webhook deliveries (harness/suite/event-watch.ts): first in the run,
 * so the deliveries it causes arrive while the other checks run; judged by
 * webhook-watch.judge.suite.ts, last.
 */
import { describe } from 'vitest';
import { check } from '../harness/suite/check.ts';
import { openRequests, openWatch, watchedKinds, watchNeeds } from '../harness/suite/event-watch.ts';
import { session } from '../harness/suite/session.ts';

const target = session().target;

describe('Webhook deliveries watched across the run', () => {
  check('One subscription per event kind (and one deleted at once) is created, then events are caused: the originated call, or emitted events', {
    verifies: ['HOOKS-CREATE', 'HOOKS-SEVERAL-SUBSCRIPTIONS'],
    needs: watchNeeds(target), requests: openRequests(target),
  }, async (t) => {
    const watch = await openWatch(t);
    const rotation = watchedKinds(t.target);
    if (rotation.rotatedOut.length > 0) t.observe('HOOKS-SEVERAL-SUBSCRIPTIONS', `request budget: this run (${rotation.slice}) subscribes ${rotation.kinds.join(', ')}; runs with the next seeds subscribe ${rotation.rotatedOut.join(', ')} in turn`);
    t.observe('HOOKS-SEVERAL-SUBSCRIPTIONS', `${watch.watched.length} subscriptions watched for ${watch.budgetS} s from ${new Date(watch.causedAt).toISOString()}`
      + `; events caused by ${[watch.callId === undefined ? '' : `the originated call ${watch.callId}`, watch.emitted.length === 0 ? '' : `emitting ${watch.emitted.join(', ')}`].filter((s) => s !== '').join(' and ')}`);
  });
});
