/**
 * Judges the run's watch of webhook deliveries (harness/seams/event-watch.ts), last in the run:
 * every delivery that reached a watched subscription is held to the delivery rules and its
 * kind's payload, whatever caused it; what the budget never showed is "not observed within N s",
 * never a pass. Checks that a single delivery can decide stop waiting as soon as it arrives (or
 * as soon as a delivery breaks their rule); the retry rules watch for the whole budget.
 */
import { EVERYTHING } from '../harness/scheduling/budget.ts';
import { describe } from 'vitest';
import { eventTypes, limits, type EventType } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import {
  additionalKeys,
  BASE_KEYS,
  payloadOf,
  postJsonProblem,
  signatureDiagnosis,
  signatureFormatProblem,
  signatureClock,
  signatureFreshnessProblem,
  signingClockObservation,
  timestampKeys,
} from '../harness/checks/delivery-verdicts.ts';
import {
  acknowledgesCallEnded,
  canOriginate,
  closeRequests,
  judgeWatch,
  WATCH_METADATA_MARKER,
  watchCallSteps,
  watchedKinds,
  watchesFailing,
  watchNeeds,
  type Watched,
  type WatchView,
} from '../harness/seams/event-watch.ts';
import { session } from '../harness/run/session.ts';
import { payloadRequirement } from './event-requirements.ts';
import { ARRIVAL_JITTER_MS, backoffReading, duplicates, intervals, intervalsGrow } from '../harness/checks/verdicts.ts';
import { describeRefusal, type ReceivedDelivery, type Refusal } from '../harness/seams/receiver-client.ts';
import { targetClockAdvancedBetween } from '../harness/seams/control-client.ts';
import type { Delivery } from '../harness/webhooks/receiver.ts';
import type { RequirementId } from '../requirements/catalogue.ts';
import {
  attemptsByEvent,
  deletedSubscriptionDeliveries,
  gapsAfter503,
  retriedAfter,
  trailingFailures,
  unread,
} from './rules/webhook-watch.ts';

const target = session().target;
const budget = target.webhookBudgetS;
const needs = watchNeeds(target);
const timeoutMs = (budget + 60) * 1000;
const notObserved = (what: string) => `${what} not observed within ${budget} s`;

/** The events the run caused have all arrived at their subscriptions (what a judge may wait for). */
function causedArrived(view: WatchView): boolean {
  const { callId, emitted } = view.watch;
  const callEnded = callId === undefined || view.of('kind', 'call.ended').some((d) => payloadOf(d)?.callId === callId);
  return callEnded && emitted.every((event) => view.of('kind', event).length > 0);
}

/** Where a delivery came and what it was, for messages (never the body's secrets: there are none). */
const where = ({ delivery, watched }: { delivery: Delivery; watched: Watched }) =>
  `a ${watched.subscription.event} delivery (#${delivery.seq}, ` +
  `${watched.role === 'kind' ? 'subscription' : `${watched.role} subscription`})`;

/**
 * One rule over every delivery: stops waiting at the first that breaks it, or when the caused
 * events arrived; `observe` records what the deliveries judged show where the rule leaves a choice.
 */
function everyDelivery(
  title: string,
  options: { verifies: readonly [RequirementId, ...RequirementId[]] },
  problem: (delivery: Delivery, watched: Watched) => string | undefined,
  observe?: (t: CheckTools, judged: ReadonlyArray<{ delivery: Delivery; watched: Watched }>) => Promise<void>,
): void {
  check(
    title,
    {
      verifies: options.verifies,
      needs,
      requests: 0,
      timeoutMs,
    },
    async (t) => {
      const judged = (view: WatchView) => view.all().filter(({ delivery }) => !unread(delivery));
      const broken = (view: WatchView) =>
        judged(view).filter(({ delivery, watched }) => problem(delivery, watched) !== undefined);
      const view = await judgeWatch(t, (v) => broken(v).length > 0 || causedArrived(v));
      const all = judged(view);
      if (all.length === 0) t.notVerifiable(notObserved('a delivery'));
      const bad = broken(view);
      await observe?.(t, all);
      t.ensure(
        bad.length === 0,
        `${bad.length} of ${all.length} deliveries break the rule; first: ${bad
          .slice(0, 3)
          .map((b) => `${where(b)} ${problem(b.delivery, b.watched)}`)
          .join('; ')}`,
      );
    },
  );
}

