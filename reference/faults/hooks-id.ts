/** Faults of DELETE /hooks/{id} (../routes/hooks-id.ts). ../faults.ts describes each. */
import { faultsAt } from '../points.ts';
import { deleteHook, UUID_PATTERN } from '../routes/hooks-id.ts';
import { storeRoundTrip } from '../routes/receiving.ts';
import { sameSubscription } from './hooks.ts';

const UNANCHORED_UUID = new RegExp(UUID_PATTERN.source.replace(/^\^|\$$/g, ''));

export default faultsAt(deleteHook, {
  'nm-uuid-urn-accepted': { id: (given, next) => next({ ...given, raw: given.raw.replace(/^urn:uuid:/i, '') }) },
  // Looked up before it is validated, in a CHAR(36) column that cuts it to 36 (MySQL's non-strict mode):
  // where its first 36 name a stored hook, they are the id.
  'nm-id-char36-truncated': {
    id: (given, next) => {
      const cut = given.raw.slice(0, 36).toLowerCase();
      return /^[0-9a-f-]{37,}$/i.test(given.raw) && given.hooks.has(cut) ? cut : next(given);
    },
  },
  // A UUID anywhere in the id.
  'hooks-delete-uuid-unanchored': { isUuid: (id) => UNANCHORED_UUID.test(id) },
  'hooks-non-uuid-404': { notUuid: () => ({ status: 404, error: 'not_found', message: 'no such hook' }) },
  // The id as typed.
  'nm-uuid-case-sensitive': { key: ({ id }) => id },
  // The stored id sharing its first 35 characters.
  'nm-id-prefix-match': {
    key: (given, next) => {
      const key = next(given);
      for (const stored of given.stored) if (stored.slice(0, 35) === key.slice(0, 35)) return stored;
      return key;
    },
  },
  // An unsubscribe keyed by the target: the account's oldest active subscription of the same event and
  // target_url as the active one named.
  'nm-delete-by-target': {
    hook: (lookup, next) => {
      const hook = next(lookup);
      if (hook?.status !== 'active') return hook;
      return [...lookup.hooks.values()].find((h) => h.status === 'active' && sameSubscription(h, hook)) ?? hook;
    },
  },
  'hooks-foreign-deletable': { owns: () => true },
  // The account checked only for an id written as issued.
  'nm-foreign-id-case': { owns: (asked, next) => next(asked) || asked.id !== asked.id.toLowerCase() },
  'hooks-delete-twice-204': { alreadyDisabled: () => ({ status: 204 }) },
  'hooks-secret-returned-again': {
    alreadyDisabled: (hook) => ({
      status: 404,
      error: 'not_found',
      message: `hook already disabled (secret ${hook.secret})`,
    }),
  },
  // The status read before and written after a store's round trip (20 ms, and while a DELETE received
  // meanwhile is still on its way to its handler: two DELETEs a client sends at once overlap however
  // slow the host, and the run's many serial DELETEs stay cheap).
  'nm-delete-not-atomic': {
    disable: async (deletion, next) => {
      await storeRoundTrip(deletion.received);
      await next(deletion);
    },
  },
  'hooks-hard-delete': {
    disable: async (deletion, next) => {
      await next(deletion);
      deletion.hooks.delete(deletion.hook.id);
    },
  },
  'hooks-delete-200': {
    deleted: ({ reply, hook }) => reply.code(200).send({ id: hook.id, status: 'disabled' }),
  },
  // Node's server drops a 204's body, so the bytes go on the socket itself.
  'nm-204-with-body': {
    deleted: ({ reply }) => {
      reply.hijack();
      reply.raw.socket?.end('HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n{"status":"disabled"}');
      return reply;
    },
  },
});
