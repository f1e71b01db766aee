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
import { consecutiveFailures, driveDelivery, driveHook } from '../harness/seams/delivery-driver.ts';
import { VIRTUAL_TIME_DELIVERIES } from '../harness/seams/event-watch.ts';
import { journalCreated, journalDeleted } from '../harness/run/journal.ts';
import { session } from '../harness/run/session.ts';
import { subscribe } from '../harness/seams/subscriptions.ts';
import { kindsOfOneCall, sharedEventIds } from '../operators/event-identity.ts';
import { bodilessAnswers, framingProblems, parseRaw } from '../operators/framing.ts';
import { judgeSecondAnswer, oneTimeValues } from '../operators/one-time-values.ts';
import { type FailureKind, judgeConsecutive, type QuantityProbe } from '../operators/quantities.ts';
import {
  judgeConcurrentCreation,
  judgeConcurrentDouble,
  judgeUseAfter,
  transitionProbes,
  type TransitionProbe,
} from '../operators/transitions.ts';
import {
  judgeAtHalf,
  readingAtEnd,
  statedSeconds,
  type TimeUnitProbe,
  timeUnitProbes,
} from '../operators/time-units.ts';
import { behaviourTurn, bindingDurations, consecutiveResets } from './rules/near-misses.ts';
import { basicAuthorization } from './rules/oauth.ts';
import { readableArrivals } from '../harness/seams/emitted-arrivals.ts';

const NOWHERE = 'https://example.invalid';

const doubles = transitionProbes().filter((p) => p.id === 'NM-CONCURRENT-TRANSITION');
const useAfter = (double: TransitionProbe) =>
  transitionProbes().find((p) => p.id === 'NM-USE-AFTER-TRANSITION' && p.operation === double.operation)!;
// The 5xx bound alone (9 active, 10 disabled) is also webhook-delivery.suite.ts's; "immediately"
// (the very next request) is auth.suite.ts's revocation check.
const resets = consecutiveResets();

const timeUnits = bindingDurations();
/** The most the target's clock is moved to reach half of a stated lifetime (a "short-lived" token). */
const MAX_HALF_MS = 24 * 3_600_000;

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
const errorOf = (json: unknown) => (json as { error?: string } | undefined)?.error;

