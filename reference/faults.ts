/**
 * The fault catalogue of the reference server: each entry is one real, detectable deviation
 * from the spec, switched on at start (`faults` option, `--faults` flag) or at run time
 * (PUT /_reference/faults). Its code overrides the named points of the site it bends, in
 * ./faults/<site>.ts (./points.ts; ./faults/index.ts lists every module): a new fault is an entry
 * here and an entry there.
 *
 * A conformance suite run against the reference with a fault on must fail at least one check
 * tagged with one of the requirement ids the fault `violates`; that is how the suite proves it
 * catches the deviation.
 */
import { standardsFaults } from './faults-standards.ts';
import type { RequirementId } from '../requirements/catalogue.ts';
import { postHocFaultIds, type PostHocFaultId } from './post-hoc-faults.ts';
import { rfcPostHocFaultIds, type RfcPostHocFaultId } from './post-hoc-faults-rfc.ts';
import { rfc2PostHocFaultIds, type Rfc2PostHocFaultId } from './post-hoc-faults-rfc2.ts';

export interface Fault {
  readonly id: string;
  readonly description: string;
  readonly violates: readonly RequirementId[];
}

export const faults = [
  // ── GET /me ──
  {
    id: 'me-wrong-status',
    description: 'GET /me answers 201 instead of 200.',
    violates: ['ME-200-SHAPE', 'CONTRACT-DOCUMENTED-STATUS'],
  },
  { id: 'me-missing-field', description: 'GET /me omits primaryContactEmail.', violates: ['ME-200-SHAPE'] },
  {
    id: 'me-scope-required',
    description: 'GET /me refuses (401) a valid token that has no scopes.',
    violates: ['ME-ANY-SCOPE'],
  },
  {
    id: 'suspended-not-refused',
    description: 'GET /me answers 200 for a suspended account instead of 403 suspended.',
    violates: ['ME-SUSPENDED-403'],
  },
  // ── GET /balance ──
  {
    id: 'balance-renamed-field',
    description: 'GET /balance names the amount `amount` instead of `balance`.',
    violates: ['BALANCE-200-SHAPE'],
  },
  {
    id: 'balance-wrong-type',
    description: 'GET /balance returns balance as a string ("12.34").',
    violates: ['BALANCE-200-SHAPE'],
  },
  {
    id: 'balance-upstream-failure-hidden',
    description:
      'GET /balance answers 200 with stale data when the upstream fetch fails, instead of 500 internal_error.',
    violates: ['BALANCE-UPSTREAM-500'],
  },
  // ── Scopes and tokens ──
  {
    id: 'scope-unchecked-balance',
    description: 'GET /balance accepts a token without read:balance.',
    violates: ['AUTH-SCOPE-BALANCE'],
  },
  {
    id: 'scope-unchecked-cdrs',
    description: 'GET /cdrs accepts a token without read:cdrs.',
    violates: ['AUTH-SCOPE-CDRS'],
  },
  {
    id: 'scope-unchecked-agents',
    description: 'GET /agents accepts a token without read:agents.',
    violates: ['AUTH-SCOPE-AGENTS'],
  },
  {
    id: 'scope-unchecked-calls',
    description: 'POST /calls accepts a token without write:calls.',
    violates: ['AUTH-SCOPE-CALLS'],
  },
  {
    id: 'scope-unchecked-hooks',
    description: 'POST /hooks and DELETE /hooks/{id} accept a token without write:hooks.',
    violates: ['AUTH-SCOPE-HOOKS'],
  },
  {
    id: 'revoked-token-accepted',
    description: 'A revoked token is still accepted.',
    violates: ['AUTH-REVOKED-TOKEN', 'AUTH-REVOKE-IMMEDIATE'],
  },
  {
    id: 'expired-token-accepted',
    description: 'An expired token is still accepted.',
    violates: ['AUTH-EXPIRED-TOKEN'],
  },
  {
    id: 'auth-any-scheme-accepted',
    description: 'A known token is accepted under any Authorization scheme (e.g. `Token <t>`), not only Bearer.',
    violates: ['AUTH-MALFORMED-SCHEME'],
  },
  {
    id: 'oauth-token-answer-no-cache',
    description:
      'The token answer carries Cache-Control: no-cache instead of no-store (no-cache lets a cache store it; ' +
      'RFC 6749 §5.1 requires no-store).',
    violates: ['AUTH-OAUTH-NO-STORE'],
  },
  {
    id: 'oauth-bad-secret-accepted',
    description: 'The OAuth token endpoint issues a token for a wrong client secret.',
    violates: ['AUTH-OAUTH-BAD-CLIENT'],
  },
  {
    id: 'oauth-metadata-token-endpoint-elsewhere',
    description:
      "The discovery metadata names {auth_url}/token (a framework's default path) as token_endpoint, " +
      'while tokens are served at {auth_url}/oauth/token.',
    violates: ['AUTH-OAUTH-METADATA-TOKEN-ENDPOINT'],
  },
  {
    id: 'oauth-metadata-octet-stream',
    description:
      'The RFC 8414 metadata is served as application/octet-stream (its bytes JSON): RFC 8414 §3.2 says ' +
      'application/json.',
    violates: ['AUTH-OAUTH-DISCOVERY'],
  },
  {
    id: 'oauth-token-widened',
    description:
      'The token endpoint checks a requested scope against every scope the service knows instead of ' +
      "the client's registration: a client gets any scope it asks for.",
    violates: ['AUTH-OAUTH-NO-WIDENING'],
  },
  {
    id: 'oauth-narrowed-answer-wide-token',
    description:
      "The token answer's scope is narrowed to the client's registration, but the token is minted with " +
      'every known scope of the request, so the API accepts it beyond the registration.',
    violates: ['AUTH-OAUTH-NO-WIDENING'],
  },
  // ── GET /cdrs ──
  {
    id: 'cdrs-window-31d-rejected',
    description: 'A window of exactly 31 days is refused with window_too_wide.',
    violates: ['CDRS-WINDOW-EXACTLY-31D'],
  },
  {
    id: 'cdrs-window-32d-accepted',
    description: 'A window longer than 31 days is accepted.',
    violates: ['CDRS-WINDOW-MAX-31D'],
  },
  {
    id: 'cdrs-limit-unbounded',
    description: 'A limit above 1000 is honoured (more than 1000 rows returned).',
    violates: ['CDRS-LIMIT-MAX-1000'],
  },
  {
    id: 'cdrs-limit-ignored',
    description: 'The limit parameter is ignored (the default 100 is always used).',
    violates: ['CDRS-LIMIT-HONOURED'],
  },
  {
    id: 'cdrs-default-window-48h',
    description: 'The default window is 48 hours instead of 24.',
    violates: ['CDRS-DEFAULT-WINDOW'],
  },
  {
    id: 'cdrs-count-mismatch',
    description: 'count is one more than the number of rows.',
    violates: ['CDRS-COUNT-MATCHES-ROWS'],
  },
  {
    id: 'cdrs-rows-outside-window',
    description: 'Rows from up to 24 hours before `from` are included.',
    violates: ['CDRS-ROWS-IN-WINDOW'],
  },
  {
    id: 'cdrs-invalid-timestamp-500',
    description: 'An unparseable from/till answers 500 instead of 400 invalid_timestamp.',
    violates: ['CDRS-INVALID-TIMESTAMP', 'CONTRACT-DOCUMENTED-STATUS'],
  },
  {
    id: 'cdrs-not-provisioned-200',
    description: 'GET /cdrs for an account without a trunk answers 200 with no rows instead of 409.',
    violates: ['CDRS-NOT-PROVISIONED-409'],
  },
  // ── GET /agents ──
  {
    id: 'agents-credentials-leaked',
    description: 'Agent records carry the SIP password (sipPassword).',
    violates: ['AGENTS-NO-CREDENTIALS'],
  },
  {
    id: 'agents-count-mismatch',
    description: 'GET /agents count is the account total including a hidden agent, not the rows returned.',
    violates: ['AGENTS-COUNT-MATCHES-ROWS'],
  },
  // ── POST /calls ──
  { id: 'calls-callid-not-uuid', description: 'callId is a numeric string, not a UUID.', violates: ['CALLS-QUEUED'] },
  {
    id: 'calls-e164-not-validated',
    description: 'toNumber and fromNumber are not checked against E.164.',
    violates: ['CALLS-TO-NUMBER-E164', 'CALLS-FROM-NUMBER-E164'],
  },
  {
    id: 'calls-metadata-rejected',
    description: 'A body with metadata is refused with 400 invalid_input.',
    violates: ['CALLS-METADATA-OBJECT'],
  },
  {
    id: 'calls-unprovisioned-wrong-code',
    description:
      'An agent without SIP extension answers 409 account_not_provisioned instead of ai_agent_not_provisioned.',
    violates: ['CALLS-AGENT-NOT-PROVISIONED-409'],
  },
  {
    id: 'calls-dialer-not-checked',
    description: 'An account without the dialer add-on can originate.',
    violates: ['CALLS-DIALER-REQUIRED-409'],
  },
  {
    id: 'calls-foreign-agent-accepted',
    description: "Another account's agent can be used as aiAgentId.",
    violates: ['CALLS-AGENT-NOT-FOUND-404'],
  },
  {
    id: 'calls-correlation-broken',
    description: 'The call.ended event of an origination carries a fresh callId, not the one POST /calls returned.',
    violates: ['CALLS-CORRELATE-CALL-ENDED'],
  },
  // ── POST /hooks, DELETE /hooks/{id} ──
  {
    id: 'hooks-secret-returned-again',
    description: "The 404 of a repeated DELETE carries the hook's secret in its message.",
    violates: ['HOOKS-SECRET-ONCE'],
  },
  {
    id: 'hooks-hard-delete',
    description: 'DELETE removes the subscription record, losing its delivery history.',
    violates: ['HOOKS-DELETE-HISTORY-KEPT'],
  },
  {
    id: 'hooks-delete-200',
    description: 'DELETE answers 200 with a JSON body instead of 204 with none.',
    violates: ['HOOKS-DELETE-SOFT', 'CONTRACT-DOCUMENTED-STATUS'],
  },
  {
    id: 'hooks-delete-twice-204',
    description: 'DELETE of an already disabled hook answers 204 again instead of 404.',
    violates: ['HOOKS-DELETE-TWICE-404'],
  },
  {
    id: 'hooks-non-uuid-404',
    description: 'DELETE with a non-UUID id answers 404 not_found instead of 400 invalid_input.',
    violates: ['HOOKS-DELETE-NON-UUID-400'],
  },
  {
    id: 'hooks-http-target-accepted',
    description: 'A plain http target_url is accepted.',
    violates: ['HOOKS-TARGET-HTTPS'],
  },
  {
    id: 'hooks-long-target-accepted',
    description: 'A target_url longer than 512 characters is accepted.',
    violates: ['HOOKS-TARGET-MAX-512'],
  },
  {
    id: 'hooks-unknown-event-accepted',
    description: 'An event outside the enumeration is accepted.',
    violates: ['HOOKS-EVENT-ENUM'],
  },
  {
    id: 'hooks-foreign-deletable',
    description: "Another account's hook can be deleted (204).",
    violates: ['HOOKS-DELETE-FOREIGN-404'],
  },
  {
    id: 'hooks-create-emits-event',
    description: 'Creating a hook immediately sends it a delivery.',
    violates: ['HOOKS-NO-DIRECT-EMIT'],
  },
  {
    id: 'hooks-wrong-event-delivered',
    description: 'Every active subscription of the account receives every event kind, not only its own.',
    violates: ['HOOKS-ONE-EVENT-PER-SUBSCRIPTION'],
  },
  // ── Events ──
  {
    id: 'event-missing-field',
    description: 'call.ended payloads lack durationSec.',
    violates: ['EVENT-CALL-ENDED-PAYLOAD'],
  },
  {
    id: 'event-id-reused',
    description: 'Every event carries the same eventId.',
    violates: ['EVENT-ID-PRESENT-UNIQUE'],
  },
  // ── Format, versioning ──
  {
    id: 'error-html-body',
    description: '404 answers are an HTML page (text/html) instead of the JSON error body.',
    violates: ['FORMAT-JSON-CONTENT-TYPE', 'FORMAT-ERROR-BODY'],
  },
  {
    id: 'openapi-removed-operation',
    description: 'The served openapi.json lacks DELETE /hooks/{id}.',
    violates: ['VERSION-NO-BREAKING-IN-PLACE'],
  },
  { id: 'docs-missing', description: '{base_url}/docs answers 404.', violates: ['VERSION-DOCS-SERVED'] },
  // ── Near misses: the input just past (or just inside) a rule, got wrong the way real servers do ──
  {
    id: 'me-email-not-validated',
    description:
      'GET /me returns the contact e-mail as typed in the portal ("billing at example.com"), not an e-mail address.',
    violates: ['ME-200-SHAPE'],
  },
  {
    id: 'balance-flags-as-strings',
    description: 'GET /balance returns blocked and stale as the strings "false"/"true" (a form value passed through).',
    violates: ['BALANCE-200-SHAPE'],
  },
  {
    id: 'agents-id-number',
    description: 'GET /agents returns each id as a JSON number (the database integer), not a numeric string.',
    violates: ['AGENTS-200-SHAPE'],
  },
  {
    id: 'scope-table-copy-paste',
    description: 'GET /agents also accepts a read:cdrs token (a copy-pasted line in the scope table).',
    violates: ['AUTH-SCOPE-AGENTS'],
  },
  {
    id: 'cdrs-default-limit-99',
    description: 'Without limit GET /cdrs returns at most 99 records (an off-by-one default).',
    violates: ['CDRS-LIMIT-DEFAULT-100'],
  },
  {
    id: 'cdrs-limit-1000-capped-999',
    description: 'limit=1000 returns at most 999 records (the maximum checked with < instead of <=).',
    violates: ['CDRS-LIMIT-HONOURED'],
  },
  {
    id: 'nm-token-case-insensitive',
    description:
      'Bearer tokens are looked up through a case-insensitive collation: the issued token with its letters ' +
      'case-swapped authenticates as the same token.',
    violates: ['AUTH-UNKNOWN-TOKEN'],
  },
  {
    id: 'nm-token-prefix-match',
    description:
      "Bearer tokens are looked up with LIKE '<token>%': the issued token without its last character " +
      'authenticates as the token it begins.',
    violates: ['AUTH-UNKNOWN-TOKEN'],
  },
  {
    id: 'nm-cdrs-hidden-cap-count-total',
    description:
      'GET /cdrs returns at most 500 records whatever the limit (a page cap of the storage layer), with count the ' +
      "window's total: limit=1000 over a window of 1200 answers 500 rows and count 1200.",
    violates: ['CDRS-LIMIT-HONOURED'],
  },
  {
    id: 'cdrs-from-truncated-to-minute',
    description: 'from is read to the minute (its seconds dropped), so records up to 59 s before from are returned.',
    violates: ['CDRS-ROWS-IN-WINDOW'],
  },
  {
    id: 'cdrs-impossible-date-rolls-over',
    description:
      'A calendar-impossible date with a valid time (2026-02-30T10:00:00Z, 2025-02-29T…) is accepted ' +
      'and rolled into the next month.',
    violates: ['CDRS-INVALID-TIMESTAMP'],
  },
  {
    id: 'cdrs-window-calendar-month',
    description:
      'The 31-day limit is checked as "one calendar month after from", so 31 days from a date in February ' +
      'or a 30-day month are refused.',
    violates: ['CDRS-WINDOW-EXACTLY-31D'],
  },
  {
    id: 'cdrs-empty-calls-null',
    description: 'A window without records answers calls: null (a nil list) instead of [].',
    violates: ['CDRS-200-SHAPE'],
  },
  {
    id: 'empty-json-body-framework-error',
    description:
      "An empty body sent as application/json gets the web framework's own 400 body " +
      '({statusCode, error: "Bad Request"}) instead of invalid_input.',
    violates: ['CALLS-INVALID-JSON', 'HOOKS-INVALID-JSON'],
  },
  {
    id: 'calls-agent-id-parseint',
    description: 'aiAgentId is read with parseInt, so "12a" and the number 12 pass as agent 12.',
    violates: ['CALLS-AGENT-ID-NUMERIC'],
  },
  {
    id: 'calls-e164-unanchored',
    description:
      'toNumber and fromNumber are matched by an E.164 pattern without anchors, ' +
      'so 16 digits, trailing letters and inner spaces pass.',
    violates: ['CALLS-TO-NUMBER-E164', 'CALLS-FROM-NUMBER-E164'],
  },
  {
    id: 'calls-metadata-array-accepted',
    description: 'metadata is checked with typeof === "object", so an array (and null) pass.',
    violates: ['CALLS-METADATA-OBJECT'],
  },
  {
    id: 'hooks-event-case-insensitive',
    description:
      'event is trimmed and lower-cased before the enumeration check, so CALL.ENDED and " call.ended" are accepted.',
    violates: ['HOOKS-EVENT-ENUM'],
  },
  {
    id: 'hooks-fields-coerced',
    description: 'event and target_url are coerced with String(), so ["call.ended"] and ["https://…"] pass.',
    violates: ['HOOKS-EVENT-ENUM', 'HOOKS-TARGET-HTTPS'],
  },
  {
    id: 'hooks-target-scheme-prefix-only',
    description:
      'target_url is only checked to start with "https:", so https:example.com and https:/// (no host) are accepted.',
    violates: ['HOOKS-TARGET-HTTPS'],
  },
  {
    id: 'hooks-target-scheme-case-sensitive',
    description: 'A target_url whose scheme is written HTTPS:// (a valid https URI) is refused.',
    violates: ['HOOKS-CREATE'],
  },
  {
    id: 'hooks-target-length-off-by-one',
    description: 'A target_url of 513 characters is accepted (the limit checked with > 513).',
    violates: ['HOOKS-TARGET-MAX-512'],
  },
  {
    id: 'json-content-type-exact-match',
    description:
      'A JSON body is refused (400 invalid_input) unless its Content-Type is exactly application/json: ' +
      'a charset parameter is not accepted.',
    violates: ['HOOKS-CREATE'],
  },
  {
    id: 'hooks-delete-uuid-unanchored',
    description:
      'DELETE /hooks/{id} checks the id with a UUID pattern without anchors, ' +
      'so {uuid} and uuid-plus-a-character answer 404 instead of 400.',
    violates: ['HOOKS-DELETE-NON-UUID-400'],
  },
  // ── Rate limit ──
  { id: 'no-rate-limit', description: 'No request is ever refused for rate.', violates: ['RATE-LIMIT-ENFORCED'] },
  {
    id: 'rate-limit-half',
    description: 'Requests are refused at half the configured rate.',
    violates: ['RATE-LIMIT-100-PER-MIN', 'RATE-LIMIT-ENFORCED'],
  },
  {
    id: 'rate-limit-per-token',
    description:
      'The limiter is keyed by the bearer token instead of the client IP: ' +
      'a second token from the same address gets a budget of its own.',
    violates: ['RATE-LIMIT-PER-IP'],
  },
  {
    id: 'rate-limit-global',
    description:
      'One bucket for every client: once one address has spent the limit, every other address is refused too.',
    violates: ['RATE-LIMIT-PER-IP'],
  },
  // ── Webhook delivery (implemented by ./webhooks/dispatcher.ts) ──
  {
    id: 'signature-without-timestamp',
    description: 'The HMAC is computed over the raw body alone, without `t.`.',
    violates: ['WEBHOOK-SIGNATURE-INPUT'],
  },
  {
    id: 'signature-wrong-key',
    description: 'The HMAC is keyed with something other than the subscription secret.',
    violates: ['WEBHOOK-SIGNATURE-KEY'],
  },
  { id: 'retry-after-4xx', description: 'A 4xx answer is retried.', violates: ['WEBHOOK-4XX-NO-RETRY'] },
  { id: 'no-retry-after-5xx', description: 'A 5xx answer is not retried.', violates: ['WEBHOOK-5XX-RETRY'] },
  {
    id: 'no-auto-disable',
    description: 'A subscription stays active after 10 consecutive failures.',
    violates: ['WEBHOOK-AUTO-DISABLE-10'],
  },
  {
    id: 'auto-disable-early',
    description: 'A subscription is disabled before the tenth consecutive failure.',
    violates: ['WEBHOOK-AUTO-DISABLE-10'],
  },
  {
    id: 'backoff-constant',
    description: 'Retries are spaced by a constant interval, not an exponential backoff.',
    violates: ['WEBHOOK-BACKOFF-EXPONENTIAL'],
  },
  {
    id: 'retries-new-event-id',
    description: 'Each retry of one event carries a new eventId.',
    violates: ['WEBHOOK-RETRY-SAME-EVENT'],
  },
  {
    id: 'delivery-after-delete',
    description: 'Deliveries (and pending retries) continue after the subscription is deleted.',
    violates: ['HOOKS-NO-DELIVERY-AFTER-DELETE'],
  },
  // ── Defaults, offsets and account isolation: caught by the comparisons with the written-out form ──
  {
    id: 'cdrs-default-till-midnight',
    description:
      'Without till, GET /cdrs ends the window at the start of today (UTC midnight, a date-typed default) ' +
      "instead of now, so today's records are missing.",
    violates: ['CDRS-DEFAULT-WINDOW'],
  },
  {
    id: 'cdrs-default-from-midnight',
    description:
      'Without from, GET /cdrs starts the window at the start of the UTC day of till ("today\'s calls") ' +
      'instead of 24 hours before.',
    violates: ['CDRS-DEFAULT-WINDOW'],
  },
  {
    id: 'cdrs-default-limit-50',
    description: "Without limit, GET /cdrs returns at most 50 records (a framework's page size, not the spec's 100).",
    violates: ['CDRS-LIMIT-DEFAULT-100'],
  },
  {
    id: 'cdrs-ignores-offset',
    description:
      'from and till with an offset (+05:30, -03:30) are read as UTC wall time: the offset is dropped, ' +
      'so the window moves by it.',
    violates: ['CDRS-TIMESTAMP-OFFSETS'],
  },
  {
    id: 'agents-list-leaks-foreign',
    description:
      "GET /agents lists every account's agents (the account filter is lost from the query), not only the caller's.",
    violates: ['ACCOUNT-ISOLATION'],
  },
  // ── Near misses derived from the contract (operators/; each caught by its operator alone) ──
  {
    id: 'nm-undeclared-method-html',
    description: 'A method a known path does not declare is answered 405 with an HTML page (NM-UNDECLARED-METHOD).',
    violates: ['FORMAT-JSON-CONTENT-TYPE'],
  },
  {
    id: 'nm-unknown-path-text',
    description:
      'An unknown path one step from a known one (/v1/me/x, /v1/me-x) is answered 404 in text/plain (NM-UNKNOWN-PATH).',
    violates: ['FORMAT-JSON-CONTENT-TYPE'],
  },
  {
    id: 'nm-token-in-query',
    description: 'Without an Authorization header, a valid token in ?access_token= authenticates (NM-TOKEN-IN-QUERY).',
    violates: ['AUTH-BEARER-REQUIRED'],
  },
  {
    id: 'nm-token-in-cookie',
    description:
      'Without an Authorization header, a valid token in the access_token cookie authenticates (NM-TOKEN-IN-COOKIE).',
    violates: ['AUTH-BEARER-REQUIRED'],
  },
  {
    id: 'nm-token-x-api-key',
    description: 'Without an Authorization header, a valid token in X-API-Key authenticates (NM-TOKEN-OTHER-HEADER).',
    violates: ['AUTH-BEARER-REQUIRED'],
  },
  {
    id: 'nm-token-scheme-accepted',
    description: 'Authorization: Token <t> authenticates like Bearer (NM-TOKEN-OTHER-SCHEME).',
    violates: ['AUTH-MALFORMED-SCHEME'],
  },
  {
    id: 'nm-trailing-newline-accepted',
    description:
      "toNumber and fromNumber are matched with a `$` that also matches before a final newline (Python's re), " +
      'so "+15555550123\\n" is E.164 (NM-TRAILING-NEWLINE).',
    violates: ['CALLS-TO-NUMBER-E164', 'CALLS-FROM-NUMBER-E164'],
  },
  {
    id: 'nm-e164-trimmed',
    description:
      'toNumber and fromNumber are trimmed before validation: " +15555550123" is accepted (NM-SURROUNDING-SPACE).',
    violates: ['CALLS-TO-NUMBER-E164', 'CALLS-FROM-NUMBER-E164'],
  },
  {
    id: 'nm-unicode-digits',
    description:
      'E.164 is matched with a Unicode-aware digit class: Arabic-Indic and full-width digits pass ' +
      '(NM-NON-ASCII-DIGITS).',
    violates: ['CALLS-TO-NUMBER-E164', 'CALLS-FROM-NUMBER-E164'],
  },
  {
    id: 'nm-nul-truncated',
    description:
      'POST /hooks reads event as a C string, cut at the first NUL: "call.ended\\u0000" subscribes (NM-NUL).',
    violates: ['HOOKS-EVENT-ENUM'],
  },
  {
    id: 'nm-numeric-id-lenient',
    description: 'aiAgentId is read as a number: "+70418" and "70418.0" name agent 70418 (NM-NUMERIC-LENIENT).',
    violates: ['CALLS-AGENT-ID-NUMERIC'],
  },
  {
    id: 'nm-uuid-urn-accepted',
    description: 'DELETE /hooks/{id} strips a urn:uuid: prefix before checking the UUID (NM-UUID-FORMS).',
    violates: ['HOOKS-DELETE-NON-UUID-400'],
  },
  {
    id: 'nm-datetime-zero-offset-refused',
    description:
      'GET /cdrs refuses the offset +00:00 with invalid_timestamp ("write Z for UTC") (NM-DATETIME-EQUIVALENT).',
    violates: ['CDRS-TIMESTAMP-OFFSETS'],
  },
  {
    id: 'nm-limit-lenient',
    description:
      'A limit that is no plain integer but a whole number to Number() ("1e4", "1001.0") is used uncapped ' +
      '(NM-NUMBER-FORMS).',
    violates: ['CDRS-LIMIT-MAX-1000'],
  },
  {
    id: 'nm-limit-int32-wrap',
    description:
      'limit is cast to a signed 32-bit integer after the range check: 4294967295 becomes −1, read as "no ' +
      'limit" (NM-NUMBER-FORMS, values past 32 bits).',
    violates: ['CDRS-LIMIT-MAX-1000'],
  },
  {
    id: 'nm-uuid-case-sensitive',
    description: 'DELETE /hooks/{id} looks the id up as typed: the issued id in upper case is not found (NM-ID-CASE).',
    violates: ['HOOKS-DELETE-SOFT'],
  },
  {
    id: 'nm-id-prefix-match',
    description:
      'DELETE /hooks/{id} finds the hook by the first 35 characters of the id: one changed last digit deletes ' +
      'it (NM-ID-CHANGED).',
    violates: ['HOOKS-DELETE-UNKNOWN-404'],
  },
  {
    id: 'nm-foreign-id-case',
    description:
      "DELETE /hooks/{id} checks the account only for an id written as issued: another account's id in upper case " +
      'deletes its hook (NM-ID-FOREIGN).',
    violates: ['HOOKS-DELETE-FOREIGN-404'],
  },
  {
    id: 'nm-event-first-letter-folded',
    description:
      'POST /hooks lower-cases the first letter of event, forgiving the capital a form puts first: "Call.ended" ' +
      'subscribes to call.ended ("Call.Ended" and "CALL.ENDED" are still refused) (NM-ENUM-CASE).',
    violates: ['HOOKS-EVENT-ENUM'],
  },
  {
    id: 'nm-caller-id-one-digit',
    description:
      "fromNumber is checked by the caller-ID override's own copy of the E.164 pattern, written with {0,14}: " +
      'a one-digit "+1" passes (NM-LENGTH-BOUND).',
    violates: ['CALLS-FROM-NUMBER-E164'],
  },
  {
    id: 'nm-id-char36-truncated',
    description:
      'DELETE /hooks/{id} looks an id up before validating it, in a CHAR(36) column that cuts it to 36 ' +
      "(MySQL's non-strict mode): the issued id with a digit appended deletes the hook; an id naming no hook is " +
      'still refused 400 (NM-ID-APPENDED).',
    violates: ['HOOKS-DELETE-NON-UUID-400'],
  },
  {
    id: 'nm-delete-by-target',
    description:
      "DELETE /hooks/{id} disables the account's oldest active subscription of the same event and target_url as " +
      "the one named (an unsubscribe keyed by the target): the sibling's id of two identical subscriptions " +
      'disables the first one (NM-ID-SIBLING).',
    violates: ['HOOKS-DELETE-SOFT'],
  },
  // ── Near misses of behaviour: each caught by its operator's check (operators/) ──
  {
    id: 'nm-token-lives-shorter-than-stated',
    description:
      'An OAuth token lives 15 minutes (the token store evicts it) while its answer states expires_in 3600: ' +
      'refused half an hour after it was issued (NM-TIME-UNIT).',
    violates: ['AUTH-OAUTH-EXPIRES-IN'],
  },
  {
    id: 'nm-delete-not-atomic',
    description:
      'DELETE /hooks/{id} reads the status, then writes "disabled" after an await: two DELETEs of one ' +
      'active hook at the same moment both answer 204.',
    violates: ['HOOKS-DELETE-SOFT', 'HOOKS-DELETE-TWICE-404'],
  },
  {
    id: 'nm-create-lost-update',
    description:
      'POST /hooks keeps the subscriptions of one event and target_url as one list, written back after a store ' +
      'round trip: of two identical creations at the same moment both answer 200, and one of them is lost.',
    violates: ['HOOKS-CREATE'],
  },
  {
    id: 'nm-secret-given-twice',
    description:
      'An identical POST /hooks (same account, event and target_url) answers with the existing active ' +
      "subscription's id and secret instead of a new subscription.",
    violates: ['HOOKS-SECRET-ONCE'],
  },
  {
    id: 'nm-204-with-body',
    description: 'The 204 of DELETE /hooks/{id} carries body bytes on the wire after its header section.',
    violates: ['HOOKS-DELETE-SOFT'],
  },
  {
    id: 'nm-refused-hook-kept',
    description:
      'POST /hooks stores the subscription with its target_url trimmed before the raw value is validated: a ' +
      'target_url with a surrounding space or a trailing newline is refused 400, yet subscribed and delivered to.',
    violates: ['HOOKS-REFUSED-NO-SUBSCRIPTION'],
  },
  {
    id: 'nm-refused-call-dialled',
    description:
      'POST /calls queues the call with the trimmed toNumber before checking the raw value: a toNumber with a ' +
      'surrounding space or a trailing newline is refused 400 invalid_input, yet the call is placed (its CDR appears).',
    violates: ['CALLS-REFUSED-NOT-PLACED'],
  },
  {
    id: 'nm-metadata-in-cdr',
    description:
      "The call row keeps the request's metadata and GET /cdrs reads its rows from it: a call's CDR carries " +
      'the metadata object, which is accepted but not persisted.',
    violates: ['CALLS-INERT-FIELDS'],
  },
  {
    id: 'nm-forwarded-for-trusted',
    description: "The rate limiter keys on the client's own X-Forwarded-For header when there is one.",
    violates: ['RATE-LIMIT-PER-IP'],
  },
  {
    id: 'nm-rate-limit-skips-anonymous',
    description:
      'The rate limiter counts only requests that carry an Authorization header (meant for API clients; a request ' +
      'without credentials is refused 401 anyway): an address spends nothing with them (NM-UNAUTHENTICATED-BUDGET).',
    violates: ['RATE-LIMIT-ALL-ENDPOINTS'],
  },
  {
    id: 'nm-event-id-per-call',
    description: 'The eventId is derived from the callId: distinct events of one call share it.',
    violates: ['EVENT-ID-PRESENT-UNIQUE'],
  },
  {
    id: 'nm-failure-counter-not-reset',
    description:
      'A 2xx answer does not reset the consecutive-failure counter: 9 failures, a success, 1 failure disables.',
    violates: ['WEBHOOK-AUTO-DISABLE-10'],
  },
  {
    id: 'nm-4xx-restarts-failure-count',
    description:
      'A 4xx answer ends its delivery and starts the consecutive-failure count again, as if the receiver ' +
      'answering at all proved it up: an endpoint answering 410 to every event is never disabled (NM-QUANTITY, ' +
      '"consecutive" per kind of failure).',
    violates: ['WEBHOOK-AUTO-DISABLE-10'],
  },
  {
    id: 'hook-secret-in-delivery-header',
    description:
      "Every delivery carries the subscription's secret in X-Service-Webhook-Secret (a debugging header left on): " +
      'the value POST /hooks returned once appears again on another channel.',
    violates: ['HOOKS-SECRET-ONCE'],
  },
  ...standardsFaults,
  // ── Standards: relations, ambiguity, principals ──
  {
    id: 'rel-auth-scheme-case-sensitive',
    description: 'The Bearer scheme is compared case-sensitively: `bearer <token>` and `BEARER <token>` are 401.',
    violates: ['STD-REL-AUTH-SCHEME-CASE'],
  },
  {
    id: 'rel-auth-split-one-space',
    description: 'The Authorization value is split on one space: `Bearer  <token>` (two spaces) is 401.',
    violates: ['STD-REL-AUTH-SPACES'],
  },
  {
    id: 'rel-authorization-name-exact',
    description:
      'The token is read from the raw header lines named exactly `Authorization` or `authorization`: ' +
      '`AUTHORIZATION` is no header (401).',
    violates: ['STD-REL-FIELD-NAME-CASE'],
  },
  {
    id: 'rel-media-type-case-sensitive',
    description: 'A JSON body is accepted only under the lower-case `application/json`: `Application/JSON` is 400.',
    violates: ['STD-REL-MEDIA-TYPE'],
  },
  {
    id: 'rel-json-raw-text-check',
    description:
      'POST /hooks looks for `"target_url":"https://` in the body\'s text: the same URL written with JSON ' +
      'escapes (`https:\\/\\/`) is 400 invalid_input.',
    violates: ['STD-REL-JSON-TEXT'],
  },
  {
    id: 'rel-path-matched-undecoded',
    description: 'The router matches the path undecoded: /v1/%6De (a percent-encoded "m") is 404.',
    violates: ['STD-REL-PERCENT-ENCODING'],
  },
  {
    id: 'rel-reserved-decoded-before-routing',
    description: 'The path is decoded whole before routing: /v1/me%3F and /v1/me%2F are answered as GET /me.',
    violates: ['STD-REL-RESERVED-DIFFERENT'],
  },
  {
    id: 'rel-accept-exact-match-406',
    description:
      "Content negotiation by exact match: an API request whose Accept does not name application/json (curl's " +
      '`*/*`) gets 406 Not Acceptable.',
    violates: ['STD-REL-ACCEPT-ANY'],
  },
  {
    id: 'rel-oauth-unknown-parameter-refused',
    description:
      'The token endpoint refuses a parameter it does not know (400 invalid_request) instead of ignoring it ' +
      '(RFC 6749 §3.2).',
    violates: ['STD-REL-OAUTH-FORM'],
  },
  {
    id: 'rel-if-match-412-before-auth',
    description:
      'A conditional-request layer in front of authentication: a POST or DELETE carrying If-Match is ' +
      '412 Precondition Failed before its token is read, so a request with no token gets 412, not 401.',
    violates: ['STD-REL-PRECONDITION'],
  },
  {
    id: 'rel-head-not-routed',
    description: 'HEAD is routed only where declared: HEAD on every GET operation is 404.',
    violates: ['STD-REL-HEAD'],
  },
  {
    id: 'rel-oauth-empty-scope-refused',
    description: 'The token endpoint reads `scope=` (no value) as asking for no scope: 400 invalid_scope.',
    violates: ['STD-REL-OAUTH-FORM'],
  },
  {
    id: 'principals-cache-keyed-by-account',
    description:
      "Reads are coalesced for 5 ms under their URL and the authenticated token's account, before the scope " +
      'check: a token of the same account without read:balance asking at the same moment gets the balance.',
    violates: ['STD-PRINCIPALS-NO-MIX'],
  },
  {
    id: 'ambig-query-first-validated-last-used',
    description:
      'GET /cdrs validates the first of a repeated limit and queries with the last, unclamped: ' +
      '`limit=1&limit=5000` returns every record of the window.',
    violates: ['STD-AMBIG-QUERY-TWICE'],
  },
  {
    id: 'ambig-empty-limit-unbounded',
    description: 'GET /cdrs reads `limit=` (no value) as 0, and 0 as "no limit": every record of the window.',
    violates: ['STD-AMBIG-EMPTY-VALUE'],
  },
  {
    id: 'ambig-json-duplicate-422',
    description: 'A JSON body with a member given twice is refused 422 duplicate_member, which no operation documents.',
    violates: ['STD-AMBIG-JSON-MEMBER-TWICE'],
  },
  {
    id: 'ambig-authorization-scopes-of-first-line',
    description:
      "With two Authorization lines the scope check reads the first line's token and the answer the last's: " +
      "another account's token first and a token without read:agents second lists this account's agents.",
    violates: ['STD-AMBIG-HEADER-TWICE'],
  },
  {
    id: 'ambig-oauth-body-credentials-win',
    description:
      'A token request authenticating the client two ways is read by its body credentials alone: HTTP Basic ' +
      'with a wrong secret beside the right body credentials gets a token.',
    violates: ['STD-AMBIG-OAUTH-TWO-METHODS'],
  },
  {
    id: 'ambig-oauth-repeated-first-wins',
    description:
      'The token endpoint takes the first value of a repeated parameter instead of refusing it 400 invalid_request.',
    violates: ['STD-AMBIG-OAUTH-REPEATED'],
  },
] as const satisfies readonly Fault[];

