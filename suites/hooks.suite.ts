import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { eventTypes, limits, type HookCreated } from '../contract/openapi.ts';
import type { Exchange } from '../harness/http/client.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import { watchedKinds, watchOpens } from '../harness/seams/event-watch.ts';
import { journalCreated, journalDeleted } from '../harness/run/journal.ts';
import { awaitEmitted, notVerifiableIfReceiverRefused } from '../harness/seams/emitted-arrivals.ts';
import { session } from '../harness/run/session.ts';
import { subscribe, type Subscription } from '../harness/seams/subscriptions.ts';
import { probeRotation, probesForRun, probesPlanned } from '../harness/scheduling/rotation.ts';
import { codeOf, expectError } from '../harness/checks/verdicts.ts';
import { deleteIdProbes, hookValidationProbes, NOWHERE } from './data/hooks.ts';
import { secretsIn, urlOfLength } from './rules/hooks.ts';

/**
 * POST /hooks with a body a correct target refuses. Should a broken target create the hook
 * anyway, it is journaled and deleted like any other, so nothing is left behind.
 */
async function expectCreationRefused(
  t: CheckTools,
  body: { raw?: string; json?: unknown },
  what: string,
): Promise<void> {
  const exchange = await t.call({
    method: 'POST',
    path: '/hooks',
    token: t.token('write:hooks'),
    ...(body.raw === undefined ? { json: body.json } : { body: body.raw, contentType: 'application/json' }),
  });
  const created = exchange.json as Partial<HookCreated> | undefined;
  if (exchange.status === 200 && typeof created?.id === 'string') {
    const id = created.id;
    await journalCreated(id, 'write:hooks');
    t.onCleanup(async () => {
      const gone = await t.call({ method: 'DELETE', path: `/hooks/${id}`, token: t.token('write:hooks') });
      if (gone.status === 204 || gone.status === 404) await journalDeleted(id, 'write:hooks');
    });
  }
  t.ensure(exchange.status === 400, `POST /hooks with ${what}: expected 400 invalid_input, got ${codeOf(exchange)}`);
  expectError(t, exchange, 400, 'invalid_input');
}

/**
 * Remotely, where the run's watch subscribes every event kind (a control endpoint emits events:
 * event-watch.ts), each of the five names is accepted there every run, so this check subscribes
 * EVENTS_PER_RUN_WATCHED of them per run (the request budget), every kind over five seeds.
 */
const EVENTS_PER_RUN_WATCHED = 1;
const eventsRotate =
  session().target.kind === 'remote' &&
  watchedKinds(session().target).kinds.length === eventTypes.length &&
  watchOpens(session().target);

