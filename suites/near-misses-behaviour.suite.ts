/**
 * The behavioural near-miss operators (operators/, docs/near-misses.md "Behavioural families"),
 * each applied to every place of the contract it fits: the state table's transitions, the
 * one-time values of openapi.json, the quantity words' places, the bodiless answers, the
 * forwarding headers. The probes come from the operators; this file sends them and maps their
 * verdicts to the catalogue's requirements.
 */
import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { limits } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import { codeOf } from '../harness/checks/verdicts.ts';
import type { Exchange } from '../harness/http/client.ts';
import { rawExchange } from '../harness/http/raw.ts';
import { consecutiveFailures, driveDelivery, driveHook } from '../harness/seams/delivery-driver.ts';
import { VIRTUAL_TIME_DELIVERIES } from '../harness/seams/event-watch.ts';
import { journalCreated, journalDeleted } from '../harness/run/journal.ts';
import { subscribe } from '../harness/seams/subscriptions.ts';
import { kindsOfOneCall, sharedEventIds } from '../operators/event-identity.ts';
import { bodilessAnswers, framingProblems, parseRaw } from '../operators/framing.ts';
import { judgeSecondAnswer, oneTimeValues } from '../operators/one-time-values.ts';
import { allQuantityProbes } from '../operators/quantities.ts';
import {
  judgeConcurrentCreation,
  judgeConcurrentDouble,
  judgeUseAfter,
  transitionProbes,
  type TransitionProbe,
} from '../operators/transitions.ts';
import { behaviourTurn } from './rules/near-misses.ts';

const NOWHERE = 'https://example.invalid';

const doubles = transitionProbes().filter((p) => p.id === 'NM-CONCURRENT-TRANSITION');
const useAfter = (double: TransitionProbe) =>
  transitionProbes().find((p) => p.id === 'NM-USE-AFTER-TRANSITION' && p.operation === double.operation)!;
// "consecutive": n − 1 failures, a success, n − 1 failures must leave the subscription active
// (the count starts again at a success). The bound itself (n − 1 active, n disabled) is
// webhook-delivery.suite.ts's; "immediately" (the very next request) is auth.suite.ts's revocation check.
const resets = allQuantityProbes().filter((p) => p.kind === 'reset');

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
const errorOf = (json: unknown) => (json as { error?: string } | undefined)?.error;

/** A move's double: one resource in its `from` state, the request twice at once, then once more. */
async function moveDouble(t: CheckTools, probe: TransitionProbe): Promise<void> {
  if (probe.operation !== 'DELETE /hooks/{id}') return t.fail(`check bug: no way to reach ${probe.operation}`);
  const hook = await subscribe(t, {
    event: 'dnc.added',
    targetUrl: `${t.target.receiverPublicUrl ?? NOWHERE}/nm/transition/${randomUUID().slice(0, 8)}`,
  });
  const send = () => t.call({ method: 'DELETE', path: `/hooks/${hook.id}`, token: t.token('all') });
  // Both requests leave before either answer is read: the target decides their order.
  // (One of them is the subscription's own removal, which journals the deletion.)
  const both = await Promise.all([hook.remove(), send()]);
  const seen = both.map((e) => ({ status: e.status, error: errorOf(e.json) })) as [
    { status: number | undefined; error: string | undefined },
    { status: number | undefined; error: string | undefined },
  ];
  const problem = judgeConcurrentDouble(probe, seen);
  t.ensure(problem === undefined, problem ?? '');
  const after = await send();
  const late = judgeUseAfter(useAfter(probe), { status: after.status, error: errorOf(after.json) });
  t.verify('HOOKS-DELETE-TWICE-404', late === undefined, late ?? '');
}

/**
 * A creation's double: the same request twice at once (two creations, or one refused: recorded),
 * then each created resource in its next state answers the row it moves by (its DELETE: 204),
 * which also removes it.
 */
