/**
 * Drives a target's webhook deliveries through their retry schedule in its virtual time (the
 * control endpoint): wait until no attempt is in flight, then jump the clock exactly to the next
 * scheduled attempt, so that recorded attempt times are the scheduled ones and a day of backoff
 * takes milliseconds. Every loop is bounded by `maxSteps`.
 *
 * A subscription may also receive other events of the account (control-openapi.json, Events):
 * the delivery of an event is found by the eventId its setup returned, and what auto-disable
 * counts, the failures in a row, is counted over every delivery of the hook.
 */
import type { ControlClient, HookView } from './control-client.ts';

export type DeliveryView = HookView['deliveries'][number];

/** The hook's delivery of `eventId` (the last one when no id is given). */
export function deliveryOf(view: HookView | undefined, eventId?: string): DeliveryView | undefined {
  if (view === undefined) return undefined;
  const matching = eventId === undefined ? view.deliveries : view.deliveries.filter((d) => d.eventId === eventId);
  return matching[matching.length - 1];
}

/** The eventIds the target lists for the hook's deliveries of events other than `eventIds` (other activity). */
export function otherEventIds(view: HookView | undefined, eventIds: readonly string[]): string[] {
  return (view?.deliveries ?? []).map((d) => d.eventId).filter((id) => !eventIds.includes(id));
}

/** Whether the target recorded an attempt as acknowledged: an answer with a 2xx status. */
export const acknowledged = (outcome: DeliveryView['attempts'][number]['outcome']): boolean =>
  outcome.kind === 'status' && outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;

/** Failed attempts since the hook's last acknowledged one, over every delivery of it, in the target's time. */
export function consecutiveFailures(view: HookView | undefined): number {
  const attempts = (view?.deliveries ?? []).flatMap((d) => d.attempts).sort((a, b) => a.at - b.at);
  let count = 0;
  for (const attempt of attempts) count = acknowledged(attempt.outcome) ? 0 : count + 1;
  return count;
}

/**
 * Steps the hook's deliveries, the earliest scheduled attempt first, until `done(view)` holds or
 * none is pending (`only`: the delivery of that eventId alone); returns the last view of the hook.
 */
async function drive(
  control: ControlClient,
  hookId: string,
  done: (view: HookView) => boolean,
  only: string | undefined,
  maxSteps: number,
): Promise<HookView | undefined> {
  let view: HookView | undefined;
  for (let step = 0; step < maxSteps; step++) {
    await control.idle();
    view = await control.hook(hookId);
    if (view === undefined || done(view)) return view;
    const pending = view.deliveries.filter((d) => d.state === 'pending' && (only === undefined || d.eventId === only));
    if (pending.length === 0) return view;
    const due = pending.map((d) => d.nextAttemptAt).filter((at): at is number => at !== undefined);
    // An attempt still in flight (deliveries-idle gave up, or answered before it ended): look again.
    if (due.length < pending.length) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      continue;
    }
    const now = await control.clock();
    await control.advanceClock(Math.max(0, Math.min(...due) - now));
  }
  return view;
}

/**
 * Steps the delivery of `eventId` until `done(attempts, view)` holds, it stops being pending,
 * or nothing is scheduled; returns the last view of the hook.
 */
export function driveDelivery(
  control: ControlClient,
  hookId: string,
  eventId: string,
  done: (attempts: number, view: HookView) => boolean,
  maxSteps = 30,
): Promise<HookView | undefined> {
  return drive(
    control,
    hookId,
    (view) => {
      const delivery = deliveryOf(view, eventId);
      return delivery === undefined || done(delivery.attempts.length, view);
    },
    eventId,
    maxSteps,
  );
}

/** Steps every delivery of the hook until `done(view)` holds or none is pending. */
export function driveHook(
  control: ControlClient,
  hookId: string,
  done: (view: HookView) => boolean,
  maxSteps = 60,
): Promise<HookView | undefined> {
  return drive(control, hookId, done, undefined, maxSteps);
}