export type FaultId = (typeof faults)[number]['id'];

const selfProof = new Set<string>(faults.map((f) => f.id));
/**
 * Every id a FaultSet takes: the self-proof catalogue and the three post-hoc measurements
 * (./post-hoc-faults.ts, ./post-hoc-faults-rfc.ts, ./post-hoc-faults-rfc2.ts).
 */
const postHoc: readonly string[] = [...postHocFaultIds, ...rfcPostHocFaultIds, ...rfc2PostHocFaultIds];
const known = new Set<string>([...selfProof, ...postHoc]);

/** An id of the self-proof catalogue (`faults`). */
export function isFaultId(id: string): id is FaultId {
  return selfProof.has(id);
}

/** The ids of `ids` that name no fault of either list (for a precise error message). */
export function unknownFaultIds(ids: readonly string[]): string[] {
  return ids.filter((id) => !known.has(id));
}

/** The faults switched on; mutable at run time, read on every request (a Set hit). */
export class FaultSet {
  readonly #on = new Set<string>();
  #version = 0;

  constructor(ids: readonly string[] = []) {
    this.enable(ids);
  }

  has(id: FaultId | PostHocFaultId | RfcPostHocFaultId | Rfc2PostHocFaultId): boolean {
    return this.#on.has(id);
  }

