/**
 * The /v1 operations of the Outbound Calling REST API, as the spec states them.
 *
 * Decisions where the spec is silent (each an OBSERVE requirement in the catalogue):
 * - Auth comes first on every operation: 401 before any body or parameter validation. The
 *   scheme is matched case-insensitively (`Bearer`/`bearer`, RFC 7235). A token's last-used
 *   time is stamped whenever it authenticates (valid, not revoked, not expired), even when it
 *   then lacks the scope.
 * - GET /cdrs
 *   - window edges: [from, till) — from inclusive, till exclusive, so consecutive windows
 *     (till of one = from of the next) neither lose nor repeat a record;
 *   - order: startTime ascending; with more rows than `limit`, the earliest `limit` are returned;
 *   - limit is CLAMPED (the spec gives no error code): > 1000 → 1000, < 1 → 1; a value that
 *     is not an integer (e.g. `abc`, `2.5`, empty, repeated) is treated as absent (default 100);
 *   - timestamps: strict RFC 3339 (./timestamps.ts); a date-only string is refused with
 *     invalid_timestamp; a repeated from/till is invalid_timestamp too;
 *   - "exactly 31 days" is compared in milliseconds: 31 d accepted, 31 d + 1 ms refused;
 *   - parameter errors (400) are reported before the account's state (409).
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
 * - A suspended account is refused (403) on GET /me only, as the spec states; other operations
 *   are unaffected.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CDR_WINDOW_MAX_MS,
  E164_PATTERN,
  NUMERIC_ID_PATTERN,
  eventTypes,
  limits,
  operations,
} from '../contract/openapi.ts';
import type { AgentList, Balance, CdrList, Me, OperationKey } from '../contract/openapi.ts';
import type { FaultId, FaultSet } from './faults.ts';
import { isJsonContentType, isPlainObject, readJsonBody, sendError, singleQuery } from './http.ts';
import * as nm from './near-miss-faults.ts';
import type { TokenRecord } from './seed.ts';
import type { ReferenceStore } from './store.ts';
import { parseDateTime, type DateTimeLeniency } from './timestamps.ts';
import { selectCdrs, type VariantId } from './variants.ts';

/** The conformant variants that change which CDRs GET /cdrs returns (./variants.ts). */
const CDR_VARIANTS: readonly VariantId[] = [
  'cdrs-count-total',
  'cdrs-descending',
  'cdrs-till-inclusive',
  'cdrs-from-exclusive',
];

const HOUR_MS = 3_600_000;
const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const BEARER = /^bearer +([^\s]+) *$/i;
const ANY_SCHEME = /^[^\s]+ +([^\s]+) *$/;
const URI_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

const scopeOf = new Map<OperationKey, string | undefined>(operations.map((o) => [o.key, o.scope]));

function requiredScope(key: OperationKey): string | undefined {
  if (!scopeOf.has(key)) throw new Error(`openapi.json has no operation ${key}`);
  return scopeOf.get(key);
}

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

/** The CDR limit after clamping (see the module comment). */
export function parseLimit(raw: string | undefined | null, defaultLimit: number = limits.cdrLimitDefault): number {
  if (typeof raw !== 'string' || !/^[+-]?[0-9]{1,15}$/.test(raw.trim())) return defaultLimit;
  return Math.min(limits.cdrLimitMax, Math.max(limits.cdrLimitMin, Number(raw.trim())));
}

/** The start of the UTC day of `ms` (the faults cdrs-default-till-midnight and cdrs-default-from-midnight). */
function startOfUtcDay(ms: number): number {
  return Math.floor(ms / (24 * HOUR_MS)) * 24 * HOUR_MS;
}

/** The token of `Authorization: Bearer <token>`, or why the request carries none. */
function bearerToken(request: FastifyRequest, faults: FaultSet): { token: string } | { refusal: string } {
  const header = request.headers.authorization ?? nm.bearerElsewhere(request, faults);
  if (header === undefined) return { refusal: 'missing Authorization header; send Authorization: Bearer <token>' };
  const bearer = faults.has('nm-token-scheme-accepted') ? nm.BEARER_OR_TOKEN : BEARER;
  const match = (faults.has('auth-any-scheme-accepted') ? ANY_SCHEME : bearer).exec(header);
  return match ? { token: match[1]! } : { refusal: 'the Authorization header must be Bearer <token>' };
}

/** Whether a DELETE's path id is a UUID (hooks-delete-uuid-unanchored: a UUID anywhere in it). */
function isHookId(id: string, faults: FaultSet): boolean {
  const unanchored = faults.has('hooks-delete-uuid-unanchored');
  return (unanchored ? new RegExp(UUID_PATTERN.source.replace(/^\^|\$$/g, '')) : UUID_PATTERN).test(id);
}

