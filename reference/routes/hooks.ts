/**
 * POST /hooks (spec: Webhooks): subscribes an https target to one event kind, for a token with
 * write:hooks; answers 200 {id, secret}, the secret given this once. Creating a subscription
 * delivers nothing by itself.
 *
 * Decision where the spec is silent (an OBSERVE requirement of the catalogue): target_url must be
 * an absolute https URI (`https://` in any case, a host, only URI characters, valid %-escapes), at
 * most 512 characters.
 */
import type { FastifyInstance } from 'fastify';
import { eventTypes, limits } from '../../contract/openapi.ts';
import type { EventType } from '../../contract/openapi.ts';
import { sendError } from '../http.ts';
import { site } from '../points.ts';
import type { AccountName } from '../seed.ts';
import type { ReferenceStore } from '../store.ts';
import type { Subscription } from '../webhooks/dispatcher.ts';
import { authenticate } from './authentication.ts';
import { objectBody } from './json-body.ts';
import { receiving } from './receiving.ts';
import type { RouteOptions } from './options.ts';

const URI_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/** Whether `value` is an absolute https URI with a host. */
export function isHttpsUri(value: string): boolean {
  if (!URI_CHARS.test(value) || BAD_ESCAPE.test(value)) return false;
  // RFC 3986 §3.1: the scheme is case-insensitive, so HTTPS://host is an https URI.
  if (!value.toLowerCase().startsWith('https://')) return false;
  // RFC 3986 reads the host from the authority itself; WHATWG URL would take "hooks" as the host of
  // https:///hooks/x, which RFC 9110 §4.2.2 says a recipient must reject (an empty host).
  const authority = value.slice(value.indexOf('//') + 2).split(/[/?#]/, 1)[0]!;
  if (authority.replace(/^[^@]*@/, '').replace(/:[0-9]*$/, '') === '') return false;
  try {
    return new URL(value).hostname.length > 0;
  } catch {
    return false;
  }
}

/** A subscription to make: whose, of which event, to which target. */
export interface NewSubscription {
  readonly store: ReferenceStore;
  readonly account: AccountName;
  readonly event: EventType;
  readonly targetUrl: string;
  /** POST /hooks requests received and not yet at their handler (./receiving.ts). */
  readonly received: () => number;
}

export const postHooks = site('POST /hooks', {
  /** The event field as the body gives it. */
  event: (value: unknown): unknown => value,
  /** The target_url field as the body gives it. */
  targetUrl: (value: unknown): unknown => value,
  /** One of the event kinds the spec enumerates. */
  knownEvent: (event: unknown): boolean => typeof event === 'string' && eventTypes.includes(event as EventType),
  tooLong: (targetUrl: string): boolean => targetUrl.length > limits.targetUrlMaxLength,
  httpsUri: (targetUrl: string): boolean => isHttpsUri(targetUrl),
  /** What a refused POST /hooks leaves behind: nothing. */
  refused: (_refused: { store: ReferenceStore; account: AccountName; event: unknown; targetUrl: unknown }): void => {},
  /** A new subscription, active, with a secret of its own. */
  subscribe: ({ store, account, event, targetUrl }: NewSubscription): Subscription | Promise<Subscription> =>
    store.createHook(account, event, targetUrl),
});

export async function hooksRoute(app: FastifyInstance, options: RouteOptions): Promise<void> {
  const { store, points } = options;
  const creations = receiving();
  app.post('/v1/hooks', creations.hooks, async (request, reply) => {
    const token = authenticate(request, reply, 'POST /hooks', options);
    if (token === undefined) return reply;
    const body = objectBody(request, reply, options);
    if (body === undefined) return reply;
    const at = points.of(postHooks);
    const event = at.event(body.event);
    const targetUrl = at.targetUrl(body.target_url);
    const invalid = (message: string) => {
      at.refused({ store, account: token.account, event, targetUrl });
      return sendError(reply, points, 400, 'invalid_input', message);
    };
    if (!at.knownEvent(event)) return invalid(`event is required and must be one of ${eventTypes.join(', ')}`);
    if (typeof targetUrl !== 'string') return invalid('target_url is required and must be a string');
    if (at.tooLong(targetUrl)) return invalid(`target_url is longer than ${limits.targetUrlMaxLength} characters`);
    if (!at.httpsUri(targetUrl)) return invalid('target_url must be an absolute https URI');
    const hook = await at.subscribe({
      store,
      account: token.account,
      event: event as EventType,
      targetUrl,
      received: creations.count,
    });
    return reply.send({ id: hook.id, secret: hook.secret });
  });
}
