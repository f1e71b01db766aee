/**
 * How the reference slips when a post-hoc fault (./post-hoc-faults.ts) is on. Everything lives
 * here, outside the routes: Fastify hooks around them (onRequest, preHandler, onSend), wrappers
 * of four store methods, and the dispatcher's attempt hook (AttemptSlips). Each is the identity
 * while none of these faults is on, so the routes of ./api.ts stay as they are; server.ts makes
 * two calls (registerPostHocSlips, postHocAttemptSlips).
 *
 * An answer is changed the way the slipped code would have answered: a route's refusal turned
 * into what the slip lets through (computed with the store, as the route would), or a route's
 * answer turned into the slip's refusal; the order of the route's other checks is kept.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { E164_PATTERN, eventTypes, limits } from '../contract/openapi.ts';
import { SIGNATURE_HEADER, signPayload } from '../contract/signature.ts';
import type { FaultSet } from './faults.ts';
import { isJsonContentType, isPlainObject, singleQuery } from './http.ts';
import { postHocFaultIds, type PostHocFaultId } from './post-hoc-faults.ts';
import type { TokenRecord } from './seed.ts';
import { parseLimit } from './routes/cdrs.ts';
import { isHttpsUri } from './routes/hooks.ts';
import type { ReferenceStore } from './store.ts';
import { parseDateTime } from './timestamps.ts';
import type { AttemptOutcome, AttemptSlips, Subscription } from './webhooks/dispatcher.ts';

type On = (id: PostHocFaultId) => boolean;

/** Whether any post-hoc fault is on: the hooks step aside at once when none is. */
function anyOn(faults: FaultSet): boolean {
  return postHocFaultIds.some((id) => faults.has(id));
}

/** The /v1 routes that require a bearer token (openapi.json and docs do not). */
const SECURED_ROUTES = new Set(['/v1/me', '/v1/balance', '/v1/cdrs', '/v1/agents', '/v1/calls', '/v1/hooks']);
const isSecured = (url: string | undefined) =>
  url !== undefined && (SECURED_ROUTES.has(url) || url === '/v1/hooks/:id');

const BEARER = /^bearer +([^\s]+) *$/i;

function tokenOf(request: FastifyRequest, store: ReferenceStore): TokenRecord | undefined {
  const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
  return token === undefined ? undefined : store.state.tokens.get(token);
}

function expired(record: TokenRecord, store: ReferenceStore): boolean {
  return record.expiresAt !== undefined && record.expiresAt <= store.tokenNow();
}

/** A token the API authenticates (known, not revoked, not expired), whatever its scopes. */
function liveToken(request: FastifyRequest, store: ReferenceStore): TokenRecord | undefined {
  const record = tokenOf(request, store);
  return record === undefined || record.revoked || expired(record, store) ? undefined : record;
}

