import { describe } from 'vitest';
import { eventTypes } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import { canEmit } from '../harness/seams/event-watch.ts';
import { turnOf } from '../harness/scheduling/rotation.ts';
import { session } from '../harness/run/session.ts';
import { awaitEmitted, readableArrivals } from '../harness/seams/emitted-arrivals.ts';
import { payloadRequirement } from './event-requirements.ts';
import { subscribe, type Subscription } from '../harness/seams/subscriptions.ts';
import { driveDelivery } from '../harness/seams/delivery-driver.ts';
import { duplicates } from '../harness/checks/verdicts.ts';
import {
  additionalKeys,
  deliveriesOf,
  eventIdOf,
  payloadOf,
  signatureClock,
  signatureDiagnosis,
  signatureFreshnessProblem,
  signingClockObservation,
  timestampKeys,
} from '../harness/checks/delivery-verdicts.ts';
import { parseSignatureHeader, SIGNATURE_HEADER } from '../contract/signature.ts';

// Remotely, where the control endpoint emits events, the run's watch (event-watch.ts) subscribes
// every kind, emits one event of each and holds every delivery to the same rules and payload
// schemas: these checks (four requests each) then take turns, one kind per run, all five over
// five consecutive seeds (the request budget).
const rotateKinds = session().target.kind === 'remote' && canEmit(session().target);

