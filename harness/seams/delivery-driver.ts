/**
 * Drives the reference's webhook dispatcher through its retry schedule in virtual time: wait
 * until no attempt is in flight, then jump the clock exactly to the next scheduled attempt, so
 * that recorded attempt times are the scheduled ones and a day of backoff takes milliseconds.
 * Embedded only (control API); every loop is bounded by `maxSteps`.
 */
import type { ControlClient, HookView } from './control-client.ts';

export type DeliveryView = HookView['deliveries'][number];

/** The hook's delivery of `eventId` (the last one when no id is given). */
export function deliveryOf(view: HookView | undefined, eventId?: string): DeliveryView | undefined {
  if (view === undefined) return undefined;
  const matching = eventId === undefined ? view.deliveries : view.deliveries.filter((d) => d.eventId === eventId);
  return matching[matching.length - 1];
}

/**
 * Steps the delivery of `eventId` until `done(attempts, view)` holds, it stops being pending,
 * or nothing is scheduled; returns the last view of the hook.
 */
export async function driveDelivery(
  control: ControlClient,
  hookId: string,
  eventId: string,
  done: (attempts: number, view: HookView) => boolean,
  maxSteps = 30,
): Promise<HookView | undefined> {
  let view: HookView | undefined;
  for (let step = 0; step < maxSteps; step++) {
    await control.idle();
    view = await control.hook(hookId);
    const delivery = deliveryOf(view, eventId);
    if (view === undefined || delivery === undefined) return view;
    if (done(delivery.attempts.length, view) || delivery.state !== 'pending' || delivery.nextAttemptAt === undefined)
      return view;
    const now = await control.clock();
    await control.advanceClock(Math.max(0, delivery.nextAttemptAt - now));
  }
  return view;
}
