/**
 * The run's watch of webhook deliveries: opened once, early in the run (suites/
 * webhook-watch.open.suite.ts), judged late (suites/webhook-watch.judge.suite.ts), so the wait for
 * a remote target's deliveries overlaps every other check (harness/scheduling/run-order.ts puts
 * the two files first and last; the run channel hands the opened watch to the worker judging it).
 *
 * Opening subscribes one hook per event kind (remotely without a control endpoint that emits:
 * call.ended, answering 410, a second call.ended answering 200, and one other kind, rotated),
 * plus, for call.ended, a subscription deleted at once (nothing may reach it), and against a
 * remote target whose deliveries can't be driven in virtual time one that fails (503s and one
 * unanswered attempt: the retry rules); then it causes events: the originated call (needs
 * ALLOW_ORIGINATE) and, where a control API can emit, one event of every other kind. A judge
 * that runs without an opened watch (e.g. `--only`) opens it itself.
 *
 * The receiver keeps what arrives; judging reads it, by path, until a check's condition holds
 * or WEBHOOK_BUDGET_S after the events were caused. While the originated call's call.ended has
 * not arrived, a target that offers clock-advanced has its clock moved in bounded steps
 * (./call-clock.ts): its calls may run on a virtual clock that stands still.
 */
import { eventTypes, type EventType } from '../../contract/openapi.ts';
import { VIRTUAL_TIME_DELIVERIES } from '../../contract/control.ts';
import type { Exchange } from '../http/client.ts';
import type { Delivery, ResponsePlan } from '../webhooks/receiver.ts';
import type { CheckTools } from '../checks/check.ts';
import { missingNeeds, type Needs } from '../checks/needs.ts';
import type { RunTarget } from '../run/context.ts';
import { session } from '../run/session.ts';
import { probesThisRun, runSeed, sliceForRun } from '../scheduling/rotation.ts';
import { adoptSubscription, subscribe, type Subscription, type SubscriptionData } from './subscriptions.ts';
import { CALL_GRACE_MS, createCallClock } from './call-clock.ts';
import { payloadOf } from '../checks/delivery-verdicts.ts';

/** What a watched subscription is for. */
export type WatchRole = 'kind' | 'deleted' | 'failing';

export interface Watched {
  readonly role: WatchRole;
  readonly subscription: Subscription;
}

export interface Watch {
  readonly watched: readonly Watched[];
  /** When the events were caused (ms); the budget runs from here (or from a later clock step: waitEnds). */
  readonly causedAt: number;
  readonly budgetS: number;
  /** The originated call, when the run may originate, and the POST /calls that queued it. */
  readonly callId: string | undefined;
  readonly callCreation: Exchange | undefined;
  /** Kinds emitted through the control API (each must arrive). */
  readonly emitted: readonly EventType[];
  /** When DELETE of the `deleted` subscription answered. */
  readonly deletedAt: number;
}

/** What the receiver holds for the watch at one moment. */
export interface WatchView {
  readonly watch: Watch;
  readonly deliveries: ReadonlyMap<string, readonly Delivery[]>;
  /** Whether the budget ran out before the condition held. */
  readonly timedOut: boolean;
  /** Every delivery with the subscription it came to. */
  all(): Array<{ delivery: Delivery; watched: Watched }>;
  of(role: WatchRole, event?: EventType): Delivery[];
}

/** Marker in the originated call's metadata, to see whether it reappears anywhere. */
export const WATCH_METADATA_MARKER = 'occ-watch-metadata-marker';

/**
 * Remote runs read the retry rules from how the receiver answers; the embedded run does it in
 * virtual time, and answers 200 everywhere. The call.ended subscription answers its first
 * delivery 410 (a 4xx must not be retried; every other rule is judged on that same first attempt)
 * and the others 200: other call.ended events of the account (a call's set, real activity:
 * control-openapi.json, Events) may reach it too, and ten 410s in a row would disable it before
 * the originated call's arrives (a 4xx may count as a failure). The failing one 503
 * three times (the backoff between them is judged), then leaves one attempt unanswered (a
 * timeout), then 503 again: one subscription shows both retry rules.
 */