/** Another event kind a payload names under whatever key (taken at its word), when it names one. */
function namedOtherKind(payload: Record<string, unknown> | undefined, own: EventType): EventType | undefined {
  return Object.values(payload ?? {}).find(
    (v): v is EventType => typeof v === 'string' && (eventTypes as readonly string[]).includes(v) && v !== own,
  );
}

/** The spec's base fields of a payload: one event delivered to several subscriptions carries the same ones. */
function fingerprint(payload: Record<string, unknown>): string {
  return JSON.stringify(BASE_KEYS.filter((key) => key !== 'eventId').map((key) => payload[key]));
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 0)} s`;
const timeline = (attempts: readonly Delivery[]) =>
  `attempts at +${attempts.map((d) => seconds(d.receivedAt - attempts[0]!.receivedAt)).join(', +')}`;

/**
 * Why a delivery was not accepted (by the receiver, or by the suite's own verification), in the
 * receiver client's words; with `fault`, only a refusal for that one's reason (Refusal.fault: the
 * target's delivery, or the receiver's own, which is never the target's failure).
 */
function refusal(delivery: Delivery, fault?: Refusal['fault']): string | undefined {
  const judged = delivery as ReceivedDelivery;
  return judged.refusal === undefined || (fault !== undefined && judged.refusal.fault !== fault)
    ? undefined
    : describeRefusal(delivery.path, judged as ReceivedDelivery & { refusal: Refusal });
}

describe('Deliveries watched across the run: the delivery rules, on every delivery', () => {
  everyDelivery(
    'Every delivery is an HTTP POST with a JSON body and a JSON content type',
    {
      verifies: ['WEBHOOK-POST-JSON'],
    },
    (d) => postJsonProblem(d),
  );
  everyDelivery(
    'Every delivery carries X-Service-Signature: t=<unix>,v1=<hex>',
    {
      verifies: ['WEBHOOK-SIGNATURE-FORMAT'],
    },
    (d) => signatureFormatProblem(d),
  );
  everyDelivery(
    'Every delivery is signed with HMAC-SHA256 over t, a dot and the raw body, with the secret POST /hooks returned',
    {
      verifies: ['WEBHOOK-SIGNATURE-INPUT', 'WEBHOOK-SIGNATURE-KEY'],
    },
    (d, w) => {
      if (signatureFormatProblem(d) !== undefined) return undefined; // the format rule's verdict
      const diagnosis = signatureDiagnosis(d, w.subscription.secret);
      return diagnosis === undefined ? undefined : `does not verify with its subscription's secret: ${diagnosis}`;
    },
  );
  everyDelivery(
    'Every delivery is signed with a fresh timestamp (within 300 s of its arrival)',
    {
      verifies: ['WEBHOOK-SIGNATURE-FRESH'],
    },
    // On real time or on the clock the target reports: after clock-advanced it may sign with either.
    (d, w) => signatureFreshnessProblem(d, w.subscription.secret, undefined, session().targetClock.fresh),
    async (t, judged) => {
      const clock = session().targetClock;
      // Read the target's clock after the last of them, so each is judged against both clocks.
      if (judged.length > 0) await clock.cover(Math.max(...judged.map(({ delivery }) => delivery.receivedAt)));
      const clocks = judged.map(({ delivery, watched }) =>
        signatureClock(delivery, watched.subscription.secret, undefined, clock.fresh),
      );
      t.observe('WEBHOOK-SIGNATURE-FRESH', signingClockObservation(clocks));
    },
  );
  everyDelivery(
    'Every delivery carries the base fields as strings and an eventId',
    {
      verifies: ['EVENT-BASE-FIELDS', 'EVENT-ID-PRESENT-UNIQUE'],
    },
    (d) => {
      const payload = payloadOf(d);
      if (payload === undefined) return undefined; // the POST-JSON rule's verdict
      const problems = session().contract.checkSchema('EventBase', payload);
      return problems.length === 0 ? undefined : `breaks the base fields: ${problems.join('; ')}`;
    },
  );

  check(
    'Distinct events carry distinct eventIds: no eventId is shared by deliveries of different kinds or different calls',
    {
      verifies: ['EVENT-ID-PRESENT-UNIQUE'],
      needs,
      requests: 0,
      timeoutMs,
    },
    async (t) => {
      const view = await judgeWatch(t, causedArrived);
      const seen = new Map<string, string>();
      const clashes: string[] = [];
      for (const { delivery } of view.all()) {
        const payload = payloadOf(delivery);
        if (typeof payload?.eventId !== 'string') continue;
        // Same eventId and same base fields is one event (perhaps wrongly sent to another kind's
        // subscription: that is the next check's verdict).
        const identity = fingerprint(payload);
        const before = seen.get(payload.eventId);
        if (before !== undefined && before !== identity)
          clashes.push(`${payload.eventId} on events with base fields ${before} and ${identity}`);
        seen.set(payload.eventId, identity);
      }
      if (seen.size === 0) t.notVerifiable(notObserved('a delivery with an eventId'));
      t.ensure(clashes.length === 0, `one eventId names different events: ${clashes.slice(0, 3).join('; ')}`);
    },
  );
});

