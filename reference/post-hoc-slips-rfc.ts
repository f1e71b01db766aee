/**
 * How the reference slips when a fault of the RFC set (./post-hoc-faults-rfc.ts) is on: Fastify
 * hooks around the routes (onRequest, preHandler, onSend) and a wrapper of the dispatcher's
 * attempt hook. Each is the identity while none of these faults is on, so the routes stay as
 * they are; server.ts makes two calls (registerRfcSlips, rfcAttemptSlips), as for the first set.
 *
 * A slip changes what goes on the wire the way the slipped code would have: a header added,
 * dropped or rewritten, the body's bytes, or the request the route sees (a header or a body the
 * slipped code would have read otherwise), so the route's own order of checks is kept.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SIGNATURE_HEADER, signPayload } from '../contract/signature.ts';
import type { FaultSet } from './faults.ts';
import { parsedObject } from './http.ts';
import { rfcPostHocFaultIds, type RfcPostHocFaultId } from './post-hoc-faults-rfc.ts';
import type { ReferenceStore } from './store.ts';
import type { AttemptSlips } from './webhooks/dispatcher.ts';

type On = (id: RfcPostHocFaultId) => boolean;

function anyOn(faults: FaultSet): boolean {
  return rfcPostHocFaultIds.some((id) => faults.has(id));
}

/** The /v1 routes that require a bearer token. */
const SECURED = new Set(['/v1/me', '/v1/balance', '/v1/cdrs', '/v1/agents', '/v1/calls', '/v1/hooks', '/v1/hooks/:id']);
/** The routes a GET serves (and so a HEAD). */
export const GET_ROUTES = new Set([
  '/v1/me',
  '/v1/balance',
  '/v1/cdrs',
  '/v1/agents',
  '/v1/openapi.json',
  '/v1/docs',
  '/.well-known/oauth-authorization-server',
]);
const METADATA_ROUTE = '/.well-known/oauth-authorization-server';
/** The token request parameters the endpoint knows (RFC 6749 §4.4.2, §2.3.1). */
const TOKEN_PARAMETERS = new Set(['grant_type', 'scope', 'client_id', 'client_secret']);

/** The Authorization header as the slipped API middleware reads it (rfc-header-name-case-sensitive, rfc-bearer-*). */
function slipAuthorization(on: On, request: FastifyRequest): void {
  const header = request.headers.authorization;
  if (header === undefined) return;
  const raw = request.raw.rawHeaders;
  const exact = raw.some((name, i) => i % 2 === 0 && name === 'Authorization');
  if (on('rfc-header-name-case-sensitive') && !exact) {
    delete request.headers.authorization;
    return;
  }
  // header.split(' ')[1]: with two spaces the token read is the empty word.
  if (on('rfc-bearer-extra-space-refused') && /^bearer {2,}/i.test(header)) request.headers.authorization = 'Bearer';
  // header.startsWith('Bearer '): any other case of the scheme is no bearer token at all.
  if (on('rfc-bearer-scheme-case-sensitive') && /^bearer /i.test(header) && !header.startsWith('Bearer '))
    request.headers.authorization = 'Bearer';
}

function onRequest(faults: FaultSet, request: FastifyRequest, reply: FastifyReply): boolean {
  const on: On = (id) => faults.has(id);
  const url = request.routeOptions.url;
  if (on('rfc-date-missing')) reply.raw.sendDate = false;
  if (on('rfc-absolute-form-404') && !request.raw.url?.startsWith('/')) {
    reply.code(404).send({ error: 'not_found', message: `no such resource: ${request.method} ${request.raw.url}` });
    return true;
  }
  if (on('rfc-head-refused') && request.method === 'HEAD' && url !== undefined && GET_ROUTES.has(url)) {
    const message = `HEAD is not allowed on ${request.url.split('?', 1)[0]}; allowed: GET`;
    reply.code(405).header('allow', 'GET').send({ error: 'method_not_allowed', message });
    return true;
  }
  if (url !== undefined && SECURED.has(url)) slipAuthorization(on, request);
  return false;
}

/** Before the route reads the body: the slipped body checks and the token endpoint's closed schema. */
function preHandler(faults: FaultSet, request: FastifyRequest, reply: FastifyReply): boolean {
  const on: On = (id) => faults.has(id);
  const route = `${request.method} ${request.routeOptions.url ?? ''}`;
  const body = request.body;
  // The route then finds no JSON in the body, after authenticating, as the slipped sniff answered.
  if (route === 'POST /v1/calls' && on('rfc-json-leading-whitespace-refused') && typeof body === 'string')
    if (/^\s/.test(body) && body.trim() !== '') request.body = '<refused: does not start with {>';
  if (route === 'POST /v1/hooks' && on('rfc-json-escape-refused') && typeof body === 'string')
    if (body.includes('\\u')) request.body = '<refused: unicode escape>';
  if (route !== 'POST /oauth/token') return false;
  if (on('rfc-oauth-basic-unsupported') && /^basic /i.test(request.headers.authorization ?? ''))
    delete request.headers.authorization;
  if (on('rfc-oauth-unknown-parameter-refused') && typeof body === 'string') {
    const unknown = [...new URLSearchParams(body).keys()].find((key) => !TOKEN_PARAMETERS.has(key));
    if (unknown !== undefined) {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache').code(400);
      reply.send({ error: 'invalid_request', error_description: `unknown parameter ${unknown}` });
      return true;
    }
  }
  return false;
}

