/**
 * Opens the run's watch of webhook deliveries (harness/seams/event-watch.ts): first in the run,
 * so the deliveries it causes arrive while the other checks run; judged by
 * webhook-watch.judge.suite.ts, last.
 */
import { describe } from 'vitest';
import { eventTypes } from '../contract/openapi.ts';
import { check } from '../harness/checks/check.ts';
import { EVERYTHING } from '../harness/scheduling/budget.ts';
import { openRequests, openWatch, watchedKinds, watchNeeds, watchOriginates } from '../harness/seams/event-watch.ts';
import type { Watch } from '../harness/seams/event-watch.ts';
import { codeOf } from '../harness/checks/verdicts.ts';
import { session } from '../harness/run/session.ts';

const target = session().target;

describe('Webhook deliveries watched across the run', () => {
  // Subscribing every kind (embedded, or where a control endpoint emits) shows each of the five
  // names accepted: the other half of HOOKS-EVENT-ENUM, which hooks.suite.ts then rotates remotely.
  const everyKind = watchedKinds(target).kinds.length === eventTypes.length;
  // The events: the originated call, or events emitted through the control endpoint.
  check(
    'One subscription per event kind (and one deleted at once) is created, then events are caused',
    {
      verifies: ['HOOKS-CREATE', 'HOOKS-SEVERAL-SUBSCRIPTIONS', ...(everyKind ? ['HOOKS-EVENT-ENUM' as const] : [])],
      needs: watchNeeds(target),
      requests: openRequests(target),
      requestsAll: openRequests({ ...target, budget: EVERYTHING }),
    },
    async (t) => {
      const watch = await openWatch(t);
      const rotation = watchedKinds(t.target);
      if (rotation.rotatedOut.length > 0)
        t.observe(
          'HOOKS-SEVERAL-SUBSCRIPTIONS',
          `request budget: this run (${rotation.slice}) subscribes ${rotation.kinds.join(', ')}; runs with ` +
            `the next seeds subscribe ${rotation.rotatedOut.join(', ')} in turn`,
        );
      const causes = [
        watch.callId === undefined ? '' : `the originated call ${watch.callId}`,
        watch.emitted.length === 0 ? '' : `emitting ${watch.emitted.join(', ')}`,
      ].filter((s) => s !== '');
      t.observe(
        'HOOKS-SEVERAL-SUBSCRIPTIONS',
        `${watch.watched.length} subscriptions watched for ${watch.budgetS} s from ` +
          `${new Date(watch.causedAt).toISOString()}; events caused by ${causes.join(' and ')}`,
      );
    },
  );

  if (watchOriginates(target)) {
    check(
      'POST /calls with a valid fromNumber and metadata answers 200 with a UUID callId, status queued (the ' +
        "watch's call)",
      {
        verifies: ['CALLS-QUEUED', 'CALLS-METADATA-OBJECT', 'CALLS-FROM-NUMBER-E164'],
        needs: { ...watchNeeds(target), agents: ['provisioned'], originate: true },
        requests: 0,
      },
      async (t) => {
        let watch: Watch;
        try {
          watch = await openWatch(t);
        } catch (error) {
          return t.fail(`the watch could not originate its call: ${(error as Error).message}`);
        }
        const exchange = watch.callCreation!;
        t.ensure(
          exchange.status === 200,
          `POST /calls with a valid body, a valid fromNumber and metadata: expected 200 queued, got ` +
            `${codeOf(exchange)}`,
        );
        const queued = exchange.json as { callId?: unknown; status?: unknown };
        // Its body was validated against openapi.json's CallQueued (a UUID callId) when it arrived.
        t.ensure(typeof queued.callId === 'string', `callId is ${JSON.stringify(queued.callId)}, must be a UUID`);
        t.ensure(queued.status === 'queued', `status is ${JSON.stringify(queued.status)}, must be queued`);
      },
    );
  }
});