function parsed(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The request's JSON object body, or undefined when it is not one. */
function objectBody(request: FastifyRequest): Record<string, unknown> | undefined {
  if (!isJsonContentType(request.headers['content-type'])) return undefined;
  const value = parsed(request.body);
  return isPlainObject(value) ? value : undefined;
}

/** The `error` code of an answer's payload. */
const errorOf = (payload: unknown): unknown => (parsed(payload) as { error?: unknown } | undefined)?.error;

function answer(reply: FastifyReply, status: number, body: unknown): string {
  reply.code(status);
  return JSON.stringify(body);
}

const notProvisioned = (reply: FastifyReply) =>
  answer(reply, 409, { error: 'account_not_provisioned', message: 'no trunk is allocated to the account yet' });

/** GET /cdrs: ph-cdrs-zero-window-accepted, ph-cdrs-window-unchecked-with-default-till. */
function cdrsAnswer(on: On, store: ReferenceStore, request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (reply.statusCode !== 400) return payload;
  const code = errorOf(payload);
  const fromRaw = singleQuery(request.query, 'from');
  const tillRaw = singleQuery(request.query, 'till');
  const from = typeof fromRaw === 'string' ? parseDateTime(fromRaw) : undefined;
  const till = typeof tillRaw === 'string' ? parseDateTime(tillRaw) : undefined;
  const zero = on('ph-cdrs-zero-window-accepted') && code === 'till_must_be_after_from' && from === till;
  const defaulted = on('ph-cdrs-window-unchecked-with-default-till') && code === 'window_too_wide';
  if (from === undefined || !((zero && till !== undefined) || (defaulted && tillRaw === undefined))) return payload;
  const account = liveToken(request, store)?.account;
  if (account === undefined) return payload;
  if (!store.state.accounts.get(account)?.trunk) return notProvisioned(reply);
  if (zero) return answer(reply, 200, { count: 0, calls: [] });
  const tillMs = store.clock.now();
  const rows = (store.state.cdrs.get(account) ?? [])
    .filter((r) => r.startMs >= from && r.startMs < tillMs)
    .slice(0, parseLimit(singleQuery(request.query, 'limit')));
  return answer(reply, 200, { count: rows.length, calls: rows.map((r) => r.row) });
}

/** GET /agents: ph-agents-created-at-naive. */
function agentsAnswer(reply: FastifyReply, payload: unknown) {
  const body = parsed(payload) as { agents?: Array<Record<string, unknown>> } | undefined;
  if (reply.statusCode !== 200 || !Array.isArray(body?.agents)) return payload;
  for (const agent of body.agents)
    if (typeof agent.createdAt === 'string') agent.createdAt = agent.createdAt.replace(/(\.[0-9]+)?Z$/, '');
  return JSON.stringify(body);
}

/** POST /hooks: ph-hooks-validation-422, ph-hook-saved-before-length-check. */
function hooksAnswer(on: On, store: ReferenceStore, request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  const body = objectBody(request);
  if (reply.statusCode !== 400 || body === undefined) return payload;
  const target = body.target_url;
  const event = body.event;
  if (
    on('ph-hook-saved-before-length-check') &&
    typeof event === 'string' &&
    eventTypes.includes(event as never) &&
    typeof target === 'string' &&
    target.length > limits.targetUrlMaxLength &&
    isHttpsUri(target)
  ) {
    const account = liveToken(request, store)?.account;
    if (account !== undefined) store.createHook(account, event, target);
  }
  if (on('ph-hooks-validation-422')) reply.code(422);
  return payload;
}

/** DELETE /hooks/{id}: ph-delete-auto-disabled-204. */
function deleteAnswer(store: ReferenceStore, request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (reply.statusCode !== 404) return payload;
  const hook = store.hooks.get(String((request.params as { id?: unknown }).id).toLowerCase());
  const account = liveToken(request, store)?.account;
  if (hook === undefined || hook.accountId !== account || hook.disabledReason !== 'auto_disabled') return payload;
  hook.disabledReason = 'deleted';
  reply.code(204).removeHeader('content-type');
  return null;
}

/** 401 answers: ph-expired-token-code, ph-scope-403. */
function authAnswer(on: On, store: ReferenceStore, request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (reply.statusCode !== 401) return payload;
  const record = tokenOf(request, store);
  if (record === undefined || record.revoked) return payload;
  if (expired(record, store))
    return on('ph-expired-token-code')
      ? answer(reply, 401, { error: 'token_expired', message: 'the token has expired' })
      : payload;
  if (!on('ph-scope-403')) return payload;
  return answer(reply, 403, { error: 'insufficient_scope', message: 'the token lacks the scope of this operation' });
}

/** Per request: POST /calls' invalid fromNumber taken out before the route saw it, or its valid one. */
const fromNumbers = new WeakMap<FastifyRequest, { valid: boolean; value: unknown }>();
/** callId → the fromNumber its CDR gets (ph-calls-from-number-forwarded); bounded. */
const forwarded = new Map<string, string>();
const FORWARDED_KEPT = 10_000;

/** POST /calls before the route: ph-calls-placed-despite-bad-from-number, ph-calls-from-number-forwarded. */
function callsRequest(on: On, request: FastifyRequest): void {
  const body = objectBody(request);
  if (body === undefined || body.fromNumber === undefined) return;
  const valid = typeof body.fromNumber === 'string' && E164_PATTERN.test(body.fromNumber);
  if (!valid && on('ph-calls-placed-despite-bad-from-number')) {
    fromNumbers.set(request, { valid, value: body.fromNumber });
    const { fromNumber: _left, ...rest } = body;
    request.body = JSON.stringify(rest);
  }
  if (valid && on('ph-calls-from-number-forwarded')) fromNumbers.set(request, { valid, value: body.fromNumber });
}

/** POST /calls after the route: the call placed, then the fromNumber refused; or the caller ID kept. */
function callsAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  const from = fromNumbers.get(request);
  if (from === undefined || reply.statusCode !== 200) return payload;
  if (!from.valid)
    return answer(reply, 400, {
      error: 'invalid_input',
      message: 'fromNumber must be an E.164 number, e.g. +14155550100',
    });
  const callId = (parsed(payload) as { callId?: unknown } | undefined)?.callId;
  if (typeof callId === 'string') {
    if (forwarded.size >= FORWARDED_KEPT) forwarded.delete(forwarded.keys().next().value!);
    forwarded.set(callId, String(from.value));
  }
  return payload;
}

