/**
 * The delivery rules, driven on the embedded reference: the receiver answers by plan, the
 * dispatcher's backoff runs in virtual time (moved by the control API), attempts are read from
 * both sides (what arrived at the receiver, what the reference recorded).
 *
 * The target may deliver other events of the account to the same subscription (control-openapi.json,
 * Events): attempts are counted per event, those of the events the setup emitted, while
 * auto-disable, a rule of the subscription, counts the failures in a row of every delivery to it.
 */
import { describe } from 'vitest';
import { limits } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import {
  consecutiveFailures,
  deliveryOf,
  driveDelivery,
  driveHook,
  otherEventIds,
} from '../harness/seams/delivery-driver.ts';
import { VIRTUAL_TIME_DELIVERIES, watchOpens } from '../harness/seams/event-watch.ts';
import { turnOf } from '../harness/scheduling/rotation.ts';
import { session } from '../harness/run/session.ts';
import { subscribe, type Subscription } from '../harness/seams/subscriptions.ts';
import { ARRIVAL_JITTER_MS, codeOf, expectError, intervals, intervalsGrow } from '../harness/checks/verdicts.ts';
import type { ResponsePlan } from '../harness/webhooks/receiver.ts';
import type { HookView } from '../harness/seams/control-client.ts';
import { eventIdOf, signatureDiagnosis, signatureFreshnessProblem } from '../harness/checks/delivery-verdicts.ts';
import type { ReceivedDelivery } from '../harness/seams/receiver-client.ts';
import { readableArrivals } from '../harness/seams/emitted-arrivals.ts';

const HOUR_MS = 3_600_000;
const HORIZON_MS = limits.webhookRetryHorizonHours * HOUR_MS;
const DISABLE_AFTER = limits.webhookAutoDisableAfterConsecutiveFailures;
const needs = { tokens: ['all'], control: VIRTUAL_TIME_DELIVERIES, webhooks: true } as const;

// Remotely the run's watch also judges both rules on every delivery it sees (a 2xx answer to the
// kinds answering 200, a 410 to call.ended: webhook-watch.judge.suite.ts), so these two take
// turns, one per run (the request budget).
const firstAnswer = ['2xx', '4xx'] as const;
const firstAnswerTurn = (which: (typeof firstAnswer)[number]) =>
  turnOf(
    firstAnswer,
    which,
    1,
    session().target.kind === 'remote' && watchOpens(session().target),
    'the virtual-time checks of a first answer that ends the delivery',
  );

/**
 * A subscription answering by `plan` (`perEvent`: each event of it on its own), one event emitted
 * to it, and `arrived()`: what reached the receiver of the events the setup emitted, retries that
 * change the eventId included (every arrival but those of events the target lists as other
 * deliveries of the hook).
 */
async function deliveryUnderPlan(
  t: CheckTools,
  plan: ResponsePlan,
  perEvent = false,
): Promise<{ hook: Subscription; eventId: string; arrived: () => Promise<ReceivedDelivery[]> }> {
  const hook = await subscribe(t, { event: 'disposition.set', plan, perEvent });
  const { eventId, eventIds } = await t.control.emit('disposition.set');
  const arrived = async () => {
    const others = otherEventIds(await t.control.hook(hook.id), eventIds);
    const all = await readableArrivals(t, hook.path, 'the disposition.set subscription');
    return all.filter((d) => !others.includes(eventIdOf(d) ?? ''));
  };
  return { hook, eventId, arrived };
}

const minutes = (ms: number) => `${Math.round(ms / 600) / 100} min`;