describe("Deliveries watched across the run: each kind's payload, and one kind per subscription", () => {
  // Kinds the run caused first: they stop waiting when their delivery arrives; the others wait out the budget.
  for (const event of eventTypes) {
    // Its timestamp field and the keys beyond the documented ones are recorded.
    check(
      `A ${event} delivery carries the payload openapi.json gives ${event}`,
      {
        verifies: [payloadRequirement[event], 'EVENT-TIMESTAMP-FIELD', 'EVENT-ADDITIONAL-KEYS'],
        needs,
        requests: 0,
        timeoutMs,
      },
      async (t) => {
        const rotation = watchedKinds(t.target);
        if (rotation.rotatedOut.includes(event))
          t.notVerifiable(
            `request budget: this run (${rotation.slice}) subscribes call.ended and ` +
              `${rotation.kinds.slice(1).join(', ')}; runs with other seeds subscribe ${event}`,
          );
        const view = await judgeWatch(t, (v) => v.of('kind', event).length > 0);
        // A payload naming another kind reached the wrong subscription: the one-kind check's verdict,
        // not this schema's.
        const payloads = view
          .all()
          .filter(({ watched }) => watched.subscription.event === event)
          .map(({ delivery }) => payloadOf(delivery))
          .filter((p) => p !== undefined && namedOtherKind(p, event) === undefined);
        if (payloads.length === 0) t.notVerifiable(notObserved(`a ${event} delivery`));
        for (const payload of payloads) {
          const problems = session().contract.checkEvent(event, payload);
          t.ensure(problems.length === 0, `a ${event} payload breaks its schema: ${problems.join('; ')}`);
        }
        const first = payloads[0]!;
        t.observe('EVENT-TIMESTAMP-FIELD', `${event}: date-time fields ${timestampKeys(first).join(', ') || 'none'}`);
        t.observe(
          'EVENT-ADDITIONAL-KEYS',
          `${event}: keys beyond the documented ones: ${additionalKeys(event, first).join(', ') || 'none'}`,
        );
      },
    );
  }

  check(
    'Each subscription receives only events of its own kind',
    {
      verifies: ['HOOKS-ONE-EVENT-PER-SUBSCRIPTION'],
      needs,
      requests: 0,
      timeoutMs,
    },
    async (t) => {
      const view = await judgeWatch(t, causedArrived);
      const kindOf = new Map<string, EventType>();
      const wrong: string[] = [];
      for (const { delivery, watched } of view.all()) {
        const payload = payloadOf(delivery);
        const own = watched.subscription.event;
        // A kind named in the payload, under whatever key, is taken at its word; so is an eventId met
        // under another kind.
        const named = namedOtherKind(payload, own);
        if (named !== undefined) wrong.push(`a ${named} event reached the ${own} subscription`);
        if (typeof payload?.eventId === 'string') {
          // One event (same eventId, same base fields) at subscriptions of two kinds; distinct events
          // sharing an eventId are EVENT-ID-PRESENT-UNIQUE's.
          const key = `${payload.eventId} ${fingerprint(payload)}`;
          const other = kindOf.get(key);
          if (other !== undefined && other !== own)
            wrong.push(`event ${payload.eventId} reached both a ${other} and a ${own} subscription`);
          kindOf.set(key, own);
        }
      }
      if (view.all().length === 0) t.notVerifiable(notObserved('a delivery'));
      t.ensure(wrong.length === 0, `${wrong.slice(0, 3).join('; ')}: one subscription covers one event kind`);
    },
  );
});

