/**
 * Waiting at the receiver for the deliveries of events the control endpoint emitted.
 *
 * The spec shows no delivery delay; control-openapi.json (event-emitted) bounds it: the first
 * attempt of every event a setup emitted starts within 10 s of the answer, a call-shaped set
 * included. The suite waits that long and no longer; a wait ends as soon as the deliveries arrive,
 * so only a missing one costs the whole bound.
 */
import { eventIdOf } from '../checks/delivery-verdicts.ts';
import type { CheckTools } from '../checks/check.ts';
import type { Delivery } from '../webhooks/receiver.ts';
import type { HookView } from './control-client.ts';
import { deliveryOf } from './delivery-driver.ts';
import { describeRefusal, type ReceivedDelivery, type Refusal } from './receiver-client.ts';

type Refused = ReceivedDelivery & { refusal: Refusal };

export const EMITTED_DELIVERY_WAIT_MS = 10_000;

/**
 * The emitted events among `missing` whose attempts the target made, in the number waited for,
 * but recorded as a timeout or a broken connection (control inspection hook-attempts): they did
 * start within the bound and never reached the receiver, whose host or network was slower than the
 * target's delivery timeout. Pure.
 */
export function lostInTransit(view: HookView | undefined, missing: readonly string[], times: number): string[] {
  return missing.filter((id) => {
    const attempts = deliveryOf(view, id)?.attempts ?? [];
    return attempts.length >= times && attempts.some((a) => a.outcome.kind !== 'status');
  });
}

/**
 * Waits until each of `eventIds` has arrived at the subscription (`times` attempts of each); fails
 * saying how many came. The target may deliver other events of the account to the same
 * subscription (control-openapi.json, Events): only these are waited for and counted. An attempt
 * the target made in time but recorded as lost in transit makes the check not verifiable in this
 * run, never failed: how fast this host answers is not the target's to keep. So is one the
 * receiver refused for its own reason (a path it did not know, its size limit): that refusal is a
 * 4xx the target will not retry, and the run's, not the target's; a refusal for the delivery's
 * own fault (its signature, its JSON) fails the check at once (ReceiverClient.waitFor).
 */
export async function awaitEmitted(
  t: CheckTools,
  hook: { readonly id: string; readonly path: string },
  eventIds: readonly string[],
  what: string,
  times = 1,
): Promise<Delivery[]> {
  const arrivals = (list: readonly Delivery[], id: string) => list.filter((d) => eventIdOf(d) === id).length;
  const list = await t.receiver.waitFor(
    hook.path,
    (l) => eventIds.every((id) => arrivals(l, id) >= times),
    EMITTED_DELIVERY_WAIT_MS,
  );
  const missing = eventIds.filter((id) => arrivals(list, id) < times);
  if (missing.length > 0) notVerifiableIfReceiverRefused(t, hook.path, list, what);
  if (missing.length > 0 && t.control.offers('hook-attempts')) {
    const lost = lostInTransit(await t.control.hook(hook.id), missing, times);
    if (lost.length === missing.length)
      t.notVerifiable(
        `${what}: the target made the attempt(s) of ${lost.join(', ')} in time, but recorded them as a timeout or ` +
          `a broken connection before they reached this run's receiver (a host or network slower than its ` +
          'delivery timeout)',
      );
  }
  t.ensure(
    missing.length === 0,
    `${what}: ${eventIds.length - missing.length} of the ${eventIds.length} emitted event(s) arrived` +
      `${times > 1 ? ` ${times} times` : ''} within ${EMITTED_DELIVERY_WAIT_MS / 1000} s`,
  );
  return list;
}

/**
 * Ends the check as not verifiable when the receiver refused a delivery to `path` for its own
 * reason (Refusal.fault `receiver`: a path it did not know, its size limit): a 4xx the target will
 * not retry, of an event nobody read, so counts and rules over the path's deliveries can't be judged.
 */
export function notVerifiableIfReceiverRefused(
  t: CheckTools,
  path: string,
  list: readonly ReceivedDelivery[],
  what: string,
): void {
  const own = list.find((d): d is Refused => d.refusal?.fault === 'receiver');
  if (own !== undefined)
    t.notVerifiable(`${what}: ${describeRefusal(path, own)}, which is this run's own doing, not the target's`);
}

/** Every delivery to `path`, once none was refused for the receiver's own reason (notVerifiableIfReceiverRefused). */
export async function readableArrivals(t: CheckTools, path: string, what: string): Promise<ReceivedDelivery[]> {
  const list = await t.receiver.deliveries(path);
  notVerifiableIfReceiverRefused(t, path, list, what);
  return list;
}