describe('Webhook delivery rules (virtual time on the embedded reference)', () => {
  check(
    'A 2xx answer acknowledges the delivery: no further attempt follows',
    {
      verifies: ['WEBHOOK-ACK-2XX'],
      needs,
      requests: 2,
      turn: firstAnswerTurn('2xx'),
    },
    async (t) => {
      const { hook, eventId, arrived: arrivals } = await deliveryUnderPlan(t, [{ status: 202 }]);
      await driveDelivery(t.control, hook.id, eventId, () => false, 3);
      await t.control.advanceClock(2 * HOUR_MS);
      await t.control.idle();
      const arrived = await arrivals();
      const view = deliveryOf(await t.control.hook(hook.id), eventId);
      t.ensure(
        arrived.length === 1,
        `a delivery answered 202 was attempted ${arrived.length} times within 2 h, must be once`,
      );
      t.ensure(
        view?.attempts.length === 1,
        `the reference recorded ${view?.attempts.length ?? 0} attempts of an acknowledged delivery`,
      );
    },
  );

  check(
    'A 4xx answer is a permanent failure: exactly one attempt',
    {
      verifies: ['WEBHOOK-4XX-NO-RETRY'],
      needs,
      requests: 2,
      turn: firstAnswerTurn('4xx'),
    },
    async (t) => {
      const { hook, eventId, arrived: arrivals } = await deliveryUnderPlan(t, [{ status: 410 }]);
      await driveDelivery(t.control, hook.id, eventId, (attempts) => attempts >= 3, 5);
      await t.control.advanceClock(2 * HOUR_MS);
      await t.control.idle();
      const arrived = await arrivals();
      t.ensure(
        arrived.length === 1,
        `a delivery answered 410 was attempted ${arrived.length} times, must be exactly once (4xx is permanent)`,
      );
    },
  );

  // The intervals are recorded.
  check(
    'A 5xx answer is retried with growing intervals, the same eventId and a valid signature on every attempt',
    {
      verifies: [
        'WEBHOOK-5XX-RETRY',
        'WEBHOOK-BACKOFF-EXPONENTIAL',
        'WEBHOOK-RETRY-SAME-EVENT',
        'WEBHOOK-TIMEOUT-AND-BACKOFF-VALUES',
      ],
      needs,
      requests: 2,
    },
    async (t) => {
      const wanted = 5;
      const { hook, eventId, arrived: arrivals } = await deliveryUnderPlan(t, [{ status: 503 }]);
      const view = await driveDelivery(t.control, hook.id, eventId, (attempts) => attempts >= wanted);
      const attempts = deliveryOf(view, eventId)?.attempts ?? [];
      const arrived = await arrivals();
      // Other events failing at the same subscription count toward its auto-disable too, which
      // then ends this delivery's retries sooner: three attempts still show the backoff.
      const disabledEarly = view?.status === 'disabled' && consecutiveFailures(view) >= DISABLE_AFTER;
      t.ensure(
        arrived.length >= wanted || (disabledEarly && arrived.length >= 3),
        `a delivery answered 503 was attempted ${arrived.length} time(s) while its backoff ran, must be ` +
          `retried (expected ${wanted} attempts)`,
      );
      const gaps = intervals(attempts.map((a) => a.at));
      t.observe('WEBHOOK-TIMEOUT-AND-BACKOFF-VALUES', `intervals between attempts: ${gaps.map(minutes).join(', ')}`);
      // The target's own times carry the moment its clock fired each attempt after the suite moved it,
      // and a clock that also runs in real time adds a busy host's delays: the same tolerance as arrivals.
      t.ensure(
        intervalsGrow(gaps, ARRIVAL_JITTER_MS),
        `intervals between retries are ${gaps.map(minutes).join(', ')}: they must grow (exponential backoff: ` +
          `the last longer than the first, none shorter than half the one before)`,
      );
      const eventIds = new Set(
        arrived.map((d) => {
          try {
            return String((JSON.parse(d.rawBody) as { eventId?: unknown }).eventId);
          } catch {
            return '(not JSON)';
          }
        }),
      );
      t.ensure(
        eventIds.size === 1 && eventIds.has(eventId),
        `the attempts of one event carried eventIds ${[...eventIds].join(', ')}, must all carry ${eventId}`,
      );
      for (const d of arrived) {
        // Retries fire as the clock jumps: the target may sign them with its virtual clock.
        const problem =
          signatureDiagnosis(d, hook.secret) ??
          signatureFreshnessProblem(d, hook.secret, undefined, session().targetClock.fresh);
        t.ensure(problem === undefined, `attempt ${d.seq}: the signature does not verify (${problem})`);
      }
    },
  );

  check(
    'A delivery the receiver does not answer in time is retried',
    {
      verifies: ['WEBHOOK-TIMEOUT-RETRY', 'WEBHOOK-TIMEOUT-AND-BACKOFF-VALUES'],
      needs,
      requests: 2,
    },
    async (t) => {
      const started = Date.now();
      // Each event left unanswered once: another event of the account cannot take our event's turn.
      const plan: ResponsePlan = [{ hang: true, times: 1 }, { status: 200 }];
      const { hook, eventId, arrived: arrivals } = await deliveryUnderPlan(t, plan, true);
      const view = await driveDelivery(t.control, hook.id, eventId, (attempts) => attempts >= 2, 5);
      const attempts = deliveryOf(view, eventId)?.attempts ?? [];
      t.observe(
        'WEBHOOK-TIMEOUT-AND-BACKOFF-VALUES',
        `an unanswered attempt was given up after about ${Date.now() - started} ms real (first attempt: ` +
          `${attempts[0]?.outcome.kind ?? 'none'})`,
      );
      const arrived = await arrivals();
      t.ensure(
        arrived.length >= 2,
        `a delivery left unanswered was attempted ${arrived.length} time(s), must be retried`,
      );
      t.ensure(
        arrived[1]!.answeredStatus === 200,
        `the retry after a timeout was answered ${arrived[1]!.answeredStatus}, expected the receiver's 200`,
      );
    },
  );

  check(
    'After 10 consecutive failures the subscription is disabled (DELETE then 404), and not after 9',
    {
      verifies: ['WEBHOOK-AUTO-DISABLE-10'],
      needs,
      requests: 2,
    },
    async (t) => {
      const { hook } = await deliveryUnderPlan(t, [{ status: 500 }]);
      // The failures in a row of every delivery to the subscription: other events of the account
      // may fail there too. Stepped one scheduled attempt at a time, the ninth is seen.
      const upTo = (n: number) => (view: HookView) => consecutiveFailures(view) >= n || view.status !== 'active';
      const nine = await driveHook(t.control, hook.id, upTo(DISABLE_AFTER - 1));
      const failedNine = consecutiveFailures(nine);
      t.ensure(
        nine?.status === 'active' || failedNine >= DISABLE_AFTER,
        `after ${failedNine} consecutive failures the subscription is ${nine?.status} ` +
          `(${nine?.disabledReason ?? ''}), must stay active until the ${DISABLE_AFTER}th`,
      );
      t.ensure(
        failedNine >= DISABLE_AFTER - 1,
        `only ${failedNine} attempts were made of a failing delivery, expected ${DISABLE_AFTER - 1} by now`,
      );
      const ten = await driveHook(t.control, hook.id, upTo(DISABLE_AFTER));
      t.ensure(
        ten?.status === 'disabled' && ten.disabledReason === 'auto_disabled',
        `after ${DISABLE_AFTER} consecutive failures the subscription is ${ten?.status}, must be disabled ` +
          `(auto_disabled)`,
      );
      const deletion = await hook.remove();
      t.ensure(
        deletion.status === 404,
        `DELETE of an auto-disabled subscription: expected 404 not_found, got ${codeOf(deletion)}`,
      );
      expectError(t, deletion, 404, 'not_found');
    },
  );

  check(
    'A receiver that recovers before the tenth failure gets the event and the subscription stays active',
    {
      verifies: ['WEBHOOK-RECOVERY-BEFORE-10', 'WEBHOOK-AUTO-DISABLE-10'],
      needs,
      requests: 2,
    },
    async (t) => {
      // The receiver fails nine arrivals, whichever events they carry, then recovers.
      const {
        hook,
        eventId,
        arrived: arrivals,
      } = await deliveryUnderPlan(t, [{ status: 500, times: DISABLE_AFTER - 1 }, { status: 200 }]);
      const view = await driveDelivery(t.control, hook.id, eventId, () => false);
      const arrived = await arrivals();
      t.ensure(
        arrived.some((d) => d.answeredStatus === 200),
        `the receiver answered 500 ${DISABLE_AFTER - 1} times then would have answered 200, but only ` +
          `${arrived.length} attempts came: the event was never delivered`,
      );
      t.ensure(
        view?.status === 'active',
        `after recovering on attempt ${arrived.length} the subscription is ${view?.status} ` +
          `(${view?.disabledReason ?? ''}), must stay active`,
      );
    },
  );

  check(
    'No attempt is made more than 24 hours after the first',
    {
      verifies: ['WEBHOOK-RETRY-HORIZON-24H'],
      needs,
      requests: 2,
    },
    async (t) => {
      const { hook, eventId, arrived: arrivals } = await deliveryUnderPlan(t, [{ status: 500 }]);
      await driveDelivery(t.control, hook.id, eventId, () => false);
      // Past the horizon, whatever is still scheduled would fire.
      await t.control.advanceClock(HORIZON_MS + 6 * HOUR_MS);
      await t.control.idle();
      const attempts = deliveryOf(await t.control.hook(hook.id), eventId)?.attempts ?? [];
      const first = attempts[0]?.at ?? 0;
      const late = attempts.filter((a) => a.at - first > HORIZON_MS);
      t.ensure(attempts.length > 0, 'no attempt of the delivery was recorded');
      t.ensure(
        late.length === 0,
        `${late.length} attempt(s) came more than 24 h after the first (at ` +
          `+${late.map((a) => minutes(a.at - first)).join(', ')})`,
      );
      const arrived = await arrivals();
      t.ensure(
        arrived.length === attempts.length,
        `the receiver saw ${arrived.length} attempts, the reference recorded ${attempts.length}`,
      );
    },
  );
});
