/**
 * The /v1 operations of the Outbound Calling REST API not yet in ./routes/ (one plugin per
 * endpoint there: GET /me, GET /balance, GET /cdrs, GET /agents, POST /calls, and the steps they share).
 *
 * Decisions where the spec is silent (each an OBSERVE requirement in the catalogue):
 * - POST /hooks: target_url must be an absolute https URI (lowercase `https://`, a host, only
 *   URI characters, valid %-escapes), at most 512 characters.
 * - DELETE /hooks/{id}: any RFC 4122 UUID syntax passes the 400 check (case-insensitive); a
 *   UUID that names no hook of the account (including non-v4 ones) is 404 not_found.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { eventTypes, limits } from '../contract/openapi.ts';
import type { FaultId, FaultSet } from './faults.ts';
import { refuse } from './http.ts';
import * as nm from './near-miss-faults.ts';
import type { Points } from './points.ts';
import { authenticate } from './routes/authentication.ts';
import { objectBody } from './routes/json-body.ts';
import type { ReferenceStore } from './store.ts';

const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const URI_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

export function isHttpsUri(value: string, allowHttp: boolean, faults?: { has(id: FaultId): boolean }): boolean {
  if (faults?.has('hooks-target-scheme-prefix-only') && /^https:/i.test(value)) return true;
  if (!URI_CHARS.test(value) || BAD_ESCAPE.test(value)) return false;
  // RFC 3986 §3.1: the scheme is case-insensitive, so HTTPS://host is an https URI.
  const scheme = faults?.has('hooks-target-scheme-case-sensitive') ? value : value.toLowerCase();
  if (!scheme.startsWith('https://') && !(allowHttp && scheme.startsWith('http://'))) return false;
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

/** Whether a DELETE's path id is a UUID (hooks-delete-uuid-unanchored: a UUID anywhere in it). */
function isHookId(id: string, faults: FaultSet): boolean {
  const unanchored = faults.has('hooks-delete-uuid-unanchored');
  return (unanchored ? new RegExp(UUID_PATTERN.source.replace(/^\^|\$$/g, '')) : UUID_PATTERN).test(id);
}

export function registerApi(app: FastifyInstance, store: ReferenceStore, points: Points): void {
  const faults = store.faults;
  const options = { store, points };
  const fail = (reply: FastifyReply, status: number, error: string, message: string, extra?: Record<string, unknown>) =>
    refuse(reply, points, extra === undefined ? { status, error, message } : { status, error, message, extra });

  // ── POST /hooks ──
  app.post('/v1/hooks', (request, reply) => {
    const token = authenticate(request, reply, 'POST /hooks', options);
    if (!token) return reply;
    const body = objectBody(request, reply, options);
    if (body === undefined) return reply;
    const bad = (message: string) => fail(reply, 400, 'invalid_input', message);
    let { event, target_url: targetUrl } = body;
    event = nm.cStringSeen(event, faults);
    if (faults.has('hooks-fields-coerced')) {
      if (event !== undefined && event !== null) event = String(event);
      if (targetUrl !== undefined && targetUrl !== null) targetUrl = String(targetUrl);
    }
    if (faults.has('hooks-event-case-insensitive') && typeof event === 'string') event = event.trim().toLowerCase();
    const eventOk =
      typeof event === 'string' &&
      (eventTypes.includes(event as never) || (faults.has('hooks-unknown-event-accepted') && event.length > 0));
    if (!eventOk) return bad(`event is required and must be one of ${eventTypes.join(', ')}`);
    if (typeof targetUrl !== 'string') return bad('target_url is required and must be a string');
    const maxLength = limits.targetUrlMaxLength + (faults.has('hooks-target-length-off-by-one') ? 1 : 0);
    if (targetUrl.length > maxLength && !faults.has('hooks-long-target-accepted')) {
      return bad(`target_url is longer than ${limits.targetUrlMaxLength} characters`);
    }
    if (!isHttpsUri(targetUrl, faults.has('hooks-http-target-accepted'), faults))
      return bad('target_url must be an absolute https URI');
    const same = nm.idempotentCreate(store.hooks.values(), token.account, event, targetUrl, faults);
    if (same !== undefined) return reply.send({ id: same.id, secret: same.secret });
    const hook = store.createHook(token.account, String(event), targetUrl);
    return reply.send({ id: hook.id, secret: hook.secret });
  });

  // ── DELETE /hooks/{id} ──
  app.delete<{ Params: { id: string } }>('/v1/hooks/:id', async (request, reply) => {
    const token = authenticate(request, reply, 'DELETE /hooks/{id}', options);
    if (!token) return reply;
    const id = nm.hookIdSeen(request.params.id, faults);
    if (!isHookId(id, faults))
      return faults.has('hooks-non-uuid-404')
        ? fail(reply, 404, 'not_found', 'no such hook')
        : fail(reply, 400, 'invalid_input', 'id must be a UUID');
    const hook = store.hooks.get(nm.hookKey(id, store.hooks.keys(), faults));
    const foreignAllowed = faults.has('hooks-foreign-deletable') || nm.ownershipSkipped(id, faults);
    if (hook === undefined || (hook.accountId !== token.account && !foreignAllowed))
      return fail(reply, 404, 'not_found', 'no such hook');
    if (hook.status !== 'active') {
      if (faults.has('hooks-delete-twice-204')) return reply.code(204).send();
      const message = faults.has('hooks-secret-returned-again')
        ? `hook already disabled (secret ${hook.secret})`
        : 'the hook is already disabled';
      return fail(reply, 404, 'not_found', message);
    }
    await nm.slowStore(faults);
    hook.status = 'disabled';
    hook.disabledReason = 'deleted';
    if (faults.has('hooks-hard-delete')) store.hooks.delete(hook.id);
    if (faults.has('hooks-delete-200')) return reply.code(200).send({ id: hook.id, status: 'disabled' });
    if (nm.bodyAfter204(reply, faults)) return reply;
    return reply.code(204).send();
  });
}