const LIVE_CALL_ENDED_PLAN: ResponsePlan = [{ status: 410, times: 1 }, { status: 200 }];
const FAILING_PLAN: ResponsePlan = [{ status: 503, times: 3 }, { hang: true, times: 1 }, { status: 503 }];

/**
 * The kinds subscribed: all of them embedded, and remotely where a control endpoint emits events
 * (each kind's payload is then verified here every run, and webhooks.suite.ts's per-kind checks,
 * four requests each, take turns: the request budget); otherwise remotely call.ended (what the
 * originated call causes) and, at the default budget, one other kind rotated across runs by the
 * run's seed (four subscriptions and their deletion saved per run; four consecutive seeds cover
 * every kind); a larger budget subscribes more of them, the full set every kind.
 */
export function watchedKinds(target: RunTarget): {
  kinds: readonly EventType[];
  rotatedOut: readonly EventType[];
  slice: string;
} {
  if (target.kind !== 'remote' || canEmit(target)) return { kinds: eventTypes, rotatedOut: [], slice: '' };
  const others = eventTypes.filter((event) => event !== 'call.ended');
  const slice = sliceForRun(others, probesThisRun(others.length, 1, target.budget), runSeed());
  return {
    kinds: ['call.ended', ...slice.chosen],
    rotatedOut: others.filter((event) => !slice.chosen.includes(event)),
    slice: `seed ${runSeed()}: slice ${slice.index + 1} of ${slice.slices}`,
  };
}

/** The control capabilities that drive deliveries in the target's own virtual time (webhook-delivery.suite.ts). */
export { VIRTUAL_TIME_DELIVERIES };

/**
 * Whether a remote run watches a failing subscription (503s, one unanswered attempt) for the
 * retry rules in real time: not where the control endpoint drives deliveries in the target's
 * virtual time, since webhook-delivery.suite.ts then decides every one of those rules over a
 * whole day of backoff (the request budget: a subscription and its deletion saved).
 */
export function watchesFailing(target: RunTarget): boolean {
  return (
    target.kind === 'remote' &&
    !VIRTUAL_TIME_DELIVERIES.every((capability) => target.control?.offered.includes(capability) === true)
  );
}

/**
 * Whether a remote run also subscribes call.ended answering 200: where nothing but the
 * originated call causes events (no control endpoint emits), the call's call.ended is the only
 * delivery the run can count on, so one subscription answers it 410 (a 4xx is final) and this
 * one 200 (a 2xx acknowledges: no second attempt). Two requests for WEBHOOK-ACK-2XX.
 */
export function acknowledgesCallEnded(target: RunTarget): boolean {
  return target.kind === 'remote' && !canEmit(target);
}

export function canEmit(target: RunTarget): boolean {
  return target.control?.offered.includes('event-emitted') === true;
}

export function canOriginate(target: RunTarget): boolean {
  return (
    target.agents.provisioned !== undefined &&
    target.tokens.all !== undefined &&
    (target.kind === 'embedded' || (target.allowOriginate && target.destinationNumber !== undefined))
  );
}

/** Whether this configuration can open the watch (it needs a receiver the target reaches, and a cause of events). */
export function watchOpens(target: RunTarget): boolean {
  return missingNeeds(watchNeeds(target), target).length === 0;
}

/** Whether a remote run's watch originates the call (so calls.suite need not originate another). */
export function watchOriginates(target: RunTarget): boolean {
  return target.kind === 'remote' && canOriginate(target) && watchOpens(target);
}

/** What opening the watch needs: something that causes events, and a receiver the target reaches. */
export function watchNeeds(target: RunTarget): Needs {
  return canEmit(target)
    ? { tokens: ['all'], webhooks: true, control: ['event-emitted'] }
    : { tokens: ['all'], agents: ['provisioned'], originate: true, webhooks: true };
}

/** Requests opening sends against a remote target (for --dry-run): the subscriptions, one DELETE, one POST /calls. */
export function openRequests(target: RunTarget): number {
  return (
    watchedKinds(target).kinds.length +
    (acknowledgesCallEnded(target) ? 1 : 0) +
    1 +
    (watchesFailing(target) ? 1 : 0) +
    1 +
    1
  );
}

