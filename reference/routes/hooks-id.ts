/**
 * DELETE /hooks/{id} (spec: Webhooks; States › Webhook subscription): disables an active
 * subscription of the account (a soft delete: the record and its delivery history stay), for a
 * token with write:hooks; answers 204 with no body. A disabled one answers 404, and so does an id
 * naming no subscription of the account.
 *
 * Decision where the spec is silent (an OBSERVE requirement of the catalogue): any RFC 4122 UUID
 * syntax passes the 400 check (case-insensitive); a UUID that names no hook of the account
 * (including non-v4 ones) is 404 not_found.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { refuse, sendError } from '../http.ts';
import type { ErrorAnswer } from '../http.ts';
import { site } from '../points.ts';
import type { AccountName } from '../seed.ts';
import type { Subscription } from '../webhooks/dispatcher.ts';
import { authenticate } from './authentication.ts';
import type { RouteOptions } from './options.ts';
import { receiving } from './receiving.ts';

export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** An answer in place of the deletion: an error, or a status with no body. */
export type NoDeletion = ErrorAnswer | { readonly status: number; readonly error?: undefined };

export const deleteHook = site('DELETE /hooks/{id}', {
  /** The path's id as it is given. */
  id: ({ raw }: { raw: string; hooks: ReadonlyMap<string, Subscription> }): string => raw,
  isUuid: (id: string): boolean => UUID_PATTERN.test(id),
  notUuid: (): ErrorAnswer => ({ status: 400, error: 'invalid_input', message: 'id must be a UUID' }),
  /** The key a subscription is stored under: ids are issued in lower case, and UUIDs compare case-insensitively. */
  key: ({ id }: { id: string; stored: Iterable<string> }): string => id.toLowerCase(),
  /** The subscription stored under the key. */
  hook: ({ hooks, key }: { hooks: ReadonlyMap<string, Subscription>; key: string }): Subscription | undefined =>
    hooks.get(key),
  /** Only the account's own subscriptions can be deleted. */
  owns: ({ hook, account }: { hook: Subscription; account: AccountName; id: string }): boolean =>
    hook.accountId === account,
  /** The answer to a DELETE of a subscription already disabled. */
  alreadyDisabled: (hook: Subscription): NoDeletion => ({
    status: 404,
    error: 'not_found',
    message: 'the hook is already disabled',
  }),
  /** The soft delete: the subscription is disabled, deleted by its owner; its record stays. */
  disable: ({
    hook,
  }: {
    hook: Subscription;
    hooks: Map<string, Subscription>;
    /** DELETE /hooks/{id} requests received and not yet at their handler (./receiving.ts). */
    received: () => number;
  }): void | Promise<void> => {
    hook.status = 'disabled';
    hook.disabledReason = 'deleted';
  },
  deleted: ({ reply }: { reply: FastifyReply; hook: Subscription }): FastifyReply => reply.code(204).send(),
});

export async function hooksIdRoute(app: FastifyInstance, options: RouteOptions): Promise<void> {
  const { store, points } = options;
  const deletions = receiving();
  app.delete<{ Params: { id: string } }>('/v1/hooks/:id', deletions.hooks, async (request, reply) => {
    const token = authenticate(request, reply, 'DELETE /hooks/{id}', options);
    if (token === undefined) return reply;
    const at = points.of(deleteHook);
    const id = at.id({ raw: request.params.id, hooks: store.hooks });
    if (!at.isUuid(id)) return refuse(reply, points, at.notUuid());
    const hook = at.hook({ hooks: store.hooks, key: at.key({ id, stored: store.hooks.keys() }) });
    if (hook === undefined || !at.owns({ hook, account: token.account, id }))
      return sendError(reply, points, 404, 'not_found', 'no such hook');
    if (hook.status !== 'active') {
      const answer = at.alreadyDisabled(hook);
      return answer.error === undefined ? reply.code(answer.status).send() : refuse(reply, points, answer);
    }
    await at.disable({ hook, hooks: store.hooks, received: deletions.count });
    return at.deleted({ reply, hook });
  });
}