function onSend(store: ReferenceStore, request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  const on: On = (id) => store.faults.has(id);
  const route = `${request.method} ${request.routeOptions.url ?? ''}`;
  if (isSecured(request.routeOptions.url)) payload = authAnswer(on, store, request, reply, payload);
  if (route === 'GET /v1/cdrs') return cdrsAnswer(on, store, request, reply, payload);
  if (route === 'GET /v1/agents' && on('ph-agents-created-at-naive')) return agentsAnswer(reply, payload);
  if (route === 'POST /v1/hooks') return hooksAnswer(on, store, request, reply, payload);
  if (route === 'DELETE /v1/hooks/:id' && on('ph-delete-auto-disabled-204'))
    return deleteAnswer(store, request, reply, payload);
  if (route === 'POST /v1/calls') return callsAnswer(request, reply, payload);
  if (route === 'POST /oauth/token' && on('ph-oauth-no-store-missing')) {
    reply.removeHeader('cache-control').removeHeader('pragma');
    return payload;
  }
  if (route === 'GET /v1/openapi.json' && on('ph-openapi-3-0')) {
    const doc = parsed(payload) as Record<string, unknown> | undefined;
    return doc === undefined ? payload : JSON.stringify({ ...doc, openapi: '3.0.3' });
  }
  return payload;
}