/**
 * One calendar month after `ms` (UTC; JS month arithmetic, Jan 31 + 1 month = Mar 3): the fault
 * cdrs-window-calendar-month.
 */
function oneCalendarMonthAfter(ms: number): number {
  const date = new Date(ms);
  date.setUTCMonth(date.getUTCMonth() + 1);
  return date.getTime();
}

export function registerApi(app: FastifyInstance, store: ReferenceStore): void {
  const faults = store.faults;
  const fail = (reply: FastifyReply, status: number, error: string, message: string, extra?: Record<string, unknown>) =>
    sendError(reply, faults, status, error, message, extra);

  /** The JSON object a POST carries; otherwise sends 400 invalid_input and returns undefined. */
  function objectBody(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> | undefined {
    if (
      faults.has('empty-json-body-framework-error') &&
      isJsonContentType(request.headers['content-type']) &&
      String(request.body ?? '').trim() === ''
    ) {
      // What the web framework answers on its own when nobody replaced its JSON parser.
      reply.code(400).send({
        statusCode: 400,
        code: 'FST_ERR_CTP_EMPTY_JSON_BODY',
        error: 'Bad Request',
        message: "Body cannot be empty when content-type is set to 'application/json'",
      });
      return undefined;
    }
    if (faults.has('json-content-type-exact-match') && request.headers['content-type'] !== 'application/json') {
      fail(reply, 400, 'invalid_input', 'the body must be sent with Content-Type: application/json');
      return undefined;
    }
    const parsed = readJsonBody(request);
    if (!parsed.ok) {
      fail(reply, 400, 'invalid_input', parsed.message);
      return undefined;
    }
    if (!isPlainObject(parsed.value)) {
      fail(reply, 400, 'invalid_input', 'the body must be a JSON object');
      return undefined;
    }
    return parsed.value;
  }

  /** The token's record when it may call `key`; otherwise sends 401 and returns undefined. */
  function authenticate(
    request: FastifyRequest,
    reply: FastifyReply,
    key: OperationKey,
    scopeFault?: FaultId,
  ): TokenRecord | undefined {
    const presented = bearerToken(request, faults);
    if ('refusal' in presented) {
      fail(reply, 401, 'unauthorized', presented.refusal);
      return undefined;
    }
    const record = store.state.tokens.get(presented.token);
    if (record === undefined) {
      fail(reply, 401, 'unauthorized', 'unknown token');
      return undefined;
    }
    if (record.revoked && !faults.has('revoked-token-accepted')) {
      fail(reply, 401, 'unauthorized', 'the token has been revoked');
      return undefined;
    }
    const now = store.tokenNow();
    if (record.expiresAt !== undefined && record.expiresAt <= now && !faults.has('expired-token-accepted')) {
      fail(reply, 401, 'unauthorized', 'the token has expired');
      return undefined;
    }
    // control-scope-401-not-a-use (./variants.ts): a 401 for a missing scope is no use of the token.
    const scopeRefusalIsUse = !store.variants.has('control-scope-401-not-a-use');
    if (scopeRefusalIsUse) record.lastUsedAt = now;
    const scope = requiredScope(key);
    const copyPasted = key === 'GET /agents' && record.scopes.has('read:cdrs') && faults.has('scope-table-copy-paste');
    if (
      scope !== undefined &&
      !record.scopes.has(scope) &&
      !copyPasted &&
      !(scopeFault !== undefined && faults.has(scopeFault))
    ) {
      fail(reply, 401, 'unauthorized', `the token lacks the ${scope} scope`);
      return undefined;
    }
    if (scope === undefined && record.scopes.size === 0 && faults.has('me-scope-required')) {
      fail(reply, 401, 'unauthorized', 'the token has no scopes');
      return undefined;
    }
    record.lastUsedAt = now;
    return record;
  }

  // ── GET /me ──
  app.get('/v1/me', (request, reply) => {
    const token = authenticate(request, reply, 'GET /me');
    if (!token) return reply;
    const account = store.state.accounts.get(token.account)!;
    if (account.suspended && !faults.has('suspended-not-refused'))
      return fail(reply, 403, 'suspended', 'the account is suspended');
    const body: Partial<Me> = {
      customerId: account.customerId,
      companyName: account.companyName,
      primaryContactEmail: account.primaryContactEmail,
    };
    if (faults.has('me-missing-field')) delete body.primaryContactEmail;
    if (faults.has('me-email-not-validated')) body.primaryContactEmail = body.primaryContactEmail?.replace('@', ' at ');
    return reply.code(faults.has('me-wrong-status') ? 201 : 200).send(body);
  });

  // ── GET /balance ──
  app.get('/v1/balance', (request, reply) => {
    const token = authenticate(request, reply, 'GET /balance', 'scope-unchecked-balance');
    if (!token) return reply;
    const account = store.state.accounts.get(token.account)!;
    let stale = false;
    if (store.failing('balanceUpstreamFails', token.account)) {
      if (!faults.has('balance-upstream-failure-hidden'))
        return fail(reply, 500, 'internal_error', 'the upstream balance snapshot could not be fetched; retry');
      stale = true;
    }
    const body: Balance = {
      balance: account.balance,
      currency: account.currency,
      accountType: account.accountType,
      creditLimit: account.creditLimit,
      blocked: account.blocked,
      stale,
    };
    const out: Record<string, unknown> = { ...body };
    if (faults.has('balance-wrong-type')) out.balance = account.balance.toFixed(2);
    if (faults.has('balance-flags-as-strings')) {
      out.blocked = String(out.blocked);
      out.stale = String(out.stale);
    }
    if (faults.has('balance-renamed-field')) {
      out.amount = out.balance;
      delete out.balance;
    }
    return reply.send(out);
  });

  // ── GET /cdrs ──
  app.get('/v1/cdrs', (request, reply) => {
    const token = authenticate(request, reply, 'GET /cdrs', 'scope-unchecked-cdrs');
    if (!token) return reply;
    const fromRaw = singleQuery(request.query, 'from');
    const tillRaw = singleQuery(request.query, 'till');
    const invalid = (name: string) =>
      faults.has('cdrs-invalid-timestamp-500')
        ? fail(reply, 500, 'internal_error', 'unexpected error')
        : fail(
            reply,
            400,
            'invalid_timestamp',
            `${name} is not an ISO 8601 date-time with an offset, e.g. 2026-01-31T12:00:00Z`,
          );
    const leniency: DateTimeLeniency = {
      rollOverDays: faults.has('cdrs-impossible-date-rolls-over'),
      ignoreOffset: faults.has('cdrs-ignores-offset'),
    };
    let fromMs =
      fromRaw === undefined
        ? undefined
        : fromRaw === null
          ? Number.NaN
          : (parseDateTime(fromRaw, leniency) ?? Number.NaN);
    const tillMs =
      tillRaw === undefined
        ? undefined
        : tillRaw === null
          ? Number.NaN
          : (parseDateTime(tillRaw, leniency) ?? Number.NaN);
    if (nm.zeroOffsetRefused(fromRaw, faults)) fromMs = Number.NaN;
    if (fromMs !== undefined && faults.has('cdrs-from-truncated-to-minute'))
      fromMs = Math.floor(fromMs / 60_000) * 60_000;
    if (Number.isNaN(fromMs)) return invalid('from');
    if (Number.isNaN(tillMs) || nm.zeroOffsetRefused(tillRaw, faults)) return invalid('till');
    // cdrs-default-till-midnight: a date-typed default ("today") in place of now.
    const now = store.clock.now();
    const till = tillMs ?? (faults.has('cdrs-default-till-midnight') ? startOfUtcDay(now) : now);
    const defaultSpan = (faults.has('cdrs-default-window-48h') ? 48 : limits.cdrDefaultWindowHours) * HOUR_MS;
    // cdrs-default-from-now: "24 hours before now" read literally even when till is given.
    const from =
      fromMs ??
      (faults.has('cdrs-default-from-midnight')
        ? startOfUtcDay(till)
        : (tillMs !== undefined && store.variants.has('cdrs-default-from-now') ? now : till) - defaultSpan);
    if (till <= from) return fail(reply, 400, 'till_must_be_after_from', 'till must be later than from');
    const span = till - from;
    const tooWide = faults.has('cdrs-window-31d-rejected')
      ? span >= CDR_WINDOW_MAX_MS
      : faults.has('cdrs-window-calendar-month')
        ? till > oneCalendarMonthAfter(from)
        : span > CDR_WINDOW_MAX_MS;
    if (tooWide && !faults.has('cdrs-window-32d-accepted')) {
      return fail(
        reply,
        400,
        'window_too_wide',
        `the window is longer than ${limits.cdrWindowMaxDays} days; split it into consecutive windows`,
      );
    }
    const account = store.state.accounts.get(token.account)!;
    if (!account.trunk && !faults.has('cdrs-not-provisioned-200'))
      return fail(reply, 409, 'account_not_provisioned', 'no trunk is allocated to the account yet');
    const limitRaw = singleQuery(request.query, 'limit');
    let limit = parseLimit(
      limitRaw,
      faults.has('cdrs-default-limit-99')
        ? limits.cdrLimitDefault - 1
        : faults.has('cdrs-default-limit-50')
          ? 50
          : limits.cdrLimitDefault,
    );
    limit = nm.int32Limit(limitRaw, nm.lenientLimit(limitRaw, limit, faults), faults);
    if (faults.has('cdrs-limit-1000-capped-999')) limit = Math.min(limit, limits.cdrLimitMax - 1);
    if (faults.has('cdrs-limit-unbounded') && typeof limitRaw === 'string' && /^[0-9]{1,15}$/.test(limitRaw))
      limit = Math.max(limit, Number(limitRaw));
    if (faults.has('cdrs-limit-ignored')) limit = limits.cdrLimitDefault;
    const widen = faults.has('cdrs-rows-outside-window') ? 24 * HOUR_MS : 0;
    let rows = account.trunk ? store.cdrsIn(token.account, from - widen, till, limit) : [];
    let count = rows.length;
    if (CDR_VARIANTS.some((id) => store.variants.has(id))) {
      ({ rows, inWindow: count } = selectCdrs(
        store.state.cdrs.get(token.account) ?? [],
        from - widen,
        till,
        limit,
        store.variants,
      ));
      if (!store.variants.has('cdrs-count-total')) count = rows.length;
    }
    const body: CdrList = { count: count + (faults.has('cdrs-count-mismatch') ? 1 : 0), calls: rows.map((r) => r.row) };
    if (rows.length === 0 && faults.has('cdrs-empty-calls-null')) return reply.send({ ...body, calls: null });
    return reply.send(body);
  });

  // ── GET /agents ──
  app.get('/v1/agents', (request, reply) => {
    const token = authenticate(request, reply, 'GET /agents', 'scope-unchecked-agents');
    if (!token) return reply;
    const leak = faults.has('agents-credentials-leaked');
    const agents: Array<Record<string, unknown>> = [];
    for (const a of store.state.agents.values()) {
      if (a.account !== token.account && !faults.has('agents-list-leaks-foreign')) continue;
      // Projection: only the documented fields ever leave; the SIP password stays here.
      const row: Record<string, unknown> = {
        id: faults.has('agents-id-number') ? Number(a.id) : a.id,
        label: a.label,
        createdAt: a.createdAt,
      };
      if (a.sipUsername !== undefined) row.sipUsername = a.sipUsername;
      if (leak) row.sipPassword = a.sipPassword;
      agents.push(row);
    }
    const body: AgentList = { count: agents.length + (faults.has('agents-count-mismatch') ? 1 : 0), agents };
    return reply.send(body);
  });

  // ── POST /calls ──
  app.post('/v1/calls', (request, reply) => {
    const token = authenticate(request, reply, 'POST /calls', 'scope-unchecked-calls');
    if (!token) return reply;
    const body = objectBody(request, reply);
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
    const fromOk = typeof fromNumber === 'string' && (!checkE164 || nm.callerIdOk(e164, fromNumber, faults));
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
  app.post('/v1/hooks', async (request, reply) => {
    const token = authenticate(request, reply, 'POST /hooks', 'scope-unchecked-hooks');
    if (!token) return reply;
    const body = objectBody(request, reply);
    if (body === undefined) return reply;
    const bad = (message: string) => fail(reply, 400, 'invalid_input', message);
    let { event, target_url: targetUrl } = body;
    event = nm.firstLetterFolded(nm.cStringSeen(event, faults), faults);
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
    const hook = await nm.writtenBack(store.hooks, store.createHook(token.account, String(event), targetUrl), faults);
    return reply.send({ id: hook.id, secret: hook.secret });
  });

  // ── DELETE /hooks/{id} ──
  app.delete<{ Params: { id: string } }>('/v1/hooks/:id', async (request, reply) => {
    const token = authenticate(request, reply, 'DELETE /hooks/{id}', 'scope-unchecked-hooks');
    if (!token) return reply;
    const id = nm.hookIdSeen(request.params.id, faults, store.hooks);
    if (!isHookId(id, faults))
      return faults.has('hooks-non-uuid-404')
        ? fail(reply, 404, 'not_found', 'no such hook')
        : fail(reply, 400, 'invalid_input', 'id must be a UUID');
    const hook = nm.hookNamed(store.hooks, nm.hookKey(id, store.hooks.keys(), faults), faults);
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
