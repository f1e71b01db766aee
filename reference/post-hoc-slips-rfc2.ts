/**
 * How the reference slips when a fault of the third post-hoc set (./post-hoc-faults-rfc2.ts) is
 * on: Fastify hooks around the routes (onRequest, preHandler, onSend), a wrapper of the store's
 * createHook and of the dispatcher's attempt hook. Each is the identity while none of these
 * faults is on; server.ts makes two calls (registerRfc2Slips, rfc2AttemptSlips), as for the
 * other sets. A slip changes what the slipped code would have changed: a field, the framing,
 * the connection, the request the route sees, or an id, so the route's own checks keep their order.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultSet } from './faults.ts';
import { parsedObject } from './http.ts';
import { GET_ROUTES } from './post-hoc-slips-rfc.ts';
import { rfc2PostHocFaultIds, type Rfc2PostHocFaultId } from './post-hoc-faults-rfc2.ts';
import type { ReferenceStore } from './store.ts';
import type { AttemptSlips } from './webhooks/dispatcher.ts';

type On = (id: Rfc2PostHocFaultId) => boolean;

function anyOn(faults: FaultSet): boolean {
  return rfc2PostHocFaultIds.some((id) => faults.has(id));
}

/** The JSON bodies of the API. */
const JSON_POSTS = new Set(['POST /v1/calls', 'POST /v1/hooks']);
/** The only two Content-Type values the slipped body check takes (compared in lower case). */
const TAKEN_MEDIA_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);

/** Keeps the first Host line of the raw header and drops the others (a map of first lines). */
function firstHostOnly(raw: string[]): void {
  let seen = false;
  for (let i = 0; i < raw.length; ) {
    const host = raw[i]!.toLowerCase() === 'host';
    if (host && seen) raw.splice(i, 2);
    else {
      seen ||= host;
      i += 2;
    }
  }
}

function onRequest(on: On, request: FastifyRequest, reply: FastifyReply): boolean {
  const url = request.routeOptions.url ?? '';
  if (on('rfc2-host-repeated-first-taken')) firstHostOnly(request.raw.rawHeaders);
  if (on('rfc2-connection-close-ignored')) reply.header('connection', 'keep-alive');
  if (request.method !== 'GET' || !GET_ROUTES.has(url)) return false;
  if (on('rfc2-precondition-before-auth') && request.headers['if-none-match']?.trim() === '*') {
    reply.code(304).send();
    return true;
  }
  if (on('rfc2-early-hints-to-http10')) reply.raw.writeEarlyHints({ link: '</v1/openapi.json>; rel=preload' });
  return false;
}

/** The token request as the slipped endpoint reads it: scope merged or dropped, Basic unread beside the body's. */
function tokenRequest(on: On, request: FastifyRequest): void {
  if (typeof request.body !== 'string') return;
  const params = new URLSearchParams(request.body);
  const scopes = params.getAll('scope');
  if (on('rfc2-token-two-auth-methods-body-wins') && params.has('client_id') && params.has('client_secret'))
    delete request.headers.authorization;
  // The body is rewritten only where a slip changes it; otherwise the route reads the bytes sent.
  if (on('rfc2-token-repeated-scope-merged') && scopes.length > 1) params.set('scope', scopes.join(' '));
  else if (!on('rfc2-token-scope-ignored-unreported') || scopes.length === 0) return;
  if (on('rfc2-token-scope-ignored-unreported')) params.delete('scope');
  request.body = params.toString();
}

function preHandler(on: On, request: FastifyRequest): void {
  const route = `${request.method} ${request.routeOptions.url ?? ''}`;
  if (route === 'POST /oauth/token') {
    tokenRequest(on, request);
    return;
  }
  const type = request.headers['content-type']?.toLowerCase();
  if (on('rfc2-media-type-quoted-parameter-refused') && JSON_POSTS.has(route) && type !== undefined)
    if (!TAKEN_MEDIA_TYPES.has(type)) request.body = '<refused: not one of the two media types taken>';
}

/** POST /oauth/token answers: `scope` never said; form-encoded unless Accept names application/json. */
function tokenAnswer(on: On, request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  let body = parsedObject(payload);
  if (body === undefined) return payload;
  if (on('rfc2-token-scope-ignored-unreported') && reply.statusCode === 200) {
    const { scope: _unsaid, ...rest } = body;
    body = rest;
  }
  if (on('rfc2-token-answers-form-encoded') && !/application\/json/i.test(request.headers.accept ?? '')) {
    reply.header('content-type', 'application/x-www-form-urlencoded');
    return new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString();
  }
  return JSON.stringify(body);
}

function onSend(on: On, request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  const url = request.routeOptions.url ?? '';
  if (request.method === 'GET' && GET_ROUTES.has(url) && reply.statusCode === 200 && on('rfc2-trailer-to-http10'))
    reply.trailer('server-timing', (_reply, _payload, done) => done(null, 'app;dur=1'));
  if (request.method === 'POST' && url === '/oauth/token') return tokenAnswer(on, request, reply, payload);
  if (url === '/.well-known/oauth-authorization-server' && on('rfc2-metadata-grant-types-omitted')) {
    const doc = parsedObject(payload);
    if (doc === undefined || reply.statusCode !== 200) return payload;
    const { grant_types_supported: _omitted, ...rest } = doc;
    return JSON.stringify(rest);
  }
  return payload;
}

/** A "UUID" of "xxxxxxxx-xxxx-4xxx-xxxx-xxxxxxxxxxxx" filled with hex; its variant digit here is never 8 to b. */
function hexTemplateUuid(): string {
  const hex = randomBytes(16).toString('hex');
  const variant = '01234567cdef'[randomBytes(1)[0]! % 12]!;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20)}`;
}

function wrapStore(store: ReferenceStore): void {
  const createHook = store.createHook.bind(store);
  store.createHook = (account, event, targetUrl) => {
    const hook = createHook(account, event, targetUrl);
    if (!store.faults.has('rfc2-hook-id-uuid-variant')) return hook;
    store.hooks.delete(hook.id);
    hook.id = hexTemplateUuid();
    store.hooks.set(hook.id, hook);
    return hook;
  };
}

/** Installs the slips on a reference app; call it before the Host check of ./wire.ts, as registerRfcSlips. */
export function registerRfc2Slips(app: FastifyInstance, store: ReferenceStore): void {
  const faults = store.faults;
  const on: On = (id) => faults.has(id);
  wrapStore(store);
  app.addHook('onRequest', (request, reply, done) => {
    if (!anyOn(faults) || !onRequest(on, request, reply)) done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    if (anyOn(faults)) preHandler(on, request);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!anyOn(faults)) return done(null, payload);
    done(null, onSend(on, request, reply, payload));
  });
}

/** The dispatcher's attempt hook of the other sets, with this set's slip of the request after it. */
export function rfc2AttemptSlips(faults: FaultSet, inner: AttemptSlips): AttemptSlips {
  return {
    request(sent) {
      const { headers, body } = inner.request(sent);
      if (!faults.has('rfc2-webhook-te-without-connection')) return { headers, body };
      return { headers: { ...headers, te: 'trailers' }, body };
    },
    outcome: (outcome, subscription) => inner.outcome(outcome, subscription),
  };
}