/** A move's double: one resource in its `from` state, the request twice at once, then once more. */
async function moveDouble(t: CheckTools, probe: TransitionProbe): Promise<void> {
  if (probe.operation !== 'DELETE /hooks/{id}') return t.fail(`check bug: no way to reach ${probe.operation}`);
  const hook = await subscribe(t, {
    event: 'dnc.added',
    targetUrl: `${t.target.receiverPublicUrl ?? NOWHERE}/nm/transition/${randomUUID().slice(0, 8)}`,
  });
  const request = { method: 'DELETE', path: `/hooks/${hook.id}`, token: t.token('all') };
  // Both requests leave at the same moment, before either answer is read: the target decides their order.
  const both = await t.callTogether([request, request]);
  const seen = both.map((e) => ({ status: e.status, error: errorOf(e.json) })) as [
    { status: number | undefined; error: string | undefined },
    { status: number | undefined; error: string | undefined },
  ];
  const problem = judgeConcurrentDouble(probe, seen);
  t.ensure(problem === undefined, problem ?? '');
  // The request again: the subscription's own removal, which journals the deletion.
  const after = await hook.remove();
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
  const post = { method: 'POST', path: '/hooks', token, json: body };
  const both = (await t.callTogether([post, post])) as [Exchange, Exchange];
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

type HookSeen = Awaited<ReturnType<CheckTools['control']['hook']>>;
const inRowAtLeast = (count: number) => (view: NonNullable<HookSeen>) =>
  consecutiveFailures(view) >= count || view.status !== 'active';

/**
 * One more failure of `failure`'s kind, up to `count` in a row (the target's record): a retried kind
 * fails again on the next attempt of the events pending; a permanent kind fails once per event, so
 * each failure is a new event, its one attempt awaited.
 */
async function failUpTo(t: CheckTools, hookId: string, failure: FailureKind, count: number): Promise<HookSeen> {
  if (failure.retried) return driveHook(t.control, hookId, inRowAtLeast(count));
  let view = await t.control.hook(hookId);
  for (let event = 0; event < 2 * count && view !== undefined && !inRowAtLeast(count)(view); event++) {
    await t.control.emit('disposition.set');
    await t.control.idle();
    view = await t.control.hook(hookId);
  }
  return view;
}

/**
 * "Auto-disable: endpoint disabled after 10 consecutive failures", once per kind of failure the
 * delivery rules name: n − 1 failures, a success, n − 1 failures leave the subscription active (a
 * success starts the count again); one failure more, n in a row, disables it. A permanent kind
 * (4xx) is one failure per event, so attempt-level and delivery-level counting agree; a retried
 * kind (5xx) fails on every attempt of one event.
 */
async function consecutiveOfKind(t: CheckTools, probe: QuantityProbe & { kind: 'reset' }): Promise<void> {
  const failure = probe.failure!;
  const n = probe.place.n ?? limits.webhookAutoDisableAfterConsecutiveFailures;
  // The receiver answers arrivals in order, whichever event they carry: n − 1 failures, one
  // success, then failures.
  const hook = await subscribe(t, {
    event: 'disposition.set',
    plan: [{ status: failure.status, times: n - 1 }, { status: 200, times: 1 }, { status: failure.status }],
  });
  if (failure.retried) {
    // One event fails n − 1 attempts and its next one succeeds; a second event fails from then on.
    const first = await t.control.emit('disposition.set');
    await driveDelivery(t.control, hook.id, first.eventId, () => false);
    await t.control.emit('disposition.set');
  } else {
    // n − 1 events fail, one succeeds; the events after it fail, one each.
    await failUpTo(t, hook.id, failure, n - 1);
    await t.control.emit('disposition.set');
    await t.control.idle();
  }
  const reset = await failUpTo(t, hook.id, failure, n - 1);
  const arrived = await readableArrivals(t, hook.path, 'the disposition.set subscription');
  t.ensure(
    arrived.some((d) => d.answeredStatus === 200),
    `no delivery reached the success between the failures (${arrived.length} arrived)`,
  );
  const atN = reset?.status === 'active' ? await failUpTo(t, hook.id, failure, n) : reset;
  const seen = {
    afterReset: { status: reset?.status, inRow: consecutiveFailures(reset) },
    afterN: { status: atN?.status, inRow: consecutiveFailures(atN) },
  };
  const attempts = (atN?.deliveries ?? []).flatMap((d) => d.attempts).length;
  t.observe(
    'WEBHOOK-AUTO-DISABLE-10',
    `${failure.answer} answers: ${seen.afterReset.inRow} in a row after a success left the subscription ` +
      `${seen.afterReset.status}; at ${seen.afterN.inRow} in a row it was ${seen.afterN.status} (${attempts} ` +
      `attempts over ${atN?.deliveries.length ?? 0} events${failure.retried ? '' : ', one attempt each'})`,
  );
  const problem = judgeConsecutive(probe.place, failure, seen);
  t.ensure(problem === undefined, problem ?? '');
}

describe('Near misses: words of quantity', () => {
  for (const probe of resets) {
    const n = probe.place.n ?? limits.webhookAutoDisableAfterConsecutiveFailures;
    const answer = probe.failure!.answer;
    check(
      `near miss (quantities): "${probe.place.word}" counts ${answer} answers in a row: ${n - 1} failures, a ` +
        `success, ${n - 1} failures leave the ${probe.place.place} active, one more disables it`,
      {
        verifies: ['WEBHOOK-AUTO-DISABLE-10', 'WEBHOOK-RECOVERY-BEFORE-10'],
        needs: { tokens: ['all'], control: VIRTUAL_TIME_DELIVERIES, webhooks: true },
        turn: behaviourTurn(`"${probe.place.word}" ${answer} failures reset by a success`),
        requests: 2,
      },
      (t) => consecutiveOfKind(t, probe),
    );
  }
});

/**
 * A token's stated lifetime held to on the target's clock: issued, then used at half of its
 * expires_in (accepted: RFC 6749 §5.1, seconds) and at its end (the answer recorded: token expiry
 * may run on either clock, control-openapi.json).
 */
async function tokenLifetime(t: CheckTools, duration: (typeof timeUnits)[number]): Promise<void> {
  const { clientId, clientSecret } = t.target.oauth!;
  const issued = await t.call({
    method: 'POST',
    path: `${t.target.authUrl}/oauth/token`,
    form: { grant_type: 'client_credentials' },
    authorization: basicAuthorization(clientId, clientSecret),
  });
  const token = (issued.json as { access_token?: unknown } | undefined)?.access_token;
  if (typeof token === 'string') session().api.redact.remember(token);
  if (issued.status !== 200 || typeof token !== 'string' || token === '')
    return t.notVerifiable(`the token endpoint issued no token (${codeOf(issued)}): AUTH-OAUTH-CLIENT-CREDENTIALS`);
  const seconds = statedSeconds(duration, { headers: issued.responseHeaders, json: issued.json });
  if (seconds === undefined)
    return t.observe(
      'AUTH-OAUTH-EXPIRES-IN',
      `the token answer states no ${duration.name} in whole seconds (${JSON.stringify(
        (issued.json as Record<string, unknown>)[duration.name],
      )}): no lifetime to hold it to (RFC 6749 §5.1: RECOMMENDED)`,
    );
  const [half, end] = timeUnitProbes(duration, seconds) as [TimeUnitProbe, TimeUnitProbe];
  if (half.atMs > MAX_HALF_MS)
    return t.notVerifiable(
      `${duration.name} states ${seconds} s: half of it is more than a day of the target's clock to move`,
    );
  await t.control.advanceClock(half.atMs);
  const atHalf = await t.call({ method: 'GET', path: '/me', token });
  const problem = judgeAtHalf(duration, seconds, atHalf.status);
  t.verify('AUTH-OAUTH-EXPIRES-IN', problem === undefined, problem ?? '');
  await t.control.advanceClock(end.atMs - half.atMs);
  const atEnd = await t.call({ method: 'GET', path: '/me', token });
  t.observe('AUTH-OAUTH-EXPIRES-IN', readingAtEnd(duration, seconds, atEnd.status));
}

describe('Near misses: units of time', () => {
  for (const duration of timeUnits) {
    check(
      `near miss (time units): the ${duration.name} of ${duration.answer} is honoured at half of it on the ` +
        "target's clock (its end: recorded)",
      {
        verifies: ['AUTH-OAUTH-EXPIRES-IN'],
        needs: { oauth: true, control: ['clock', 'clock-advanced'] },
        // The token, GET /me at half of its lifetime and at its end.
        turn: behaviourTurn(`the ${duration.name} of ${duration.answer}`),
        requests: 3,
      },
      (t) => tokenLifetime(t, duration),
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
        const bytes = await t.callRaw({
          method: answer.method,
          url: `${t.target.baseUrl}${answer.path.replace('{id}', hook.id)}`,
          headers: { authorization: `Bearer ${t.token('all')}`, accept: 'application/json' },
        });
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
