/**
 * The /v1 operations of the Outbound Calling REST API not yet in ./routes/ (one plugin per
 * endpoint there: GET /me, GET /balance, GET /cdrs, GET /agents, and the steps they share).
 *
 * Decisions where the spec is silent (each an OBSERVE requirement in the catalogue):
 * - POST /calls, order of checks (first failing wins):
 *     401 auth → 400 invalid_input (content type, JSON, object, aiAgentId, toNumber,
 *     fromNumber, metadata) → 409 account_not_provisioned → 409 dialer_required →
 *     404 ai_agent_not_found → 409 ai_agent_not_provisioned → 503 engine_not_configured →
 *     502 originate_failed.
 *   Account state before the agent (resources live in a provisioned account), environment and
 *   upstream last (only known when the originate is attempted). The 502 carries the upstream
 *   `detail` as a string field of the error body next to `message`. Unknown body fields are
 *   ignored; metadata is accepted and dropped; fromNumber is validated and otherwise ignored.
 * - POST /hooks: target_url must be an absolute https URI (lowercase `https://`, a host, only
 *   URI characters, valid %-escapes), at most 512 characters.
 * - DELETE /hooks/{id}: any RFC 4122 UUID syntax passes the 400 check (case-insensitive); a
 *   UUID that names no hook of the account (including non-v4 ones) is 404 not_found.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { E164_PATTERN, NUMERIC_ID_PATTERN, eventTypes, limits } from '../contract/openapi.ts';
import type { FaultId, FaultSet } from './faults.ts';
import { isPlainObject, refuse } from './http.ts';
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

  // ── POST /calls ──
  app.post('/v1/calls', (request, reply) => {
    const token = authenticate(request, reply, 'POST /calls', options);
    if (!token) return reply;
    const body = objectBody(request, reply, options);
    if (body === undefined) return reply;
    const bad = (message: string) => fail(reply, 400, 'invalid_input', message);
    const { toNumber, fromNumber, metadata } = body;
    let { aiAgentId } = body;
    if (
      faults.has('calls-agent-id-parseint') &&
      (typeof aiAgentId === 'string' || typeof aiAgentId === 'number') &&
      !Number.isNaN(parseInt(String(aiAgentId), 10))
    )
      aiAgentId = String(parseInt(String(aiAgentId), 10));
    aiAgentId = nm.agentIdSeen(aiAgentId, faults);
    if (typeof aiAgentId !== 'string' || !NUMERIC_ID_PATTERN.test(aiAgentId))
      return bad('aiAgentId is required and must be a numeric string');
    const agentRefusal = (): FastifyReply | undefined => {
      const found = store.state.agents.get(aiAgentId);
      if (found === undefined || (found.account !== token.account && !faults.has('calls-foreign-agent-accepted'))) {
        return fail(reply, 404, 'ai_agent_not_found', `no agent ${aiAgentId} on this account`);
      }
      if (found.sipUsername === undefined) {
        return faults.has('calls-unprovisioned-wrong-code')
          ? fail(reply, 409, 'account_not_provisioned', 'no trunk is allocated to the account yet')
          : fail(reply, 409, 'ai_agent_not_provisioned', `agent ${aiAgentId} has no SIP extension yet`);
      }
      return undefined;
    };
    // calls-agent-first: the agent is judged before the other fields and the account state.
    if (store.variants.has('calls-agent-first')) {
      const refused = agentRefusal();
      if (refused !== undefined) return refused;
    }
    const checkE164 = !faults.has('calls-e164-not-validated');
    const e164 = faults.has('calls-e164-unanchored')
      ? new RegExp(E164_PATTERN.source.replace(/^\^|\$$/g, ''))
      : E164_PATTERN;
    if (typeof toNumber !== 'string' || (checkE164 && !e164.test(nm.e164Seen(toNumber, faults))))
      return bad('toNumber is required and must be an E.164 number, e.g. +14155550100');
    const fromOk = typeof fromNumber === 'string' && (!checkE164 || e164.test(nm.e164Seen(fromNumber, faults)));
    if (fromNumber !== undefined && !fromOk) return bad('fromNumber must be an E.164 number, e.g. +14155550100');
    const metadataOk = faults.has('calls-metadata-array-accepted')
      ? typeof metadata === 'object'
      : isPlainObject(metadata);
    if (metadata !== undefined && !metadataOk) return bad('metadata must be a JSON object');
    if (metadata !== undefined && faults.has('calls-metadata-rejected')) return bad('metadata is not allowed');

    const account = store.state.accounts.get(token.account)!;
    if (!account.trunk) return fail(reply, 409, 'account_not_provisioned', 'no trunk is allocated to the account yet');
    if (!account.dialer && !faults.has('calls-dialer-not-checked'))
      return fail(reply, 409, 'dialer_required', 'the dialer add-on is needed for outbound originates');
    const refused = agentRefusal();
    if (refused !== undefined) return refused;
    const agent = store.state.agents.get(aiAgentId)!;
    if (store.failing('engineNotConfigured', token.account))
      return fail(reply, 503, 'engine_not_configured', 'origination is unavailable in this environment');
    if (store.failing('originateFails', token.account)) {
      const detail = 'SIP 503 Service Unavailable from the carrier';
      // control-502-detail-in-message (./variants.ts): the detail inside message, no detail member.
      if (store.variants.has('control-502-detail-in-message'))
        return fail(reply, 502, 'originate_failed', `upstream rejected the originate (detail: ${detail})`);
      return fail(reply, 502, 'originate_failed', 'upstream rejected the originate', { detail });
    }
    const call = store.originate(token.account, agent, toNumber);
    return reply.send({ callId: call.callId, status: 'queued' });
  });

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