/** Requests closing sends: one DELETE per subscription still active. */
export function closeRequests(target: RunTarget): number {
  return watchedKinds(target).kinds.length + (acknowledgesCallEnded(target) ? 1 : 0) + (watchesFailing(target) ? 1 : 0);
}

let opening: Promise<Watch> | undefined;

/**
 * The run's watch, opened once per run by the first check that asks, in whichever worker: the run
 * channel (../run/channel.ts) tells the first asker to open it and hands its record to every
 * other worker that asks, waiting while it is being opened; a worker keeps what it got. So a
 * judge that runs without the opening check (e.g. `--only`) opens it itself, and the order of
 * the files (../scheduling/run-order.ts) decides only how long the deliveries have to arrive.
 * A failed opening is remembered: its reason is every judge's.
 */
export function openWatch(t: CheckTools): Promise<Watch> {
  opening ??= session()
    .channel.call<{ opener?: true; record?: HandOver }>('/watch/open', {})
    .then((answer) =>
      answer.opener === true
        ? open(t).then(
            async (watch) => {
              await handOver({ ok: true, watch: { ...watch, watched: watch.watched.map(dataOf) } });
              return watch;
            },
            async (error: unknown) => {
              await handOver({ ok: false, message: (error as Error).message });
              throw error;
            },
          )
        : adopt(t, answer.record!),
    );
  return opening;
}

/**
 * The watch as another worker gets it: the subscriptions' data (their secrets included: the
 * channel is the run's own, loopback, behind its token), which the judging worker adopts (it
 * deletes them).
 */
type HandOver =
  | {
      ok: true;
      watch: Omit<Watch, 'watched'> & { watched: Array<{ role: WatchRole; subscription: SubscriptionData }> };
    }
  | { ok: false; message: string };

const dataOf = ({ role, subscription: { remove: _, ...data } }: Watched) => ({ role, subscription: data });

async function handOver(record: HandOver): Promise<void> {
  await session().channel.call('/watch/put', { record });
}

function adopt(t: CheckTools, record: HandOver): Promise<Watch> {
  if (!record.ok) return Promise.reject(new Error(record.message));
  return Promise.resolve({
    ...record.watch,
    watched: record.watch.watched.map(({ role, subscription }) => ({
      role,
      subscription: adoptSubscription(t, subscription),
    })),
  });
}

async function open(t: CheckTools): Promise<Watch> {
  const target = t.target;
  // Subscriptions outlive the opening check: the close check deletes them, or (when --only left
  // it out, or the run was cut short) the sweep of the run's hook journal.
  const tools: CheckTools = Object.create(t, { onCleanup: { value: () => undefined } }) as CheckTools;
  const watched: Watched[] = [];
  const { kinds } = watchedKinds(target);
  for (const event of kinds) {
    const plan = target.kind === 'remote' && event === 'call.ended' ? LIVE_CALL_ENDED_PLAN : undefined;
    watched.push({
      role: 'kind',
      subscription: await subscribe(tools, { event, ...(plan === undefined ? {} : { plan }) }),
    });
  }
  if (acknowledgesCallEnded(target))
    watched.push({
      role: 'kind',
      subscription: await subscribe(tools, { event: 'call.ended', plan: [{ status: 200 }] }),
    });
  const deleted = await subscribe(tools, { event: 'call.ended' });
  const removal = await deleted.remove();
  t.ensure(
    removal.status === 204,
    `DELETE /hooks/{id} of a new subscription answered ${removal.status ?? removal.transportError}, expected 204`,
  );
  const deletedAt = Date.now();
  watched.push({ role: 'deleted', subscription: deleted });
  if (watchesFailing(target)) {
    watched.push({
      role: 'failing',
      subscription: await subscribe(tools, { event: 'call.ended', plan: FAILING_PLAN }),
    });
  }

  let callId: string | undefined;
  let callCreation: Exchange | undefined;
  if (canOriginate(target)) {
    // The body of calls.suite's valid-origination check, so this one request serves both (request budget).
    callCreation = await t.call({
      method: 'POST',
      path: '/calls',
      token: t.token('all'),
      json: {
        aiAgentId: target.agents.provisioned,
        toNumber: target.destinationNumber,
        fromNumber: '+14155550100',
        metadata: { campaign: WATCH_METADATA_MARKER, attempt: 1, tags: ['a', 'b'] },
      },
    });
    t.expectStatus(callCreation, 200);
    callId = (callCreation.json as { callId?: unknown }).callId as string;
  }
  const emitted: EventType[] = [];
  if (canEmit(target)) {
    for (const event of kinds) {
      if (event === 'call.ended' && callId !== undefined) continue; // the call causes it
      await t.control.emit(event);
      emitted.push(event);
    }
  }
  const causedAt = Date.now();
  return {
    watched,
    causedAt,
    budgetS: target.webhookBudgetS,
    callId,
    callCreation,
    emitted,
    deletedAt,
  };
}