async function createDouble(t: CheckTools, probe: TransitionProbe): Promise<void> {
  if (probe.operation !== 'POST /hooks' || probe.usedBy !== 'DELETE /hooks/{id}')
    return t.fail(`check bug: no way to send ${probe.operation} and ${probe.usedBy}`);
  const token = t.token('write:hooks');
  const body = {
    event: 'dnc.added',
    target_url: `${t.target.receiverPublicUrl ?? NOWHERE}/nm/double/${randomUUID().slice(0, 8)}`,
  };
  const post = () => t.call({ method: 'POST', path: '/hooks', token, json: body });
  const both = (await Promise.all([post(), post()])) as [Exchange, Exchange];
  const left = new Set<string>();
  for (const e of both) {
    const id = (e.json as { id?: unknown } | undefined)?.id;
    if (e.status !== 200 || typeof id !== 'string' || left.has(id)) continue;
    left.add(id);
    await journalCreated(id, 'write:hooks');
  }
  const remove = async (id: string) => {
    const gone = await t.call({ method: 'DELETE', path: `/hooks/${id}`, token });
    if (gone.status === 204 || gone.status === 404) {
      left.delete(id);
      await journalDeleted(id, 'write:hooks');
    }
    return gone;
  };
  t.onCleanup(async () => {
    for (const id of [...left]) await remove(id);
  });
  const verdict = judgeConcurrentCreation(probe, both);
  if (verdict.reading !== undefined)
    t.observe('HOOKS-CREATE', `two identical ${probe.operation} sent at once: ${verdict.reading}`);
  // A value given once that both answers carried fails its own requirement too.
  const failing = verdict.givenTwice.length > 0 ? (['HOOKS-CREATE', 'HOOKS-SECRET-ONCE'] as const) : 'HOOKS-CREATE';
  t.verify(failing, verdict.problem === undefined, verdict.problem ?? '');
  for (const id of [...new Set(verdict.created)]) {
    const gone = await remove(id);
    const late = judgeUseAfter(useAfter(probe), { status: gone.status, error: errorOf(gone.json) });
    t.verify('HOOKS-CREATE', late === undefined, `${late ?? ''} (id ${id})`);
  }
}

describe('Near misses: transitions of the state table', () => {
  for (const probe of doubles) {
    const move = probe.kind === 'move';
    check(
      move
        ? `near miss (transitions): ${probe.operation} sent twice at once to ${article(probe.from)} ${probe.from} ` +
            `subscription: exactly one moves it to ${probe.next}, and once more after it answers ${probe.after.status}`
        : `near miss (transitions): ${probe.operation} sent twice at once with one body: two subscriptions of their ` +
            `own or one refused, each then ${probe.next} (${probe.usedBy} answers ${probe.after.status})`,
      {
        verifies: move ? ['HOOKS-DELETE-SOFT', 'HOOKS-DELETE-TWICE-404'] : ['HOOKS-CREATE', 'HOOKS-SECRET-ONCE'],
        needs: { tokens: move ? ['all'] : ['write:hooks'] },
        // Move: the resource, the two at once, the one after. Create: the two at once, a DELETE of each.
        turn: behaviourTurn(`the double of ${probe.operation}`),
        requests: 4,
        unwatchedSubscriptions: true,
      },
      (t) => (move ? moveDouble(t, probe) : createDouble(t, probe)),
    );
  }
});

describe('Near misses: one-time values', () => {
  for (const value of oneTimeValues()) {
    check(
      `near miss (one-time values): the ${value.field} of ${value.operation} is never given twice: ` +
        'an identical second request gets a new one or a refusal',
      {
        verifies: ['HOOKS-SECRET-ONCE'],
        needs: { tokens: ['write:hooks'] },
        // Two identical POST /hooks, and the DELETE of each subscription made.
        turn: behaviourTurn(`the ${value.field} of ${value.operation} asked twice`),
        requests: 4,
        unwatchedSubscriptions: true,
      },
      async (t) => {
        const body = {
          event: 'dnc.added',
          target_url: `${t.target.receiverPublicUrl ?? NOWHERE}/nm/once/${randomUUID().slice(0, 8)}`,
        };
        const token = t.token('write:hooks');
        const created = new Set<string>();
        const post = async () => {
          const exchange = await t.call({ method: 'POST', path: '/hooks', token, json: body });
          const id = (exchange.json as { id?: unknown } | undefined)?.id;
          if (exchange.status === 200 && typeof id === 'string' && !created.has(id)) {
            created.add(id);
            await journalCreated(id, 'write:hooks');
            t.onCleanup(async () => {
              const gone = await t.call({ method: 'DELETE', path: `/hooks/${id}`, token });
              if (gone.status === 204 || gone.status === 404) await journalDeleted(id, 'write:hooks');
            });
          }
          return exchange;
        };
        const first = await post();
        t.expectStatus(first, 200);
        const second = await post();
        const verdict = judgeSecondAnswer(value, first.json as Record<string, unknown>, second);
        if (verdict.reading !== undefined)
          t.observe(
            'HOOKS-SECRET-ONCE',
            `an identical second ${value.operation} was answered ${codeOf(second)}: ${verdict.reading}`,
          );
        t.ensure(verdict.problem === undefined, verdict.problem ?? '');
      },
    );
  }
});

