/**
 * Subscriptions made by checks: created through POST /hooks against a receiver path, written to
 * the run's journal before anything else happens, and deleted when the check ends unless the
 * check deleted it itself. The receiver knows the path (with its response plan) before POST /hooks
 * sends it, and gets its secret once POST /hooks answers (`onReceiver`).
 */
import { randomUUID } from 'node:crypto';
import type { TokenName } from '../config/tokens.ts';
import type { EventType } from '../../contract/openapi.ts';
import type { Exchange } from '../http/client.ts';
import type { ResponsePlan } from '../webhooks/receiver.ts';
import type { CheckTools } from '../checks/check.ts';
import { journalCreated, journalDeleted } from '../run/journal.ts';

export interface Subscription {
  readonly id: string;
  readonly secret: string;
  readonly event: EventType;
  /** Receiver path deliveries arrive on. */
  readonly path: string;
  readonly creation: Exchange;
  /** DELETE /hooks/{id} with the creating token; journals a 204. */
  remove(): Promise<Exchange>;
}

export async function subscribe(
  t: CheckTools,
  options: {
    event: EventType;
    tokenName?: TokenName;
    plan?: ResponsePlan;
    /** Each event goes through the plan on its own (other events of the account may reach the hook). */
    perEvent?: boolean;
    targetUrl?: string;
    contentType?: string;
  },
): Promise<Subscription> {
  const tokenName = options.tokenName ?? 'all';
  const path = `/hooks/${options.event}/${randomUUID().slice(0, 8)}`;
  const targetUrl =
    options.targetUrl ??
    (t.target.receiverPublicUrl === undefined
      ? `https://example.invalid${path}`
      : `${t.target.receiverPublicUrl}${path}`);
  const body = { event: options.event, target_url: targetUrl };
  const setup = {
    ...(options.plan === undefined ? {} : { plan: options.plan }),
    ...(options.perEvent === true ? { perEvent: true } : {}),
  };
  const { id, secret, creation } = await onReceiver(
    t,
    options.targetUrl === undefined ? path : undefined,
    setup,
    async () => {
      const creation = await t.call({
        method: 'POST',
        path: '/hooks',
        token: t.token(tokenName),
        ...(options.contentType === undefined
          ? { json: body }
          : { body: JSON.stringify(body), contentType: options.contentType }),
      });
      t.expectStatus(creation, 200);
      const { id, secret } = creation.json as { id: string; secret: string };
      await journalCreated(id, tokenName);
      return { id, secret, creation };
    },
  );
  const remove = removal(t, id, tokenName);
  t.onCleanup(async () => {
    if (!remove.done()) await remove();
  });
  return { id, secret, event: options.event, path, creation, remove };
}

/**
 * Creates a hook whose target is `path` of the run's receiver (`undefined`: a target elsewhere),
 * in the one order that leaves no gap: the receiver first learns the path and its plan, then
 * `create` sends POST /hooks (and journals the hook), then the receiver gets the secret POST /hooks
 * returned. A target may deliver within a millisecond of POST /hooks, before its answer reaches
 * us (other events of the account, at any time): the path is known by then, and what arrives
 * before the secret is kept, answered by the plan and judged once the secret is given
 * (harness/webhooks/receiver-handlers.ts). Every check and property that subscribes goes through here.
 */
export async function onReceiver<T extends { readonly secret: string }>(
  t: CheckTools,
  path: string | undefined,
  setup: { plan?: ResponsePlan; perEvent?: boolean },
  create: () => Promise<T>,
): Promise<T> {
  const atReceiver = path !== undefined && t.target.receiverLocalUrl !== undefined ? path : undefined;
  if (atReceiver !== undefined) await t.receiver.register(atReceiver, setup);
  const created = await create();
  if (atReceiver !== undefined) await t.receiver.register(atReceiver, { secret: created.secret });
  return created;
}

/** DELETE /hooks/{id} with the creating token, journalling a 204 (or a 404: already gone); `done` once it did. */
function removal(t: CheckTools, id: string, tokenName: TokenName): (() => Promise<Exchange>) & { done(): boolean } {
  let removed = false;
  const remove = async (): Promise<Exchange> => {
    const exchange = await t.call({ method: 'DELETE', path: `/hooks/${id}`, token: t.token(tokenName) });
    if (exchange.status === 204 || exchange.status === 404) {
      removed = true;
      await journalDeleted(id, tokenName);
    }
    return exchange;
  };
  return Object.assign(remove, { done: () => removed });
}

/** A subscription's data, without its removal (e.g. to hand it to another worker of the run). */
export type SubscriptionData = Omit<Subscription, 'remove'>;

/** A subscription another check made (with the `all` token, as `subscribe` does by default), removable by `t`. */
export function adoptSubscription(t: CheckTools, data: SubscriptionData): Subscription {
  return { ...data, remove: removal(t, data.id, 'all') };
}
