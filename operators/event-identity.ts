/**
 * Near-miss family "identity of events" (NM-EVENT-IDENTITY): "Payloads also carry an eventId used
 * for de-duplication". Two readings are wrong: distinct events sharing an id (a receiver would drop
 * the second as a duplicate) and one event's retries carrying new ids (a receiver would act twice).
 *
 * Applied to every event kind of openapi.json at once, for events of ONE call (the same callId):
 * an id derived from the call, not from the event, is the slip that only a shared call shows.
 */
import { eventTypes, type EventType } from '../contract/openapi.ts';

export interface EmittedEvent {
  readonly kind: string;
  readonly eventId: string;
}

/** The kinds the probe emits for one call: every kind of the contract. */
export function kindsOfOneCall(kinds: readonly EventType[] = eventTypes): readonly EventType[] {
  return kinds;
}

/** Distinct events that share an eventId, one sentence per shared id; [] when every id is distinct. */
export function sharedEventIds(events: readonly EmittedEvent[]): string[] {
  const byId = new Map<string, string[]>();
  for (const { kind, eventId } of events) byId.set(eventId, [...(byId.get(eventId) ?? []), kind]);
  return [...byId.entries()]
    .filter(([, kinds]) => kinds.length > 1)
    .map(([id, kinds]) => `eventId ${id} was carried by ${kinds.length} distinct events (${kinds.join(', ')})`);
}

/** The eventIds the attempts of ONE event carried, when they are not all `eventId`; undefined when they are. */
export function retriesChangedId(eventId: string, attemptIds: readonly (string | undefined)[]): string | undefined {
  const other = attemptIds.filter((id) => id !== eventId);
  if (other.length === 0) return undefined;
  return `the ${attemptIds.length} attempts of event ${eventId} carried ${other.map(String).join(', ')} too`;
}
