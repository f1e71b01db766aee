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

export const EMITTED_DELIVERY_WAIT_MS = 10_000;

/**
 * Waits until each of `eventIds` has arrived at `path` (`times` attempts of each); fails saying how
 * many came. The target may deliver other events of the account to the same subscription
 * (control-openapi.json, Events): only these are waited for and counted.
 */
export async function awaitEmitted(
  t: CheckTools,
  path: string,
  eventIds: readonly string[],
  what: string,
  times = 1,
): Promise<Delivery[]> {
  const arrivals = (list: readonly Delivery[], id: string) => list.filter((d) => eventIdOf(d) === id).length;
  const list = await t.receiver.waitFor(
    path,
    (l) => eventIds.every((id) => arrivals(l, id) >= times),
    EMITTED_DELIVERY_WAIT_MS,
  );
  const arrived = eventIds.filter((id) => arrivals(list, id) >= times).length;
  t.ensure(
    arrived === eventIds.length,
    `${what}: ${arrived} of the ${eventIds.length} emitted event(s) arrived${times > 1 ? ` ${times} times` : ''} ` +
      `within ${EMITTED_DELIVERY_WAIT_MS / 1000} s`,
  );
  return list;
}