describe('POST /hooks and DELETE /hooks/{id}: the subscription state table', () => {
  // A 512-character target for each of the five events (UUID ids, whsec_ secrets; the first body
  // sent as application/json; charset=utf-8), and once more written HTTPS:// (an https URI too):
  // the subscriptions coexist, DELETE answers 204 with no body then 404 not_found, and no secret
  // reappears after creation.
  check(
    'POST /hooks subscribes each event at the 512-character limit; DELETE answers 204 then 404; secrets are shown once',
    {
      verifies: [
        'HOOKS-CREATE',
        'HOOKS-EVENT-ENUM',
        'HOOKS-SEVERAL-SUBSCRIPTIONS',
        'HOOKS-TARGET-MAX-512',
        'HOOKS-SECRET-ONCE',
        'HOOKS-DELETE-SOFT',
        'HOOKS-DELETE-TWICE-404',
        'HOOKS-MAX-SUBSCRIPTIONS',
        'CONTRACT-DOCUMENTED-STATUS',
      ],
      needs: { tokens: ['all'] },
      // Per event kind a POST and a DELETE; once more for HTTPS://; the second DELETE.
      requests:
        2 * ((eventsRotate ? probesPlanned(eventTypes.length, EVENTS_PER_RUN_WATCHED) : eventTypes.length) + 1) + 1,
      ...(eventsRotate
        ? {
            probes: probeRotation(
              'HOOKS-EVENT-ENUM',
              eventTypes,
              EVENTS_PER_RUN_WATCHED,
              eventTypes.map(() => 2),
            ),
          }
        : {}),
    },
    async (t) => {
      const target = urlOfLength(t.target.receiverPublicUrl ?? NOWHERE, limits.targetUrlMaxLength);
      const subscriptions: Subscription[] = [];
      const events = eventsRotate
        ? probesForRun(t, eventTypes, EVENTS_PER_RUN_WATCHED, 'HOOKS-EVENT-ENUM', String)
        : eventTypes;
      // One per event, plus a second subscription of the first to the same target: two
      // subscriptions of one event and target must still get distinct ids and secrets.
      // The first body says its charset: a JSON body is JSON whatever the media type's parameters say
      // (the negative-data property draws these too, but runs embedded only; this request runs everywhere).
      for (const [index, event] of events.entries()) {
        subscriptions.push(
          await subscribe(t, {
            event,
            targetUrl: target,
            ...(index === 0 ? { contentType: 'application/json; charset=utf-8' } : {}),
          }),
        );
      }
      // The URI scheme is case-insensitive (RFC 3986 §3.1): HTTPS://… is an https URI, at the limit too.
      subscriptions.push(await subscribe(t, { event: events[0]!, targetUrl: target.replace(/^https:/, 'HTTPS:') }));
      const ids = new Set(subscriptions.map((s) => s.id));
      const secrets = subscriptions.map((s) => s.secret);
      t.ensure(
        ids.size === subscriptions.length,
        `POST /hooks returned ${ids.size} distinct ids for ${subscriptions.length} subscriptions`,
      );
      t.ensure(
        new Set(secrets).size === secrets.length,
        'two subscriptions of the same event and target got the same secret',
      );
      t.observe(
        'HOOKS-MAX-SUBSCRIPTIONS',
        `${subscriptions.length} subscriptions of one account coexisted; no limit was met`,
      );

      const later: Exchange[] = [];
      for (const subscription of subscriptions) {
        const deletion = await subscription.remove();
        later.push(deletion);
        t.ensure(
          deletion.status === 204,
          `DELETE /hooks/{id} of an active subscription: expected 204, got ${codeOf(deletion)}`,
        );
        t.ensure(
          deletion.rawBody === '',
          `DELETE /hooks/{id} answered 204 with a body (${deletion.rawBody.length} bytes), must have none`,
        );
      }
      const again = await t.call({ method: 'DELETE', path: `/hooks/${subscriptions[0]!.id}`, token: t.token('all') });
      later.push(again);
      t.ensure(
        again.status === 404,
        `DELETE /hooks/{id} of an already disabled subscription: expected 404 not_found, got ${codeOf(again)}`,
      );
      expectError(t, again, 404, 'not_found');
      const leaked = secretsIn(later, secrets);
      t.ensure(
        leaked.length === 0,
        `${leaked.length} signing secret(s) reappeared in a response after creation (DELETE answers): a ` +
          `secret is returned only once`,
      );
    },
  );

  check(
    'DELETE /hooks/{id} answers 404 not_found, in JSON, for a UUID that names no hook',
    {
      verifies: [
        'HOOKS-DELETE-UNKNOWN-404',
        'FORMAT-ERROR-BODY',
        'FORMAT-JSON-CONTENT-TYPE',
        'CONTRACT-ERROR-CODE-PER-STATUS',
      ],
      needs: { tokens: ['write:hooks'] },
      requests: 1,
    },
    async (t) => {
      const exchange = await t.call({
        method: 'DELETE',
        path: `/hooks/${randomUUID()}`,
        token: t.token('write:hooks'),
      });
      t.ensure(
        exchange.status === 404,
        `DELETE /hooks/{unknown uuid}: expected 404 not_found, got ${codeOf(exchange)}`,
      );
      expectError(t, exchange, 404, 'not_found');
    },
  );

  // Not a UUID: 35 characters, a non-hex digit, braces, one character more. A UUID of another
  // version than 4 may get either answer; which one is recorded.
  check(
    'DELETE /hooks/{id} answers 400 invalid_input to an id that is not a UUID, and 400 or 404 to a non-v4 UUID',
    {
      verifies: ['HOOKS-DELETE-NON-UUID-400', 'HOOKS-DELETE-UUID-VERSION', 'CONTRACT-ERROR-CODE-PER-STATUS'],
      needs: { tokens: ['write:hooks'] },
      requests: probesPlanned(deleteIdProbes.length, 1),
      probes: probeRotation(
        'HOOKS-DELETE-NON-UUID-400',
        deleteIdProbes.map((p) => p.what),
        1,
      ),
    },
    async (t) => {
      for (const probe of probesForRun(t, deleteIdProbes, 1, 'HOOKS-DELETE-NON-UUID-400', (p) => p.what)) {
        const exchange = await t.call({
          method: 'DELETE',
          path: `/hooks/${encodeURIComponent(probe.id)}`,
          token: t.token('write:hooks'),
        });
        if (probe.either === true) {
          // "UUID v4" in the spec, "id not a UUID" in its error table: both answers are a reading of it.
          t.observe('HOOKS-DELETE-UUID-VERSION', `DELETE /hooks/{${probe.what}} answered ${codeOf(exchange)}`);
          t.ensure(
            exchange.status === 400 || exchange.status === 404,
            `DELETE /hooks/{${probe.what}}: expected 400 invalid_input (not v4) or 404 not_found (a UUID ` +
              `naming no hook), got ${codeOf(exchange)}`,
          );
          expectError(t, exchange, exchange.status!, exchange.status === 400 ? 'invalid_input' : 'not_found');
        } else {
          t.ensure(
            exchange.status === 400,
            `DELETE /hooks/{${probe.what}}: expected 400 invalid_input, got ${codeOf(exchange)}`,
          );
          expectError(t, exchange, 400, 'invalid_input');
        }
      }
    },
  );

  check(
    "DELETE /hooks/{id} of another account's hook answers 404 not_found and leaves it active",
    {
      verifies: ['HOOKS-DELETE-FOREIGN-404'],
      needs: { tokens: ['all', 'noDialer'] },
      requests: 3,
    },
    async (t) => {
      // The noDialer token belongs to another account than `all`.
      const foreign = await subscribe(t, {
        event: 'dnc.added',
        tokenName: 'noDialer',
        targetUrl: `${t.target.receiverPublicUrl ?? NOWHERE}/hooks/foreign/${randomUUID().slice(0, 8)}`,
      });
      const exchange = await t.call({ method: 'DELETE', path: `/hooks/${foreign.id}`, token: t.token('all') });
      t.ensure(
        exchange.status === 404,
        `DELETE of another account's hook: expected 404 not_found, got ${codeOf(exchange)}`,
      );
      expectError(t, exchange, 404, 'not_found');
      if (t.control.offers('hook-attempts')) {
        const view = await t.control.hook(foreign.id);
        t.ensure(
          view?.status === 'active',
          `after another account's DELETE the hook is ${view?.status ?? 'gone'}, must still be active`,
        );
      }
      // Its owner can still delete it: it was left active.
      const own = await foreign.remove();
      t.ensure(
        own.status === 204,
        `DELETE by the owning account after a foreign DELETE: expected 204 (still active), got ${codeOf(own)}`,
      );
    },
  );

  check(
    'A soft-deleted hook keeps its delivery history (seen through the control endpoint)',
    {
      verifies: ['HOOKS-DELETE-HISTORY-KEPT', 'HOOKS-DELETE-SOFT'],
      needs: { tokens: ['all'], control: ['event-emitted', 'hook-attempts'], webhooks: true },
      requests: 2,
    },
    async (t) => {
      const hook = await subscribe(t, { event: 'lead.completed' });
      const { eventId } = await t.control.emit('lead.completed');
      await awaitEmitted(t, hook, [eventId], 'the lead.completed subscription');
      t.expectStatus(await hook.remove(), 204);
      const view = await t.control.hook(hook.id);
      if (view === undefined)
        return t.fail(
          'after DELETE the subscription record is gone: a soft delete keeps it, with its delivery history',
        );
      t.ensure(view.status === 'disabled', `after DELETE the subscription is ${view.status}, must be disabled`);
      t.ensure(
        view.deliveries.some((d) => d.eventId === eventId),
        `after DELETE the delivery history lacks event ${eventId}`,
      );
    },
  );
});