describe('Near misses: words of quantity', () => {
  for (const probe of resets) {
    const n = probe.place.n ?? limits.webhookAutoDisableAfterConsecutiveFailures;
    check(
      `near miss (quantities): "${probe.place.word}" counts in a row: ${n - 1} failures, a success, ` +
        `${n - 1} failures leave the ${probe.place.place} active`,
      {
        verifies: ['WEBHOOK-AUTO-DISABLE-10', 'WEBHOOK-RECOVERY-BEFORE-10'],
        needs: { tokens: ['all'], control: VIRTUAL_TIME_DELIVERIES, webhooks: true },
        turn: behaviourTurn(`"${probe.place.word}" reset by a success`),
        requests: 2,
      },
      async (t) => {
        // The receiver answers arrivals in order, whichever event they carry: n − 1 failures, one
        // success, then failures.
        const hook = await subscribe(t, {
          event: 'disposition.set',
          plan: [{ status: 500, times: n - 1 }, { status: 200, times: 1 }, { status: 500 }],
        });
        const first = await t.control.emit('disposition.set');
        await driveDelivery(t.control, hook.id, first.eventId, () => false);
        await t.control.emit('disposition.set');
        const upTo = (count: number) => (view: NonNullable<Awaited<ReturnType<typeof t.control.hook>>>) =>
          consecutiveFailures(view) >= count || view.status !== 'active';
        const view = await driveHook(t.control, hook.id, upTo(n - 1));
        const arrived = await t.receiver.deliveries(hook.path);
        const succeeded = arrived.some((d) => d.answeredStatus === 200);
        t.ensure(succeeded, `no delivery reached the success between the failures (${arrived.length} arrived)`);
        // Other events of the account may fail there too: only n in a row (the target's own record) disable.
        const inRow = consecutiveFailures(view);
        t.ensure(
          view?.status === 'active' || inRow >= n,
          `after ${n - 1} failures, a success and ${inRow} failures the subscription is ${view?.status} ` +
            `(${view?.disabledReason ?? ''}): "${probe.place.sentence}" counts failures in a row, a success ` +
            'starts the count again',
        );
      },
    );
  }
});

describe('Near misses: identity of events', () => {
  check(
    'near miss (event identity): distinct events of every kind of one call carry distinct eventIds',
    {
      verifies: ['EVENT-ID-PRESENT-UNIQUE'],
      // The target's control endpoint states the eventId each payload carries (control-openapi.json).
      needs: { tokens: ['all'], control: ['event-emitted'] },
      requests: 0,
    },
    async (t) => {
      const callId = randomUUID();
      const events: { kind: string; eventId: string }[] = [];
      for (const kind of kindsOfOneCall()) {
        const emitted = await t.control.emit(kind, { callId });
        for (const eventId of emitted.eventIds)
          events.push({ kind: eventId === emitted.eventId ? kind : `another event of the ${kind} set`, eventId });
        // A target that emits a call's whole set at once (control-openapi.json) has given the call's
        // events: a second set would end the same call twice (two call.ended of one callId).
        if (emitted.eventIds.length > 1) break;
      }
      const shared = sharedEventIds(events);
      t.ensure(shared.length === 0, `events of one call (callId ${callId}): ${shared.join('; ')}`);
    },
  );
});

describe('Near misses: framing on the wire', () => {
  for (const answer of bodilessAnswers()) {
    check(
      `near miss (framing): ${answer.method} ${answer.path} answers ${answer.status} with no body bytes on the ` +
        'wire, and no length it does not send',
      {
        verifies: ['HOOKS-DELETE-SOFT'],
        needs: { tokens: ['all'] },
        // POST /hooks, the DELETE read byte for byte, the clean-up's DELETE (a 404 once deleted).
        turn: behaviourTurn(`the bytes of ${answer.method} ${answer.path} ${answer.status}`),
        requests: 3,
        unwatchedSubscriptions: true,
      },
      async (t) => {
        const hook = await subscribe(t, {
          event: 'dnc.added',
          targetUrl: `${t.target.receiverPublicUrl ?? NOWHERE}/nm/framing/${randomUUID().slice(0, 8)}`,
        });
        let bytes: Buffer;
        try {
          bytes = await rawExchange({
            method: answer.method,
            url: `${t.target.baseUrl}${answer.path.replace('{id}', hook.id)}`,
            headers: { authorization: `Bearer ${t.token('all')}`, accept: 'application/json' },
          });
        } catch (error) {
          return t.notVerifiable(`the raw request could not be sent: ${(error as Error).message}`);
        }
        const raw = parseRaw(bytes);
        if (raw === undefined)
          return t.fail(`the answer to ${answer.method} ${answer.path} is not an HTTP/1.1 response`);
        t.ensure(raw.status === Number(answer.status), `expected ${answer.status}, got ${raw.status}`);
        const problems = framingProblems(raw);
        t.ensure(problems.length === 0, `${answer.method} ${answer.path}: ${problems.join('; ')}`);
      },
    );
  }
});