/** What the target's record of the watch's call shows: the states it went through, whether metadata stuck. */
async function observeRecord(t: CheckTools, callId: string): Promise<void> {
  let record: Record<string, unknown> | undefined;
  try {
    record = await t.control.call(callId);
  } catch (error) {
    // What the record shows is only observed: an inspection that fails is said, never the call's verdict.
    return t.observe('CALLS-TRANSITIONS', `the watch's call record could not be read: ${(error as Error).message}`);
  }
  const timeline = (record?.timeline as Array<{ status: string }> | undefined)?.map((step) => step.status) ?? [];
  t.observe('CALLS-TRANSITIONS', `the watch's call went through: ${timeline.join(' → ') || 'no record'}`);
  t.observe(
    'CALLS-METADATA-NOT-PERSISTED',
    JSON.stringify(record ?? {}).includes(WATCH_METADATA_MARKER)
      ? "the watch's call: metadata was persisted in its call record"
      : "the watch's call: metadata does not appear in its call record",
  );
}

describe('Deliveries watched across the run: the originated call and the deleted subscription', () => {
  check(
    'The callId of the originated call reappears in its call.ended delivery',
    {
      verifies: ['CALLS-CORRELATE-CALL-ENDED', 'CALLS-METADATA-NOT-PERSISTED', 'CALLS-TRANSITIONS'],
      needs: { ...needs, agents: ['provisioned'], originate: true },
      requests: 0,
      timeoutMs,
    },
    async (t) => {
      if (!canOriginate(t.target)) t.notVerifiable('no call was originated');
      const refused = (v: WatchView, fault: Refusal['fault'] = 'target') =>
        v
          .of('kind', 'call.ended')
          .map((d) => refusal(d, fault))
          .find((r) => r !== undefined);
      const view = await judgeWatch(t, (v) => causedArrived(v) || refused(v) !== undefined);
      const { callId } = view.watch;
      const steps = watchCallSteps();
      if (steps !== undefined) t.observe('CALLS-CORRELATE-CALL-ENDED', steps);
      const ended = view.of('kind', 'call.ended');
      const ours = ended.find((d) => payloadOf(d)?.callId === callId);
      if (ours === undefined) {
        const reason = refused(view);
        // A refusal is the cause, at once: the target signed (or sent) something the receiver could not accept.
        if (reason !== undefined) t.fail(`the call.ended delivery could not be read: ${reason}`);
        // Or the receiver refused it unread for its own reason: the run's doing, nothing to judge.
        const own = refused(view, 'receiver');
        if (own !== undefined) t.notVerifiable(`a call.ended delivery could not be read: ${own}`);
        if (ended.length === 0) t.notVerifiable(notObserved(`a call.ended delivery (the call ${callId} was queued)`));
        return t.fail(
          `no call.ended delivery carries callId ${callId} within ${budget} s; call.ended deliveries seen ` +
            `carry: ${ended.map((d) => String(payloadOf(d)?.callId)).join(', ')}`,
        );
      }
      // Readable, but not acceptable: a receiver that verifies signatures never takes it in.
      const refusedOurs = refusal(ours);
      if (refusedOurs !== undefined)
        t.fail(
          `the call.ended delivery of call ${callId} carries its callId, but it is not acceptable: ${refusedOurs}`,
        );
      t.observe(
        'CALLS-METADATA-NOT-PERSISTED',
        ours.rawBody.includes(WATCH_METADATA_MARKER)
          ? 'the metadata reappears in the call.ended payload'
          : 'the metadata does not reappear in the call.ended payload',
      );
      // The target's record of the call POST /calls queued, where it offers one (control requests only).
      if (callId !== undefined && t.control.offers('call-record')) await observeRecord(t, callId);
    },
  );

  check(
    'A subscription deleted before the event receives nothing, while a live subscription of the same kind receives it',
    {
      verifies: ['HOOKS-NO-DELIVERY-AFTER-DELETE', 'HOOKS-NO-DIRECT-EMIT'],
      needs,
      requests: 0,
      timeoutMs,
    },
    async (t) => {
      const liveAfterDelete = (v: WatchView) =>
        v.of('kind', 'call.ended').filter((d) => d.receivedAt > v.watch.deletedAt);
      let view = await judgeWatch(t, (v) => liveAfterDelete(v).length > 0);
      if (liveAfterDelete(view).length === 0)
        t.notVerifiable(notObserved('a call.ended delivery to the live subscription'));
      // Deliveries of one event to several subscriptions need not be simultaneous: after the live one,
      // until the target's deliveries are idle where its control endpoint says so, else a grace period.
      await t.control.settle(t.target.kind === 'embedded' ? 250 : 5_000);
      view = await judgeWatch(t, () => true);
      const { leaked, emitted, unreadable } = deletedSubscriptionDeliveries(view);
      t.ensure(
        emitted.length === 0,
        `the subscription that was created and deleted received ${emitted.length} delivery(ies) of no event ` +
          `any live subscription received (eventId ` +
          `${emitted.map((d) => String(payloadOf(d)?.eventId)).join(', ')}): creating or deleting a hook must ` +
          `not emit one`,
      );
      t.ensure(
        leaked.length === 0,
        `the subscription deleted (204) before the event received ${leaked.length} delivery(ies) of it after ` +
          `DELETE, while a live call.ended subscription received ${liveAfterDelete(view).length}`,
      );
      const first = unreadable[0];
      if (first !== undefined)
        t.notVerifiable(`the deleted subscription: ${refusal(first)}, which is this run's own doing, not the target's`);
    },
  );
});