/** A UUID v7 (RFC 9562 §5.7): 48 bits of unix ms, version 7, variant 10, random bits. */
export function uuidV7(ms: number, random: Uint8Array = crypto.getRandomValues(new Uint8Array(10))): string {
  const hex = ms.toString(16).padStart(12, '0').slice(-12);
  const r = [...random].map((b) => b.toString(16).padStart(2, '0')).join('');
  const variant = ((random[2]! & 0x3f) | 0x80).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${r.slice(1, 4)}-${variant}${r.slice(6, 8)}-${r.slice(8, 20)}`;
}

/**
 * The store's slips: hook ids (ph-hook-id-uuid-v7), event payloads (ph-event-contact-id-number),
 * the CDR of a call with a caller ID (ph-calls-from-number-forwarded) and OAuth expiry
 * (ph-oauth-expiry-seconds-as-ms). Each wrapper calls the store's own method first.
 */
function wrapStore(store: ReferenceStore): void {
  const on: On = (id) => store.faults.has(id);
  const createHook = store.createHook.bind(store);
  store.createHook = (account, event, targetUrl) => {
    const hook = createHook(account, event, targetUrl);
    if (!on('ph-hook-id-uuid-v7')) return hook;
    store.hooks.delete(hook.id);
    hook.id = uuidV7(Date.now());
    store.hooks.set(hook.id, hook);
    return hook;
  };
  const contactKeys = new Map<string, number>();
  const buildPayload = store.buildPayload.bind(store);
  store.buildPayload = (event, fields) => {
    const payload = buildPayload(event, fields);
    const contact = payload.contactId;
    if (!on('ph-event-contact-id-number') || typeof contact !== 'string') return payload;
    if (contactKeys.size >= FORWARDED_KEPT) contactKeys.clear();
    if (!contactKeys.has(contact)) contactKeys.set(contact, 4_100 + contactKeys.size);
    return { ...payload, contactId: contactKeys.get(contact)! };
  };
  const emit = store.emit.bind(store);
  store.emit = (account, event, fields) => {
    const callId = fields.callId;
    const from = typeof callId === 'string' ? forwarded.get(callId) : undefined;
    if (event === 'call.ended' && from !== undefined) {
      forwarded.delete(callId as string);
      const cdrId = store.calls.get(callId as string)?.cdrId;
      const cdr = store.state.cdrs.get(account)?.find((record) => record.row.id === cdrId);
      if (cdr !== undefined) cdr.row.src = from;
    }
    return emit(account, event, fields);
  };
  const mintToken = store.mintToken.bind(store);
  store.mintToken = (account, scopes, kind, label, expiresAt) => {
    if (kind !== 'oauth' || expiresAt === undefined || !on('ph-oauth-expiry-seconds-as-ms'))
      return mintToken(account, scopes, kind, label, expiresAt);
    const now = store.tokenNow();
    return mintToken(account, scopes, kind, label, now + (expiresAt - now) / 1000);
  };
}

/**
 * Installs the slips on a reference app. Call it before the rate limiter's onRequest hook, so
 * ph-rate-limit-after-auth answers an unauthenticated request before the limiter counts it.
 */
export function registerPostHocSlips(app: FastifyInstance, store: ReferenceStore): void {
  const faults = store.faults;
  wrapStore(store);
  // ph-cdrs-now-cached: "now" read once, when the process started.
  const startedAt = store.clock.now();
  app.addHook('onRequest', (request, reply, done) => {
    if (!anyOn(faults)) return done();
    const url = request.routeOptions.url;
    if (faults.has('ph-rate-limit-after-auth') && isSecured(url) && liveToken(request, store) === undefined) {
      // The framework's authentication step answers as the route's would, challenge included.
      reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="api", error="invalid_token"')
        .send({ error: 'unauthorized', message: 'missing, unknown, revoked or expired token' });
      return;
    }
    const query = request.query as Record<string, unknown> | undefined;
    if (faults.has('ph-cdrs-now-cached') && url === '/v1/cdrs' && query !== undefined && query.till === undefined)
      query.till = new Date(startedAt).toISOString();
    done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    if (anyOn(faults) && request.method === 'POST' && request.routeOptions.url === '/v1/calls')
      callsRequest((id) => faults.has(id), request);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!anyOn(faults)) return done(null, payload);
    done(null, onSend(store, request, reply, payload));
  });
}

/** The dispatcher's side: what a delivery attempt sends and how its answer is read. */
export function postHocAttemptSlips(faults: FaultSet): AttemptSlips {
  return {
    request(sent) {
      let { headers, body } = sent;
      if (!anyOn(faults)) return { headers, body };
      if (faults.has('ph-signature-ms-timestamp'))
        headers = { ...headers, [SIGNATURE_HEADER]: signPayload(sent.secret, sent.signedAtMs, body) };
      if (faults.has('ph-signature-reserialized-body')) body = JSON.stringify(JSON.parse(body), null, 2);
      if (faults.has('ph-delivery-text-plain')) headers = { ...headers, 'content-type': 'text/plain;charset=UTF-8' };
      return { headers, body };
    },
    outcome(outcome: AttemptOutcome, subscription: Subscription): AttemptOutcome {
      if (outcome.kind !== 'status') return outcome;
      const { status } = outcome;
      if (faults.has('ph-ack-only-200') && status > 200 && status < 300)
        return { kind: 'connection_error', message: `unexpected status ${status} (only 200 acknowledges)` };
      // The dispatcher counts this failure next: one less first leaves the count where it was.
      if (faults.has('ph-4xx-not-counted') && status >= 400 && status < 500) subscription.consecutiveFailures -= 1;
      return outcome;
    },
  };
}
