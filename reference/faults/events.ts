/** Faults of the simulated calls and the events (../store.ts). ../faults.ts describes each. */
import { randomUUID } from 'node:crypto';
import { faultsAt } from '../points.ts';
import { events, type ReferenceStore } from '../store.ts';

/** The one eventId every event of a store carries under event-id-reused. */
const stuck = new WeakMap<ReferenceStore, string>();

export default faultsAt(events, {
  'calls-callid-not-uuid': { callId: () => String(Math.floor(Math.random() * 1e12)) },
  'calls-correlation-broken': { endedCallId: () => randomUUID() },
  'event-id-reused': {
    eventId: (store) => {
      if (!stuck.has(store)) stuck.set(store, randomUUID());
      return stuck.get(store)!;
    },
  },
  // The id of the call taken for the id of the event.
  'nm-event-id-per-call': {
    payload: (built, next) => {
      const payload = next(built);
      return { ...payload, eventId: payload.callId };
    },
  },
  'event-missing-field': {
    payload: (built, next) => {
      const payload = next(built);
      if (payload.event !== 'call.ended') return payload;
      const { durationSec: _, ...rest } = payload;
      return rest;
    },
  },
  'hooks-wrong-event-delivered': { subscribed: () => true },
  'delivery-after-delete': { live: (hook, next) => next(hook) || hook.disabledReason === 'deleted' },
});