if (target.kind === 'remote') {
  const title = `Deliveries watched across the run: acknowledgement and retries (within ${budget} s, WEBHOOK_BUDGET_S)`;
  describe(title, () => {
    /**
     * First attempts answered within `range` and what followed them, on the subscriptions that
     * answer by a fixed status.
     */
    const answeredGroups = (view: WatchView, range: [number, number]) =>
      view.watch.watched
        .filter((w) => w.role === 'kind')
        .flatMap((w) => attemptsByEvent(view.deliveries.get(w.subscription.path) ?? [], w.subscription.event))
        .filter(
          (g) =>
            typeof g[0]!.answeredStatus === 'number' &&
            g[0]!.answeredStatus >= range[0] &&
            g[0]!.answeredStatus < range[1],
        );

    check(
      `A delivery answered 2xx is not attempted again within ${budget} s`,
      {
        verifies: ['WEBHOOK-ACK-2XX'],
        needs,
        requests: 0,
        timeoutMs,
      },
      async (t) => {
        const view = await judgeWatch(t, () => false);
        const acked = answeredGroups(view, [200, 300]);
        if (acked.length === 0) {
          const answering200 = [
            ...watchedKinds(t.target).kinds.filter((k) => k !== 'call.ended'),
            ...(acknowledgesCallEnded(t.target) ? ['one of the two call.ended subscriptions'] : []),
          ];
          t.notVerifiable(
            notObserved(`a delivery to a subscription answering 200 (${answering200.join(', ')} this run)`),
          );
        }
        const again = acked.find((g) => g.length > 1);
        if (again !== undefined)
          t.fail(
            `a delivery answered ${again[0]!.answeredStatus} was attempted again (${again.length} attempts, ` +
              `${timeline(again)}): any 2xx means delivered`,
          );
      },
    );

    check(
      `A delivery answered 410 is not attempted again within ${budget} s`,
      {
        verifies: ['WEBHOOK-4XX-NO-RETRY'],
        needs,
        requests: 0,
        timeoutMs,
      },
      async (t) => {
        const view = await judgeWatch(t, () => false);
        // Receiver refusals (401 for a bad signature) are 4xx answers too.
        const groups = answeredGroups(view, [400, 500]);
        if (groups.length === 0)
          t.notVerifiable(notObserved('a call.ended delivery to the subscription answering 410'));
        const again = groups.find((g) => g.length > 1);
        if (again !== undefined)
          t.fail(
            `a delivery answered ${again[0]!.answeredStatus} was attempted ${again.length} times ` +
              `(${timeline(again)}): a 4xx is a permanent failure, no retry`,
          );
      },
    );

    /**
     * The attempts of the failing path's event (503 ×3, unanswered, 503…), once `enough` holds or
     * the budget ran out.
     */
    async function failingAttempts(
      t: CheckTools,
      enough: (attempts: readonly Delivery[]) => boolean,
    ): Promise<Delivery[]> {
      if (!watchesFailing(t.target))
        t.notVerifiable(
          "judged in the target's own virtual time by the webhook-delivery checks (the control endpoint moves " +
            'its clock), so the run watches no failing subscription in real time (the request budget)',
        );
      const longest = (v: WatchView) =>
        attemptsByEvent(v.of('failing'), 'call.ended').sort((a, b) => b.length - a.length)[0] ?? [];
      // Only the receiver's own refusal replaces the plan's answer (a store-only receiver answers by
      // plan whatever the signature).
      const refusedByReceiver = (d: Delivery | undefined) => (d?.error === undefined ? undefined : refusal(d));
      const view = await judgeWatch(t, (v) => enough(longest(v)) || refusedByReceiver(longest(v)[0]) !== undefined);
      const attempts = longest(view);
      if (attempts.length === 0) t.notVerifiable(notObserved('a call.ended delivery to the failing subscription'));
      const refused = refusedByReceiver(attempts[0]);
      if (refused !== undefined) t.notVerifiable(`${refused}; so the subscription's plan (503, no answer) never ran`);
      return attempts;
    }

    check(
      'A delivery answered 503 is retried (if the target retries within the budget)',
      {
        verifies: ['WEBHOOK-5XX-RETRY'],
        needs,
        requests: 0,
        timeoutMs,
      },
      async (t) => {
        const attempts = await failingAttempts(t, (a) => retriedAfter(a, 503));
        if (!retriedAfter(attempts, 503))
          t.notVerifiable(
            `no retry after a 503 answer within ${budget} s (the target's backoff may be longer): ` +
              `${timeline(attempts)}`,
          );
      },
    );

    check(
      'A delivery left unanswered is retried (if the target retries within the budget)',
      {
        verifies: ['WEBHOOK-TIMEOUT-RETRY'],
        needs,
        requests: 0,
        timeoutMs,
      },
      async (t) => {
        const attempts = await failingAttempts(t, (a) => retriedAfter(a, 'no-answer'));
        if (!retriedAfter(attempts, 'no-answer')) {
          const hung = attempts.some((d) => d.answeredStatus === 'no-answer');
          t.notVerifiable(
            hung
              ? `no retry after the unanswered attempt within ${budget} s (the target's backoff may be longer): ` +
                  `${timeline(attempts)}`
              : `the target made ${attempts.length} attempt(s) within ${budget} s; the receiver leaves the ` +
                  `fourth unanswered: ${timeline(attempts)}`,
          );
        }
      },
    );

    check(
      'Every attempt of one event carries the same eventId',
      {
        verifies: ['WEBHOOK-RETRY-SAME-EVENT'],
        needs,
        requests: 0,
        timeoutMs,
      },
      async (t) => {
        const attempts = await failingAttempts(t, (a) => a.length >= 5);
        if (attempts.length < 2) t.notVerifiable(`only one attempt within ${budget} s`);
        const ids = [...new Set(attempts.map((d) => String(payloadOf(d)?.eventId)))];
        t.ensure(
          ids.length === 1,
          `the ${attempts.length} attempts of one call's call.ended carry ${ids.length} eventIds ` +
            `(${ids.join(', ')}), must all carry the same`,
        );
      },
    );

    check(
      'Retries after 503 come at growing intervals (exponential backoff; the intervals are recorded)',
      {
        verifies: ['WEBHOOK-BACKOFF-EXPONENTIAL', 'WEBHOOK-TIMEOUT-AND-BACKOFF-VALUES'],
        needs,
        requests: 0,
        timeoutMs,
      },
      async (t) => {
        // Three intervals, and more while jitter could still hide a growth (times seen on arrival).
        const decided = (a: readonly Delivery[]) => {
          const gaps = gapsAfter503(a);
          return gaps.length >= 3 && backoffReading(gaps, ARRIVAL_JITTER_MS) !== 'unresolved';
        };
        const attempts = await failingAttempts(t, decided);
        t.observe(
          'WEBHOOK-TIMEOUT-AND-BACKOFF-VALUES',
          `${attempts.length} attempt(s) within ${budget} s, ${timeline(attempts)}, answered ` +
            `${attempts.map((d) => d.answeredStatus).join(', ')}`,
        );
        const gaps = gapsAfter503(attempts);
        const times = attempts.map((d) => d.receivedAt);
        if (times.length > 1 && targetClockAdvancedBetween(Math.min(...times), Math.max(...times))) {
          t.notVerifiable(
            "this run moved the target's virtual clock (control state clock-advanced) while these retries " +
              'were pending, so their real-time intervals say nothing about its backoff (the webhook-delivery ' +
              "checks judge it in the target's own time)",
          );
        }
        if (gaps.length < 2) {
          const measured =
            intervals(attempts.map((d) => d.receivedAt))
              .map(seconds)
              .join(', ') || 'none';
          t.notVerifiable(
            `a verdict on exponential backoff needs three attempts; within ${budget} s the target made ` +
              `${attempts.length} (intervals ${measured}): its backoff is longer than the budget`,
          );
        }
        const shown = gaps.map(seconds).join(', ');
        if (backoffReading(gaps, ARRIVAL_JITTER_MS) === 'unresolved')
          t.notVerifiable(
            `intervals between retries after 503 are ${shown}: times seen on arrival may stray by ` +
              `${seconds(ARRIVAL_JITTER_MS)}, so growth this short cannot be told from jitter`,
          );
        t.ensure(
          intervalsGrow(gaps, ARRIVAL_JITTER_MS),
          `intervals between retries after 503 are ${shown}: exponential backoff makes them grow (the last ` +
            `longer than the first by more than the ${seconds(ARRIVAL_JITTER_MS)} arrival times may stray, ` +
            'none shorter than half the one before)',
        );
      },
    );
  });
}