  /** Changes whenever a fault is switched on or off (../points.ts rebuilds its tables then). */
  get version(): number {
    return this.#version;
  }

  /** Throws naming the unknown ids; enables nothing when one is unknown. */
  enable(ids: readonly string[]): void {
    const unknown = unknownFaultIds(ids);
    if (unknown.length > 0) throw new UnknownFaultError(unknown);
    for (const id of ids) this.#on.add(id);
    this.#version++;
  }

  disable(ids: readonly string[]): void {
    const unknown = unknownFaultIds(ids);
    if (unknown.length > 0) throw new UnknownFaultError(unknown);
    for (const id of ids) this.#on.delete(id);
    this.#version++;
  }

  set(ids: readonly string[]): void {
    const unknown = unknownFaultIds(ids);
    if (unknown.length > 0) throw new UnknownFaultError(unknown);
    this.#on.clear();
    for (const id of ids) this.#on.add(id);
    this.#version++;
  }

  list(): string[] {
    return [...faults.map((f) => f.id), ...postHoc].filter((id) => this.#on.has(id));
  }
}

export class UnknownFaultError extends Error {
  readonly ids: readonly string[];
  constructor(ids: readonly string[]) {
    super(
      `unknown fault id${ids.length > 1 ? 's' : ''}: ${ids.join(', ')} (GET /_reference/faults lists the catalogue)`,
    );
    this.ids = ids;
  }
}