/** POST /oauth/token answers: the member, the code, the description, the challenge. */
function tokenAnswer(on: On, request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  const body = parsedObject(payload);
  if (body === undefined) return payload;
  if (reply.statusCode === 200) {
    if (!on('rfc-oauth-token-type-missing')) return payload;
    const { token_type: _dropped, ...rest } = body;
    return JSON.stringify(rest);
  }
  if (reply.statusCode === 401 && on('rfc-oauth-basic-401-no-challenge') && request.headers.authorization)
    reply.removeHeader('www-authenticate');
  const params = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
  if (on('rfc-oauth-error-description-quotes')) {
    const quoted: Record<string, string> = {
      invalid_client: `client "${params.get('client_id') ?? ''}" failed to authenticate`,
      unsupported_grant_type: `grant_type "${params.get('grant_type') ?? ''}" is not supported`,
      invalid_scope: `scope "${params.get('scope') ?? ''}" is not allowed for this client`,
    };
    const description = quoted[String(body.error)];
    if (description !== undefined) body.error_description = description;
  }
  if (on('rfc-oauth-error-code-unregistered') && body.error === 'invalid_client') body.error = 'invalid_credentials';
  return JSON.stringify(body);
}

/** GET /cdrs answers: the offset's form, the framing, the byte order mark. */
function cdrsAnswer(on: On, reply: FastifyReply, payload: unknown): unknown {
  if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
  let text = payload;
  if (on('rfc-cdr-offset-without-colon'))
    text = text.replace(/("startTime":"[0-9T:.-]+)Z"/g, (_all, stamp: string) => `${stamp}+0000"`);
  if (on('rfc-json-bom')) text = `\uFEFF${text}`;
  if (on('rfc-chunked-with-content-length'))
    reply.header('transfer-encoding', 'chunked').header('content-length', String(Buffer.byteLength(text)));
  return text;
}

function onSend(faults: FaultSet, request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  const on: On = (id) => faults.has(id);
  const url = request.routeOptions.url ?? '';
  if (reply.statusCode === 405 && on('rfc-405-without-allow')) reply.removeHeader('allow');
  if (reply.statusCode === 429 && on('rfc-retry-after-fraction')) {
    const seconds = Number(reply.getHeader('retry-after'));
    if (Number.isFinite(seconds)) reply.header('retry-after', (seconds - 0.25).toFixed(2));
  }
  if (request.method === 'HEAD' && reply.statusCode === 200 && on('rfc-head-content-length-zero')) {
    reply.header('content-length', '0');
    return '';
  }
  if (
    request.method === 'DELETE' &&
    url === '/v1/hooks/:id' &&
    reply.statusCode === 204 &&
    on('rfc-204-content-length')
  )
    reply.header('content-length', '0');
  if (request.method === 'GET' && url === '/v1/cdrs') return cdrsAnswer(on, reply, payload);
  if (request.method === 'GET' && url === '/v1/balance' && reply.statusCode === 200 && on('rfc-json-infinity'))
    return typeof payload === 'string' ? payload.replace('"creditLimit":null', '"creditLimit":Infinity') : payload;
  if (request.method === 'POST' && url === '/oauth/token') return tokenAnswer(on, request, reply, payload);
  if (url === METADATA_ROUTE && reply.statusCode === 200) {
    if (on('rfc-metadata-octet-stream')) reply.header('content-type', 'application/octet-stream');
    const doc = parsedObject(payload);
    if (on('rfc-metadata-issuer-trailing-slash') && typeof doc?.issuer === 'string')
      return JSON.stringify({ ...doc, issuer: `${doc.issuer}/` });
  }
  return payload;
}

/** Installs the slips on a reference app; call it before the rate limiter's onRequest hook, as registerPostHocSlips. */
export function registerRfcSlips(app: FastifyInstance, store: ReferenceStore): void {
  const faults = store.faults;
  app.addHook('onRequest', (request, reply, done) => {
    if (!anyOn(faults) || !onRequest(faults, request, reply)) done();
  });
  app.addHook('preHandler', (request, reply, done) => {
    if (!anyOn(faults) || !preHandler(faults, request, reply)) done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!anyOn(faults)) return done(null, payload);
    done(null, onSend(faults, request, reply, payload));
  });
}

/** IMF-fixdate is what toUTCString() writes; the slip writes the ISO form instead. */
const isoDate = () => new Date().toISOString();

/** The dispatcher's attempt hook of the first set, with the RFC set's slips of the request after it. */
export function rfcAttemptSlips(faults: FaultSet, inner: AttemptSlips): AttemptSlips {
  return {
    request(sent) {
      let { headers, body } = inner.request(sent);
      if (!anyOn(faults)) return { headers, body };
      if (faults.has('rfc-webhook-bom')) {
        body = `\uFEFF${body}`;
        headers = {
          ...headers,
          [SIGNATURE_HEADER]: signPayload(sent.secret, Math.floor(sent.signedAtMs / 1000), body),
        };
      }
      if (faults.has('rfc-webhook-content-type-twice'))
        headers = { ...headers, 'Content-Type': 'application/json; charset=utf-8' };
      if (faults.has('rfc-webhook-date-iso')) headers = { ...headers, date: isoDate() };
      if (faults.has('rfc-webhook-host-without-port') && sent.url !== undefined)
        headers = { ...headers, host: new URL(sent.url).hostname };
      return { headers, body };
    },
    outcome: (outcome, subscription) => inner.outcome(outcome, subscription),
  };
}