describe('Deliveries watched across the run: clean-up', () => {
  check(
    'The watched subscriptions are deleted at the end of the run',
    {
      verifies: ['HOOKS-DELETE-SOFT'],
      needs,
      requests: closeRequests(target),
      requestsAll: closeRequests({ ...target, budget: EVERYTHING }),
      timeoutMs,
    },
    async (t) => {
      const view = await judgeWatch(t, () => true);
      const answers: string[] = [];
      for (const { role, subscription } of view.watch.watched) {
        if (role === 'deleted') continue;
        const exchange = await subscription.remove();
        // After 10 failed attempts in a row (the failing plan, or deliveries the receiver refused) a
        // subscription may be auto-disabled, and DELETE then answers 404.
        if (
          exchange.status === 404 &&
          trailingFailures(await t.receiver.deliveries(subscription.path)) >=
            limits.webhookAutoDisableAfterConsecutiveFailures
        )
          continue;
        if (exchange.status !== 204 || exchange.rawBody !== '')
          answers.push(
            `${subscription.event} (${role}): ` +
              `${exchange.status ?? exchange.transportError}${exchange.rawBody === '' ? '' : ' with a body'}`,
          );
      }
      t.ensure(
        answers.length === 0,
        `DELETE /hooks/{id} of an active subscription must answer 204 with no body; got ${answers.join('; ')}`,
      );
      t.ensure(
        duplicates(view.watch.watched.map((w) => w.subscription.id)).length === 0,
        'POST /hooks returned the same id for two subscriptions',
      );
    },
  );
});