describe('Webhook deliveries of each event', () => {
  for (const event of eventTypes) {
    const other = eventTypes.find((e) => e !== event)!;
    // Signed over t.body with the subscription's secret, with a fresh timestamp; never to another kind's subscription.
    check(
      `${event} is delivered as a signed JSON POST of its schema with a unique eventId, only to its own subscriptions`,
      {
        verifies: [
          'WEBHOOK-POST-JSON',
          'WEBHOOK-SIGNATURE-FORMAT',
          'WEBHOOK-SIGNATURE-INPUT',
          'WEBHOOK-SIGNATURE-KEY',
          'WEBHOOK-SIGNATURE-FRESH',
          'EVENT-BASE-FIELDS',
          'EVENT-ID-PRESENT-UNIQUE',
          payloadRequirement[event],
          'HOOKS-ONE-EVENT-PER-SUBSCRIPTION',
          'EVENT-TIMESTAMP-FIELD',
          'EVENT-ADDITIONAL-KEYS',
        ],
        needs: { tokens: ['all'], control: ['event-emitted'], webhooks: true },
        requests: 4,
        turn: turnOf(
          eventTypes,
          event,
          1,
          rotateKinds,
          "the per-kind delivery checks (every kind's deliveries are also judged on the run's watch)",
        ),
      },
      async (t) => {
        const hook = await subscribe(t, { event });
        const witness = await subscribe(t, { event: other });
        const first = await t.control.emit(event);
        const second = await t.control.emit(event);
        const emitted = [first.eventId, second.eventId];
        const otherEvent = await t.control.emit(other);
        const otherId = otherEvent.eventId;
        // Every event the setups emitted (a set may hold more of this kind); others are the account's.
        const ours = [...first.eventIds, ...second.eventIds, ...otherEvent.eventIds];
        // The other kind's delivery must reach its own subscription; then anything of that kind
        // at ours would have arrived too.
        await awaitEmitted(t, witness, [otherId], `the ${other} subscription`);
        await awaitEmitted(t, hook, emitted, `the ${event} subscription`);
        await t.control.settle(100);
        // Each delivery to the subscription is held to the rules; only the emitted events are counted.
        const deliveries = await readableArrivals(t, hook.path, `the ${event} subscription`);

        const payloads: Array<Record<string, unknown>> = [];
        for (const delivery of deliveries) {
          t.ensure(delivery.method === 'POST', `a ${event} delivery came as ${delivery.method}, must be POST`);
          const type = delivery.headers['content-type'] ?? '';
          t.ensure(
            /^application\/json\b/i.test(type),
            `a ${event} delivery has content type "${type}", must be application/json`,
          );
          const payload = payloadOf(delivery);
          if (payload === undefined)
            return t.fail(`a ${event} delivery body is not a JSON object: ${delivery.rawBody.slice(0, 80)}`);
          payloads.push(payload);
          const header = delivery.headers[SIGNATURE_HEADER];
          t.ensure(
            header !== undefined && parseSignatureHeader(header).ok,
            `a ${event} delivery's X-Service-Signature is ` +
              `${header === undefined ? 'missing' : `malformed: ${header.replace(/v1=[0-9a-f]+/gi, 'v1=…')}`}, ` +
              `must be t=<unix>,v1=<hex>`,
          );
          // Fresh against real time or the clock the target reports (it may sign with a virtual clock).
          const problem =
            signatureDiagnosis(delivery, hook.secret) ??
            signatureFreshnessProblem(delivery, hook.secret, undefined, session().targetClock.fresh);
          t.ensure(
            problem === undefined,
            `a ${event} delivery's signature does not verify with the secret POST /hooks returned: ${problem}`,
          );
        }
        // Other activity of the account (a call another check originated ends) may add genuine
        // deliveries of this kind: only another kind's event is foreign.
        const foreign = payloads.filter(
          (p) => p.eventId === otherId || (typeof p.event === 'string' && p.event !== event),
        );
        t.ensure(
          foreign.length === 0,
          `the ${event} subscription received ${foreign.length} delivery(ies) of other events ` +
            `(${foreign.map((p) => String(p.event ?? p.eventId)).join(', ')}): one subscription covers one event ` +
            `kind`,
        );
        for (const payload of payloads) {
          const problems = session().contract.checkEvent(event, payload);
          t.ensure(problems.length === 0, `a ${event} payload breaks its schema: ${problems.join('; ')}`);
        }
        t.ensure(
          payloads.every((p) => typeof p.eventId === 'string' && p.eventId !== ''),
          `a ${event} payload has no eventId`,
        );
        // The emitted events, each delivered once, with eventIds of their own.
        const ids = deliveriesOf(deliveries, ours).map((d) => eventIdOf(d));
        const shared = first.eventId === second.eventId ? first.eventId : duplicates(ids)[0];
        t.ensure(shared === undefined, `two distinct ${event} events carry the same eventId ${String(shared)}`);
        const clock = session().targetClock;
        await clock.cover(Math.max(...deliveries.map((d) => d.receivedAt)));
        const clocks = deliveries.map((d) => signatureClock(d, hook.secret, undefined, clock.fresh));
        t.observe('WEBHOOK-SIGNATURE-FRESH', `${event}: ${signingClockObservation(clocks)}`);
        t.observe(
          'EVENT-TIMESTAMP-FIELD',
          `${event}: date-time fields ${timestampKeys(payloads[0]!).join(', ') || 'none'}`,
        );
        t.observe(
          'EVENT-ADDITIONAL-KEYS',
          `${event}: keys beyond the documented ones: ${additionalKeys(event, payloads[0]!).join(', ') || 'none'}`,
        );
      },
    );
  }

  check(
    'Several events to one subscription all arrive, each with its own eventId (the arrival order is recorded)',
    {
      verifies: ['WEBHOOK-ORDERING', 'EVENT-ID-PRESENT-UNIQUE'],
      needs: { tokens: ['all'], control: ['event-emitted'], webhooks: true },
      requests: 2,
    },
    async (t) => {
      const hook = await subscribe(t, { event: 'dnc.added' });
      const emitted: string[] = [];
      for (let i = 0; i < 5; i++)
        emitted.push((await t.control.emit('dnc.added', { contactId: `ct_order_${i}` })).eventId);
      const list = await awaitEmitted(t, hook, emitted, 'five dnc.added events');
      // Other events of the account at the same subscription are not the five.
      const arrived = deliveriesOf(list, emitted).map((d) => String(eventIdOf(d)));
      t.ensure(
        duplicates(arrived).length === 0 && emitted.every((id) => arrived.includes(id)),
        `the five events arrived with eventIds ${arrived.join(', ')}; emitted ${emitted.join(', ')}`,
      );
      const inOrder = arrived.every((id, index) => id === emitted[index]);
      t.observe(
        'WEBHOOK-ORDERING',
        inOrder
          ? 'five events sent in a row arrived in emission order'
          : `five events arrived out of emission order: ${arrived.map((id) => emitted.indexOf(id)).join(', ')}`,
      );
    },
  );
});

