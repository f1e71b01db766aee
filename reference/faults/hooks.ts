/** Faults of POST /hooks (../routes/hooks.ts). ../faults.ts describes each. */
import { eventTypes, limits, type EventType } from '../../contract/openapi.ts';
import { faultsAt } from '../points.ts';
import { isHttpsUri, postHooks } from '../routes/hooks.ts';
import { storeRoundTrip } from '../routes/receiving.ts';
import type { Subscription } from '../webhooks/dispatcher.ts';

/** Whether two subscriptions are of one account, event and target. */
export const sameSubscription = (a: Subscription, b: Subscription): boolean =>
  a.accountId === b.accountId && a.event === b.event && a.targetUrl === b.targetUrl;

/** String() of a value given, null and absence kept. */
const coerced = (value: unknown): unknown => (value === undefined || value === null ? value : String(value));

export default faultsAt(postHooks, {
  // A C string, cut at the first NUL.
  'nm-nul-truncated': {
    event: (value, next) => next(typeof value === 'string' ? value.split('\u0000')[0] : value),
  },
  // The capital a form or a phone keyboard puts first forgiven: "Call.ended" is call.ended ("Call.Ended" is not).
  'nm-event-first-letter-folded': {
    event: (value, next) => next(typeof value === 'string' ? value.charAt(0).toLowerCase() + value.slice(1) : value),
  },
  'hooks-fields-coerced': {
    event: (value, next) => next(coerced(value)),
    targetUrl: (value, next) => next(coerced(value)),
  },
  'hooks-event-case-insensitive': {
    event: (value, next) => {
      const event = next(value);
      return typeof event === 'string' ? event.trim().toLowerCase() : event;
    },
  },
  'hooks-unknown-event-accepted': {
    knownEvent: (event, next) => next(event) || (typeof event === 'string' && event.length > 0),
  },
  // The limit checked with > 513.
  'hooks-target-length-off-by-one': { tooLong: (targetUrl) => targetUrl.length > limits.targetUrlMaxLength + 1 },
  'hooks-long-target-accepted': { tooLong: () => false },
  // An http URI passes as its https twin would.
  'hooks-http-target-accepted': {
    httpsUri: (targetUrl, next) =>
      next(targetUrl) || (/^http:\/\//i.test(targetUrl) && next(`https${targetUrl.slice(4)}`)),
  },
  'hooks-target-scheme-prefix-only': { httpsUri: (targetUrl, next) => /^https:/i.test(targetUrl) || next(targetUrl) },
  'hooks-target-scheme-case-sensitive': {
    httpsUri: (targetUrl, next) => targetUrl.startsWith('https://') && next(targetUrl),
  },
  // The subscriptions of one event and target_url kept as one list, read as a new one is stored and
  // written back after a store's round trip (20 ms, and while a creation received meanwhile is still
  // on its way to its handler): one another creation stored meanwhile is lost.
  'nm-create-lost-update': {
    subscribe: async (wanted, next) => {
      const made = next(wanted);
      const created = made instanceof Promise ? await made : made;
      const hooks = wanted.store.hooks;
      const read = new Set([...hooks.values()].filter((h) => sameSubscription(h, created)).map((h) => h.id));
      await storeRoundTrip(wanted.received);
      for (const h of [...hooks.values()]) if (sameSubscription(h, created) && !read.has(h.id)) hooks.delete(h.id);
      return created;
    },
  },
  // The target is normalised (trimmed) and stored before the raw value is validated, and a refusal
  // does not roll the row back: " https://…" and "https://…\n" are refused 400, yet subscribed.
  'nm-refused-hook-kept': {
    refused: ({ store, account, event, targetUrl }) => {
      if (typeof targetUrl !== 'string' || !eventTypes.includes(event as EventType)) return;
      const trimmed = targetUrl.trim();
      if (trimmed.length <= limits.targetUrlMaxLength && isHttpsUri(trimmed))
        store.createHook(account, event as EventType, trimmed);
    },
  },
  // "Idempotent": the same account, event and target get the active subscription back, secret included.
  'nm-secret-given-twice': {
    subscribe: (wanted, next) =>
      [...wanted.store.hooks.values()].find(
        (h) =>
          h.accountId === wanted.account &&
          h.event === wanted.event &&
          h.targetUrl === wanted.targetUrl &&
          h.status === 'active',
      ) ?? next(wanted),
  },
  'hooks-create-emits-event': {
    subscribe: (wanted, next) => {
      const delivered = (hook: Subscription): Subscription => {
        wanted.store.dispatcher.dispatch(hook, wanted.store.buildPayload(hook.event, {}));
        return hook;
      };
      const made = next(wanted);
      return made instanceof Promise ? made.then(delivered) : delivered(made);
    },
  },
});