describe('POST /hooks: validation (400 invalid_input)', () => {
  for (const c of hookValidationProbes) {
    check(
      `POST /hooks answers 400 invalid_input to ${c.title}`,
      {
        verifies: [c.verifies, 'FORMAT-ERROR-BODY', 'CONTRACT-ERROR-CODE-PER-STATUS'],
        needs: { tokens: ['write:hooks'] },
        requests: probesPlanned(c.probes.length, c.perRun),
        probes: probeRotation(
          c.verifies,
          c.probes.map((p) => p.what),
          c.perRun,
        ),
      },
      async (t) => {
        for (const { body, what } of probesForRun(t, c.probes, c.perRun, c.verifies, (p) => p.what))
          await expectCreationRefused(t, body, what);
      },
    );
  }
});

// Against a remote target whose deliveries the run watches, the watch's deleted subscription
// decides this over the whole budget (webhook-watch.judge.suite.ts), and these requests are saved.
const watched = session().target.kind === 'remote' && watchOpens(session().target);

if (!watched)
  describe('No API operation emits an event', () => {
    check(
      'Creating and deleting a hook sends it no delivery',
      {
        verifies: ['HOOKS-NO-DIRECT-EMIT'],
        needs: { tokens: ['all'], webhooks: true },
        requests: 4,
      },
      async (t) => {
        const emits = t.control.offers('event-emitted');
        // The account's other events reach every subscription of the kind (control-openapi.json,
        // Events): one the witness, subscribed first, received too was not sent by the hook's creation.
        const witness = emits ? await subscribe(t, { event: 'call.transferred' }) : undefined;
        const hook = await subscribe(t, { event: 'call.transferred' });
        let expected: readonly string[] = [];
        if (emits) {
          // A delivery that must arrive, so that "nothing else arrived" means something.
          const { eventId, eventIds } = await t.control.emit('call.transferred');
          expected = eventIds;
          await awaitEmitted(t, hook, [eventId], 'the call.transferred subscription');
        } else {
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        t.expectStatus(await hook.remove(), 204);
        await t.control.settle(300);
        const seenByWitness = witness === undefined ? [] : await t.receiver.deliveries(witness.path);
        const broadcast = (id: string) => expected.includes(id) || seenByWitness.some((d) => d.eventId === id);
        const arrived = await t.receiver.deliveries(hook.path);
        // What the receiver refused unread for its own reason is nobody's to name: judged last.
        const unexpected = arrived.filter(
          (d) => d.refusal?.fault !== 'receiver' && (d.eventId === undefined || !broadcast(d.eventId)),
        );
        t.ensure(
          unexpected.length === 0,
          `creating or deleting the hook sent ${unexpected.length} delivery(ies) to it (event ` +
            `${unexpected.map((d) => String((d.json as { event?: unknown } | undefined)?.event)).join(', ')}): ` +
            `no API operation emits events`,
        );
        notVerifiableIfReceiverRefused(t, hook.path, arrived, 'the call.transferred subscription');
      },
    );
  });