/**
 * Moves the target's clock until the witness's retry of `eventId` is made: exactly to its
 * nextAttemptAt where the target shows its attempts (hook-attempts), else in doubling steps from
 * ten minutes up to the 24 hours the spec allows a retry to take.
 */
async function advanceToRetry(t: CheckTools, witness: Subscription, eventId: string): Promise<void> {
  if (t.control.offers('hook-attempts') && t.control.offers('clock')) {
    await driveDelivery(t.control, witness.id, eventId, (attempts) => attempts >= 2, 5);
    return;
  }
  const retried = async () =>
    (await t.receiver.deliveries(witness.path)).filter((d) => eventIdOf(d) === eventId).length >= 2;
  const horizon = 24 * 3_600_000;
  for (let step = 10 * 60_000, moved = 0; moved < horizon && !(await retried()); step *= 2) {
    const by = Math.min(step, horizon - moved);
    await t.control.advanceClock(by);
    await t.control.idle();
    moved += by;
  }
}

// Remotely the two take turns, one per run (the request budget): the run's watch verifies
// HOOKS-NO-DELIVERY-AFTER-DELETE every run on a subscription deleted before any event.
const afterDelete = ['a later event', 'a delivery being retried'] as const;
const afterDeleteTurn = (which: (typeof afterDelete)[number]) =>
  turnOf(afterDelete, which, 1, session().target.kind === 'remote', 'the checks of no delivery after DELETE');

describe('No delivery to a disabled subscription', () => {
  check(
    'After DELETE /hooks/{id} no further event is delivered to the subscription',
    {
      verifies: ['HOOKS-NO-DELIVERY-AFTER-DELETE'],
      needs: { tokens: ['all'], control: ['event-emitted'], webhooks: true },
      requests: 4,
      turn: afterDeleteTurn('a later event'),
    },
    async (t) => {
      const deleted = await subscribe(t, { event: 'disposition.set' });
      const live = await subscribe(t, { event: 'disposition.set' });
      const first = await t.control.emit('disposition.set');
      await awaitEmitted(t, deleted, [first.eventId], 'the first event');
      t.expectStatus(await deleted.remove(), 204);
      const later = await t.control.emit('disposition.set');
      // The live subscription gets the later event: after that, the deleted one would have too.
      await awaitEmitted(t, live, [later.eventId], 'the live subscription');
      await t.control.settle(250);
      const after = deliveriesOf(await t.receiver.deliveries(deleted.path), later.eventIds);
      t.ensure(
        after.length === 0,
        `a deleted subscription received ${after.length} delivery(ies) of an event emitted after DELETE`,
      );
    },
  );

  check(
    'A delivery being retried stops when its subscription is deleted',
    {
      verifies: ['HOOKS-NO-DELIVERY-AFTER-DELETE'],
      needs: { tokens: ['all'], control: ['event-emitted', 'deliveries-idle', 'clock-advanced'], webhooks: true },
      requests: 4,
      turn: afterDeleteTurn('a delivery being retried'),
    },
    async (t) => {
      const deleted = await subscribe(t, { event: 'call.transferred', plan: [{ status: 500 }] });
      // A witness whose retry must come: each event answered 500 once, then 200.
      const witness = await subscribe(t, {
        event: 'call.transferred',
        plan: [{ status: 500, times: 1 }, { status: 200 }],
        perEvent: true,
      });
      const { eventId, eventIds } = await t.control.emit('call.transferred');
      await awaitEmitted(t, deleted, [eventId], 'the first attempt');
      await awaitEmitted(t, witness, [eventId], "the witness's first attempt");
      await t.control.idle();
      t.expectStatus(await deleted.remove(), 204);
      await advanceToRetry(t, witness, eventId);
      await awaitEmitted(t, witness, [eventId], "the witness's retry", 2);
      await t.control.settle(250);
      const after = deliveriesOf(await t.receiver.deliveries(deleted.path), eventIds);
      t.ensure(
        after.length === 1,
        `the retries of a deleted subscription went on: ${after.length} attempts, only the first (before ` +
          `DELETE) may arrive`,
      );
    },
  );
});