/** The steps by which the run moved the target's clock for the watch's call (one bound for the whole run). */
const watchCallClock = createCallClock();

/** What the run did to the target's clock for the watch's call, for an observation; undefined: nothing. */
export function watchCallSteps(): string | undefined {
  return watchCallClock.describe();
}

/** Whether the watch's originated call has not shown its call.ended yet. */
function callPending(view: WatchView): boolean {
  const { callId } = view.watch;
  return callId !== undefined && !view.of('kind', 'call.ended').some((d) => payloadOf(d)?.callId === callId);
}

/**
 * When a look at `now` is past the wait: the budget runs from when the events were caused, or from
 * the last clock step taken for the watch's call, whichever is later. On a target whose clock
 * stands still the call ends (and its call.ended is caused) only at a step, however late the
 * judge takes it. Pure.
 */
export function waitEnds(watch: Pick<Watch, 'causedAt' | 'budgetS'>, steppedAt: number | undefined): number {
  return Math.max(watch.causedAt, steppedAt ?? 0) + watch.budgetS * 1000;
}

/**
 * Reads the watched paths until `until` holds or the budget runs out (polling the receiver).
 * `until` sees every delivery so far; a check stops early on what decides it. While the watch's
 * call is pending past CALL_GRACE_MS, each look is followed by one step of the target's clock
 * until the steps are spent, also past the budget: a judge that first looks after it (the checks
 * between opening and judging took longer) would otherwise never move a clock that stands still,
 * and read the host's pace as the target's silence.
 */
export async function judgeWatch(t: CheckTools, until: (view: WatchView) => boolean): Promise<WatchView> {
  let watch: Watch;
  try {
    watch = await openWatch(t);
  } catch (error) {
    // POST /hooks or POST /calls failing is the verdict of their own checks, not of the delivery rules.
    return t.notVerifiable(`the run could not subscribe and cause events: ${(error as Error).message}`);
  }
  const pollMs = t.target.kind === 'embedded' ? 25 : 500;
  let steppedAt: number | undefined;
  for (;;) {
    const deliveries = new Map<string, Delivery[]>();
    for (const { subscription } of watch.watched)
      deliveries.set(subscription.path, await t.receiver.deliveries(subscription.path));
    const view = viewOf(watch, deliveries, Date.now() >= waitEnds(watch, steppedAt));
    if (until(view)) return view;
    const due = callPending(view) && Date.now() >= watch.causedAt + CALL_GRACE_MS;
    if (due && (await watchCallClock.step(t.control))) steppedAt = Date.now();
    else if (view.timedOut) return view;
    const left = waitEnds(watch, steppedAt) - Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, Math.max(1, left))));
  }
}

function viewOf(watch: Watch, deliveries: ReadonlyMap<string, readonly Delivery[]>, timedOut: boolean): WatchView {
  const at = (w: Watched) => [...(deliveries.get(w.subscription.path) ?? [])];
  return {
    watch,
    deliveries,
    timedOut,
    all: () => watch.watched.flatMap((w) => at(w).map((delivery) => ({ delivery, watched: w }))),
    of: (role, event) =>
      watch.watched
        .filter((w) => w.role === role && (event === undefined || w.subscription.event === event))
        .flatMap(at),
  };
}
