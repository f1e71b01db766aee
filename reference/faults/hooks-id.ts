/** Faults of DELETE /hooks/{id} (../routes/hooks-id.ts). ../faults.ts describes each. */
import { faultsAt } from '../points.ts';
import { deleteHook, UUID_PATTERN } from '../routes/hooks-id.ts';

const UNANCHORED_UUID = new RegExp(UUID_PATTERN.source.replace(/^\^|\$$/g, ''));

export default faultsAt(deleteHook, {
  'nm-uuid-urn-accepted': { id: (raw, next) => next(raw.replace(/^urn:uuid:/i, '')) },
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
  // The status read before and written after a store's round trip (20 ms: two DELETEs a client sends
  // at once both arrive within it, and the run's many serial DELETEs stay cheap).
  'nm-delete-not-atomic': {
    disable: async (deletion, next) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
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
