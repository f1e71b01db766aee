/**
 * The requirement catalogue: every normative statement of the Outbound Calling REST API v1
 * spec (../shared/spec/outbound-calling-api-v1.md), one entry each, with a stable id.
 *
 * Tests are tagged with these ids and the reports are built from them, so ids never change
 * meaning once published: retire an id rather than reuse it.
 *
 * level   MUST     the spec states it; a target that does otherwise fails.
 *         OBSERVE  the spec leaves it unshown; what a target does is recorded, never failed.
 * checks  which kind of check covers it: `suite` (conformance suites), `property` (fast-check),
 *         `load` (k6 probes).
 * covers  the spec's own vocabulary the entry speaks for (error codes, scopes, operations),
 *         so a test can prove that no code, scope or operation of the spec is left unnamed.
 */

import { standardsLintRequirements } from './standards-lint.ts';
import { standardsRelations } from './standards-relations.ts';

export type Level = 'MUST' | 'OBSERVE';
export type CheckKind = 'suite' | 'property' | 'load';
export type OperationKey =
  | 'GET /me'
  | 'GET /balance'
  | 'GET /cdrs'
  | 'GET /agents'
  | 'POST /calls'
  | 'POST /hooks'
  | 'DELETE /hooks/{id}';

export interface Requirement {
  readonly id: string;
  /** Heading path in the spec, e.g. "Endpoints › GET /cdrs". */
  readonly section: string;
  /** One sentence in our words. */
  readonly text: string;
  readonly level: Level;
  readonly checks: readonly CheckKind[];
  readonly covers?: {
    readonly errorCodes?: readonly string[];
    readonly scopes?: readonly string[];
    readonly operations?: readonly OperationKey[];
    readonly events?: readonly string[];
  };
}

export const requirements = [
  // ── Format and contract ──
  {
    id: 'FORMAT-JSON-CONTENT-TYPE',
    section: 'What the service does',
    level: 'MUST',
    checks: ['suite'],
    text: 'Every response with a body is JSON and says so with an application/json content type.',
  },
  {
    id: 'FORMAT-ERROR-BODY',
    section: 'Errors',
    level: 'MUST',
    checks: ['suite'],
    text: 'An error response is a JSON object with a string `error` code and an optional string `message`.',
  },
  {
    id: 'CONTRACT-DOCUMENTED-STATUS',
    section: 'Endpoints',
    level: 'MUST',
    checks: ['suite', 'property'],
    text:
      'Every status a target answers is one the spec documents ' +
      'for that operation, with the body schema of that status.',
  },
  {
    id: 'CONTRACT-ERROR-CODE-PER-STATUS',
    section: 'Errors',
    level: 'MUST',
    checks: ['suite'],
    text: 'An error body carries only a code that the errors table lists for that endpoint and status.',
  },
  {
    id: 'CONTRACT-UNKNOWN-FIELDS',
    section: 'Versioning',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'Fields a target returns beyond the documented ones are recorded (additive changes ship in place).',
  },

  // ── GET /me ──
  {
    id: 'ME-200-SHAPE',
    section: 'Endpoints › GET /me',
    level: 'MUST',
    checks: ['suite'],
    covers: { operations: ['GET /me'] },
    text: 'GET /me answers 200 with customerId, companyName and an e-mail primaryContactEmail, all strings.',
  },
  {
    id: 'ME-ANY-SCOPE',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text: 'GET /me accepts any valid token, including one with no scopes at all.',
  },
  {
    id: 'ME-SUSPENDED-403',
    section: 'Endpoints › GET /me',
    level: 'MUST',
    checks: ['suite'],
    covers: { errorCodes: ['suspended'] },
    text: 'GET /me with a token of a suspended account answers 403 `suspended`.',
  },

  // ── GET /balance ──
  {
    id: 'BALANCE-200-SHAPE',
    section: 'Resources › Balance',
    level: 'MUST',
    checks: ['suite'],
    covers: { operations: ['GET /balance'] },
    text:
      'GET /balance answers 200 with a numeric balance, a currency, ' +
      'an accountType and the booleans blocked and stale.',
  },
  {
    id: 'BALANCE-CREDIT-LIMIT-NULLABLE',
    section: 'Resources › Balance',
    level: 'MUST',
    checks: ['suite'],
    text: 'creditLimit, when present, is a number or null (null meaning no credit limit).',
  },
  {
    id: 'BALANCE-UPSTREAM-500',
    section: 'Endpoints › GET /balance',
    level: 'MUST',
    checks: ['suite'],
    covers: { errorCodes: ['internal_error'] },
    text: 'When the upstream snapshot fetch fails, GET /balance answers 500 `internal_error`.',
  },
  {
    id: 'BALANCE-ACCOUNT-TYPE-VALUES',
    section: 'Resources › Balance',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'The allowed values of accountType are not shown; the value a target returns is recorded.',
  },

  // ── GET /cdrs ──
  {
    id: 'CDRS-200-SHAPE',
    section: 'Resources › Cdr',
    level: 'MUST',
    checks: ['suite'],
    covers: { operations: ['GET /cdrs'] },
    text:
      'GET /cdrs answers 200 with an integer count and a calls ' +
      'array whose records have the documented field types.',
  },
  {
    id: 'CDRS-COUNT-MATCHES-ROWS',
    section: 'Resources › Cdr',
    level: 'MUST',
    checks: ['suite', 'property'],
    text:
      'count is the number of records in calls, or, when calls holds exactly `limit` records, ' +
      'the larger number of records in the window (the spec defines count no further).',
  },
  {
    id: 'CDRS-ROWS-IN-WINDOW',
    section: 'Endpoints › GET /cdrs',
    level: 'MUST',
    checks: ['suite', 'property'],
    text: 'Every record returned has a startTime inside the requested window.',
  },
  {
    id: 'CDRS-DEFAULT-WINDOW',
    section: 'Endpoints › GET /cdrs',
    level: 'MUST',
    checks: ['suite', 'property'],
    text:
      'Without from and till the window is the last 24 hours and a missing till is now; ' +
      'a missing from is 24 hours before now, or before till (both readings of "24 hours before now" are accepted).',
  },
  {
    id: 'CDRS-INVALID-TIMESTAMP',
    section: 'Endpoints › GET /cdrs',
    level: 'MUST',
    checks: ['suite', 'property'],
    covers: { errorCodes: ['invalid_timestamp'] },
    text: 'A from or till that is not a parseable ISO 8601 date-time answers 400 `invalid_timestamp`.',
  },
  {
    id: 'CDRS-TILL-AFTER-FROM',
    section: 'Endpoints › GET /cdrs',
    level: 'MUST',
    checks: ['suite', 'property'],
    covers: { errorCodes: ['till_must_be_after_from'] },
    text: 'A window of zero or negative length answers 400 `till_must_be_after_from`.',
  },
  {
    id: 'CDRS-WINDOW-MAX-31D',
    section: 'Limits',
    level: 'MUST',
    checks: ['suite', 'property'],
    covers: { errorCodes: ['window_too_wide'] },
    text: 'A window longer than 31 days (by a second or more) answers 400 `window_too_wide`.',
  },
  {
    id: 'CDRS-WINDOW-EXACTLY-31D',
    section: 'Limits',
    level: 'MUST',
    checks: ['suite', 'property'],
    text: 'A window of exactly 31 days is accepted ("at most 31 days").',
  },
  {
    id: 'CDRS-WINDOW-SUBSECOND-PRECISION',
    section: 'Limits',
    level: 'OBSERVE',
    checks: ['property'],
    text:
      'Whether a window 31 days plus one millisecond long is ' +
      'refused is recorded (the comparison precision is not shown).',
  },
  {
    id: 'CDRS-TIMESTAMP-OFFSETS',
    section: 'Endpoints › GET /cdrs',
    level: 'MUST',
    checks: ['suite', 'property'],
    text:
      'from and till with any UTC offset or Z, with or without ' +
      'fractional seconds, are read as the instants they denote.',
  },
  {
    id: 'CDRS-DATE-ONLY-TIMESTAMP',
    section: 'Endpoints › GET /cdrs',
    level: 'OBSERVE',
    checks: ['property'],
    text: 'How a date without a time (2026-01-31) is treated is recorded: the spec asks for a date-time.',
  },
  {
    id: 'CDRS-LIMIT-DEFAULT-100',
    section: 'Limits',
    level: 'MUST',
    checks: ['suite'],
    text: 'Without limit, at most 100 records are returned.',
  },
  {
    id: 'CDRS-LIMIT-HONOURED',
    section: 'Limits',
    level: 'MUST',
    checks: ['suite', 'property'],
    text:
      'With a limit from 1 to 1000, at most that many records are returned, ' +
      'and that many when the window holds more.',
  },
  {
    id: 'CDRS-LIMIT-MAX-1000',
    section: 'Limits',
    level: 'MUST',
    checks: ['suite', 'property'],
    text: 'No answer ever carries more than 1000 records, whatever limit was asked for.',
  },
  {
    id: 'CDRS-LIMIT-OUT-OF-RANGE',
    section: 'Limits',
    level: 'OBSERVE',
    checks: ['suite', 'property'],
    text: 'The answer to a limit outside 1..1000 or not an integer is recorded: the spec gives no error code for it.',
  },
  {
    id: 'CDRS-NOT-PROVISIONED-409',
    section: 'Endpoints › GET /cdrs',
    level: 'MUST',
    checks: ['suite'],
    covers: { errorCodes: ['account_not_provisioned'] },
    text: 'GET /cdrs for an account with no trunk answers 409 `account_not_provisioned`.',
  },
  {
    id: 'CDRS-ORDER',
    section: 'Endpoints › GET /cdrs',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'The order of records in calls is recorded: the spec does not say.',
  },
  {
    id: 'CDRS-WINDOW-EDGES',
    section: 'Endpoints › GET /cdrs',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'Whether the window edges are inclusive is recorded, since consecutive windows must not lose records.',
  },
  {
    id: 'CDRS-DEFAULT-FROM-READING',
    section: 'Endpoints › GET /cdrs',
    level: 'OBSERVE',
    checks: ['suite'],
    text:
      'Which reading of the default from ("24 hours before now") a target uses ' +
      'when only till is given is recorded: 24 hours before now, or before till.',
  },
  {
    id: 'CDRS-COUNT-READING',
    section: 'Resources › Cdr',
    level: 'OBSERVE',
    checks: ['suite'],
    text:
      'Whether count is the number of records returned or the total ' +
      'in the window when limit truncates the answer is recorded.',
  },
  {
    id: 'CDR-REQUIRED-FIELDS',
    section: 'Resources › Cdr',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'Which Cdr and Agent fields a target omits is recorded: required fields are not shown.',
  },
  {
    id: 'CDR-DISPOSITION-VALUES',
    section: 'Resources › Cdr',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'The disposition values a target returns are recorded: the allowed values are not shown.',
  },

  // ── GET /agents ──
  {
    id: 'AGENTS-200-SHAPE',
    section: 'Resources › Agent',
    level: 'MUST',
    checks: ['suite'],
    covers: { operations: ['GET /agents'] },
    text: 'GET /agents answers 200 with an integer count and an agents array of records with a numeric-string id.',
  },
  {
    id: 'AGENTS-COUNT-MATCHES-ROWS',
    section: 'Resources › Agent',
    level: 'MUST',
    checks: ['suite'],
    text: 'count equals the number of records in agents.',
  },
  {
    id: 'AGENTS-NO-CREDENTIALS',
    section: 'Resources › Agent',
    level: 'MUST',
    checks: ['suite'],
    text: 'No agent record ever carries a credential (password, secret, SIP credential or similar).',
  },

  // ── POST /calls ──
  {
    id: 'CALLS-QUEUED',
    section: 'Endpoints › POST /calls',
    level: 'MUST',
    checks: ['suite'],
    covers: { operations: ['POST /calls'] },
    text: 'A valid origination answers 200 with a UUID callId and status `queued`.',
  },
  {
    id: 'CALLS-INVALID-JSON',
    section: 'Endpoints › POST /calls',
    level: 'MUST',
    checks: ['suite', 'property'],
    covers: { errorCodes: ['invalid_input'] },
    text: 'A body that is not JSON answers 400 `invalid_input`.',
  },
  {
    id: 'CALLS-REQUIRED-FIELDS',
    section: 'Resources › CallCreate',
    level: 'MUST',
    checks: ['suite', 'property'],
    text: 'A body without aiAgentId or toNumber answers 400 `invalid_input`.',
  },
  {
    id: 'CALLS-AGENT-ID-NUMERIC',
    section: 'Resources › CallCreate',
    level: 'MUST',
    checks: ['suite', 'property'],
    text: 'An aiAgentId that is not a numeric string answers 400 `invalid_input`.',
  },
  {
    id: 'CALLS-TO-NUMBER-E164',
    section: 'Resources › CallCreate',
    level: 'MUST',
    checks: ['suite', 'property'],
    text: 'A toNumber that is not E.164 answers 400 `invalid_input`.',
  },
  {
    id: 'CALLS-FROM-NUMBER-E164',
    section: 'Resources › CallCreate',
    level: 'MUST',
    checks: ['suite'],
    text: 'A fromNumber that is present but not E.164 answers 400 `invalid_input`; a valid one is accepted.',
  },
  {
    id: 'CALLS-METADATA-OBJECT',
    section: 'Resources › CallCreate',
    level: 'MUST',
    checks: ['suite'],
    text: 'metadata accepts an object with any keys; a metadata that is not an object answers 400 `invalid_input`.',
  },
  {
    id: 'CALLS-METADATA-NOT-PERSISTED',
    section: 'Resources › CallCreate',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'Whether metadata reappears anywhere (it is accepted but not persisted) is recorded.',
  },
  {
    id: 'CALLS-INERT-FIELDS',
    section: 'Resources › CallCreate',
    level: 'MUST',
    checks: ['suite'],
    text:
      'fromNumber ("not forwarded") and metadata ("not persisted") leave no trace in the records of the call: ' +
      'the CDR of a call sent with them does not carry them where the same call without them does not.',
  },
  {
    id: 'CALLS-REFUSED-NOT-PLACED',
    section: 'Endpoints › POST /calls',
    level: 'MUST',
    checks: ['suite'],
    text: 'A POST /calls that is refused places no call: no call detail record of its toNumber appears.',
  },
  {
    id: 'CALLS-AGENT-NOT-FOUND-404',
    section: 'Endpoints › POST /calls',
    level: 'MUST',
    checks: ['suite'],
    covers: { errorCodes: ['ai_agent_not_found'] },
    text:
      "An aiAgentId with no agent on the caller's account, " +
      "including another account's agent, answers 404 `ai_agent_not_found`.",
  },
  {
    id: 'CALLS-AGENT-NOT-PROVISIONED-409',
    section: 'Endpoints › POST /calls',
    level: 'MUST',
    checks: ['suite'],
    covers: { errorCodes: ['ai_agent_not_provisioned'] },
    text: 'An agent with no SIP extension yet answers 409 `ai_agent_not_provisioned`.',
  },
  {
    id: 'CALLS-NOT-PROVISIONED-409',
    section: 'Endpoints › POST /calls',
    level: 'MUST',
    checks: ['suite'],
    covers: { errorCodes: ['account_not_provisioned'] },
    text: 'POST /calls for an account with no trunk answers 409 `account_not_provisioned`.',
  },
  {
    id: 'CALLS-DIALER-REQUIRED-409',
    section: 'Endpoints › POST /calls',
    level: 'MUST',
    checks: ['suite'],
    covers: { errorCodes: ['dialer_required'] },
    text: 'POST /calls for an account without the dialer add-on answers 409 `dialer_required`.',
  },
  {
    id: 'CALLS-ORIGINATE-FAILED-502',
    section: 'Endpoints › POST /calls',
    level: 'MUST',
    checks: ['suite'],
    covers: { errorCodes: ['originate_failed'] },
    text: 'When upstream rejects the originate, POST /calls answers 502 `originate_failed`.',
  },
  {
    id: 'CALLS-ORIGINATE-FAILED-DETAIL',
    section: 'Errors',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'Where the originate_failed `detail` is carried is recorded: the spec does not show it.',
  },
  {
    id: 'CALLS-ENGINE-NOT-CONFIGURED-503',
    section: 'Endpoints › POST /calls',
    level: 'MUST',
    checks: ['suite'],
    covers: { errorCodes: ['engine_not_configured'] },
    text: 'When origination is unavailable in the environment, POST /calls answers 503 `engine_not_configured`.',
  },
  {
    id: 'CALLS-CORRELATE-CALL-ENDED',
    section: 'Endpoints › POST /calls',
    level: 'MUST',
    checks: ['suite'],
    text: 'The callId of an origination reappears as callId in the later call.ended delivery.',
  },
  {
    id: 'CALLS-TRANSITIONS',
    section: 'States › Call',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'Call states after `queued` are not shown; the states a target exposes are recorded.',
  },

  // ── POST /hooks ──
  {
    id: 'HOOKS-CREATE',
    section: 'States › Webhook subscription',
    level: 'MUST',
    checks: ['suite', 'property'],
    covers: { operations: ['POST /hooks'] },
    text:
      'A valid POST /hooks answers 200 with a UUID id and a ' +
      'secret starting with `whsec_`; the subscription is active.',
  },
  {
    id: 'HOOKS-SECRET-ONCE',
    section: 'Endpoints › POST /hooks',
    level: 'MUST',
    checks: ['suite'],
    text: 'The signing secret appears only in the creation response and in no other response.',
  },
  {
    id: 'HOOKS-INVALID-JSON',
    section: 'Endpoints › POST /hooks',
    level: 'MUST',
    checks: ['suite', 'property'],
    text: 'A body that is not JSON answers 400 `invalid_input`.',
  },
  {
    id: 'HOOKS-REQUIRED-FIELDS',
    section: 'Resources › HookCreate',
    level: 'MUST',
    checks: ['suite', 'property'],
    text: 'A body without event or target_url answers 400 `invalid_input`.',
  },
  {
    id: 'HOOKS-EVENT-ENUM',
    section: 'Resources › HookCreate',
    level: 'MUST',
    checks: ['suite', 'property'],
    covers: { events: ['call.ended', 'call.transferred', 'disposition.set', 'dnc.added', 'lead.completed'] },
    text: 'Each of the five event kinds is accepted and any other event answers 400 `invalid_input`.',
  },
  {
    id: 'HOOKS-TARGET-HTTPS',
    section: 'Resources › HookCreate',
    level: 'MUST',
    checks: ['suite', 'property'],
    text: 'A target_url that is not an https URI answers 400 `invalid_input`.',
  },
  {
    id: 'HOOKS-REFUSED-NO-SUBSCRIPTION',
    section: 'States › Webhook subscription',
    level: 'MUST',
    checks: ['suite'],
    text: 'A POST /hooks that is refused subscribes nothing: no event is delivered to its target_url.',
  },
  {
    id: 'HOOKS-TARGET-MAX-512',
    section: 'Limits',
    level: 'MUST',
    checks: ['suite', 'property'],
    text: 'A target_url of 512 characters is accepted and one of 513 answers 400 `invalid_input`.',
  },
  {
    id: 'HOOKS-ONE-EVENT-PER-SUBSCRIPTION',
    section: 'Endpoints › POST /hooks',
    level: 'MUST',
    checks: ['suite'],
    text: 'A subscription receives deliveries of its own event kind only.',
  },
  {
    id: 'HOOKS-SEVERAL-SUBSCRIPTIONS',
    section: 'Endpoints › POST /hooks',
    level: 'MUST',
    checks: ['suite'],
    text: 'Several subscriptions, for several events and the same target, can coexist.',
  },
  {
    id: 'HOOKS-MAX-SUBSCRIPTIONS',
    section: 'Limits',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'The maximum number of subscriptions per account is not shown; any limit met is recorded.',
  },

  // ── DELETE /hooks/{id} and the subscription state table ──
  {
    id: 'HOOKS-DELETE-SOFT',
    section: 'States › Webhook subscription',
    level: 'MUST',
    checks: ['suite', 'property'],
    covers: { operations: ['DELETE /hooks/{id}'] },
    text: 'DELETE of an active hook of the account answers 204 with no body and disables it.',
  },
  {
    id: 'HOOKS-DELETE-TWICE-404',
    section: 'States › Webhook subscription',
    level: 'MUST',
    checks: ['suite', 'property'],
    covers: { errorCodes: ['not_found'] },
    text: 'DELETE of a disabled hook answers 404 `not_found` and leaves it disabled.',
  },
  {
    id: 'HOOKS-DELETE-UNKNOWN-404',
    section: 'Endpoints › DELETE /hooks/{id}',
    level: 'MUST',
    checks: ['suite', 'property'],
    text: 'DELETE of a UUID that names no hook answers 404 `not_found`.',
  },
  {
    id: 'HOOKS-DELETE-FOREIGN-404',
    section: 'Endpoints › DELETE /hooks/{id}',
    level: 'MUST',
    checks: ['suite'],
    text: "DELETE of another account's hook answers 404 `not_found` and leaves that hook active.",
  },
  {
    id: 'HOOKS-DELETE-NON-UUID-400',
    section: 'Endpoints › DELETE /hooks/{id}',
    level: 'MUST',
    checks: ['suite', 'property'],
    text: 'DELETE with an id that is not a UUID answers 400 `invalid_input`.',
  },
  {
    id: 'HOOKS-DELETE-HISTORY-KEPT',
    section: 'States › Webhook subscription',
    level: 'MUST',
    checks: ['suite'],
    text: 'A soft-deleted hook keeps its delivery history (visible through the reference control API only).',
  },
  {
    id: 'HOOKS-NO-DELIVERY-AFTER-DELETE',
    section: 'States › Webhook subscription',
    level: 'MUST',
    checks: ['suite'],
    text: 'No delivery is made to a disabled subscription.',
  },
  {
    id: 'HOOKS-NO-DIRECT-EMIT',
    section: 'Events',
    level: 'MUST',
    checks: ['suite'],
    text: 'No API operation emits an event directly: creating or deleting a hook sends no delivery.',
  },
  {
    id: 'HOOKS-DELETE-UUID-VERSION',
    section: 'Endpoints › DELETE /hooks/{id}',
    level: 'OBSERVE',
    checks: ['suite'],
    text:
      'DELETE with a well-formed UUID of another version than 4: "UUID v4" allows 400 ' +
      '`invalid_input`, "id not a UUID" allows 404 `not_found`; which one is recorded.',
  },

  // ── Authentication and scopes ──
  {
    id: 'AUTH-BEARER-REQUIRED',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    covers: { errorCodes: ['unauthorized'] },
    text: 'Every endpoint answers 401 `unauthorized` to a request without an Authorization header.',
  },
  {
    id: 'AUTH-MALFORMED-SCHEME',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text: 'Every endpoint answers 401 `unauthorized` to an Authorization header that is not `Bearer <token>`.',
  },
  {
    id: 'AUTH-UNKNOWN-TOKEN',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text: 'Every endpoint answers 401 `unauthorized` to a bearer token it did not issue.',
  },
  {
    id: 'AUTH-EXPIRED-TOKEN',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text: 'Every endpoint answers 401 `unauthorized` to an expired token.',
  },
  {
    id: 'AUTH-REVOKED-TOKEN',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text: 'Every endpoint answers 401 `unauthorized` to a revoked token.',
  },
  {
    id: 'AUTH-REVOKE-IMMEDIATE',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text: 'A token deleted in the portal is refused from the very next request.',
  },
  {
    id: 'AUTH-SCOPE-BALANCE',
    section: 'Authentication › Scopes',
    level: 'MUST',
    checks: ['suite'],
    covers: { scopes: ['read:balance'] },
    text: 'GET /balance needs read:balance: a token without it gets 401 `unauthorized`, a token with only it gets 200.',
  },
  {
    id: 'AUTH-SCOPE-CDRS',
    section: 'Authentication › Scopes',
    level: 'MUST',
    checks: ['suite'],
    covers: { scopes: ['read:cdrs'] },
    text: 'GET /cdrs needs read:cdrs: a token without it gets 401 `unauthorized`, a token with only it gets 200.',
  },
  {
    id: 'AUTH-SCOPE-AGENTS',
    section: 'Authentication › Scopes',
    level: 'MUST',
    checks: ['suite'],
    covers: { scopes: ['read:agents'] },
    text: 'GET /agents needs read:agents: a token without it gets 401 `unauthorized`, a token with only it gets 200.',
  },
  {
    id: 'AUTH-SCOPE-CALLS',
    section: 'Authentication › Scopes',
    level: 'MUST',
    checks: ['suite'],
    covers: { scopes: ['write:calls'] },
    text: 'POST /calls needs write:calls: a token without it gets 401 `unauthorized` before any validation.',
  },
  {
    id: 'AUTH-SCOPE-HOOKS',
    section: 'Authentication › Scopes',
    level: 'MUST',
    checks: ['suite'],
    covers: { scopes: ['write:hooks'] },
    text: 'POST /hooks and DELETE /hooks/{id} need write:hooks: a token without it gets 401 `unauthorized`.',
  },
  {
    id: 'AUTH-SCOPE-NUMBERS',
    section: 'Authentication › Scopes',
    level: 'OBSERVE',
    checks: ['suite'],
    covers: { scopes: ['read:numbers'] },
    text:
      'read:numbers exists but its endpoints are not shown: ' +
      'that it grants none of the documented endpoints is recorded.',
  },
  {
    id: 'AUTH-SCOPE-INVOICES',
    section: 'Authentication › Scopes',
    level: 'OBSERVE',
    checks: ['suite'],
    covers: { scopes: ['read:invoices'] },
    text:
      'read:invoices exists but its endpoints are not shown: ' +
      'that it grants none of the documented endpoints is recorded.',
  },
  {
    id: 'AUTH-OAUTH-DISCOVERY',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text:
      'The auth host serves RFC 8414 metadata naming its issuer, ' +
      'its token endpoint and the client_credentials grant, as application/json (RFC 8414 §3.2).',
  },
  {
    id: 'AUTH-OAUTH-METADATA-TOKEN-ENDPOINT',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text:
      'The discovery metadata names the token endpoint the spec documents: ' +
      'token_endpoint is {auth_url}/oauth/token (RFC 8414 §2, in any form RFC 3986 §6.2.2 makes equivalent).',
  },
  {
    id: 'AUTH-OAUTH-CLIENT-CREDENTIALS',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text: 'A client_credentials grant at {auth_url}/oauth/token yields a bearer token the API accepts.',
  },
  {
    id: 'AUTH-OAUTH-SAME-SCOPES',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text: 'An OAuth token obeys the same scope rules as an API token.',
  },
  {
    id: 'AUTH-OAUTH-NO-WIDENING',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text:
      "A client_credentials grant asking for scopes beyond the client's registered ones yields no token " +
      'that carries them (its `scope`, or the request when `scope` is omitted: RFC 6749 §3.3, §5.1) or that ' +
      'the API accepts for an operation needing one of them: it may be refused (invalid_scope) or narrowed.',
  },
  {
    id: 'AUTH-OAUTH-BAD-CLIENT',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A wrong client secret is refused by the token endpoint ' +
      '(RFC 6749 §5.2 `invalid_client`) and yields no token.',
  },
  {
    id: 'AUTH-OAUTH-TOKEN-LIFETIME',
    section: 'Authentication',
    level: 'OBSERVE',
    checks: ['suite'],
    text:
      "The token endpoint's parameters and token lifetime are not shown; " +
      'expires_in and the accepted parameters are recorded.',
  },
  {
    id: 'AUTH-OAUTH-EXPIRES-IN',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text:
      'An OAuth token works for the lifetime its expires_in states in seconds (OAuth 2.0, RFC 6749 §5.1): at half ' +
      "of it on the target's clock it is accepted; whether it is refused at its end is recorded (token expiry may " +
      'run on either clock: control-openapi.json).',
  },
  {
    id: 'AUTH-OAUTH-NO-STORE',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A token answer of {auth_url}/oauth/token carries Cache-Control: no-store (OAuth 2.0, RFC 6749 §5.1: ' +
      '"MUST include … no-store" in any response containing tokens); its Pragma: no-cache is recorded.',
  },
  {
    id: 'AUTH-OAUTH-CLIENT-AUTH-METHODS',
    section: 'Authentication',
    level: 'OBSERVE',
    checks: ['suite'],
    text:
      'Which client authentication methods the token endpoint advertises ' +
      '(RFC 8414 token_endpoint_auth_methods_supported) and accepts is recorded: ' +
      'RFC 6749 requires only HTTP Basic, and an advertised method must work.',
  },
  {
    id: 'AUTH-API-TOKEN-PREFIX',
    section: 'Authentication',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'API tokens carry a live-token prefix whose value is not shown; the prefix seen is recorded.',
  },
  {
    id: 'AUTH-LAST-USED',
    section: 'Authentication',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'Last-used timestamps are recorded per token; they are not visible through the API.',
  },

  // ── Events ──
  {
    id: 'EVENT-BASE-FIELDS',
    section: 'Events',
    level: 'MUST',
    checks: ['suite'],
    text: 'Every payload carries callId, contactId, phone, dispositionCode and actor as strings.',
  },
  {
    id: 'EVENT-ID-PRESENT-UNIQUE',
    section: 'Events',
    level: 'MUST',
    checks: ['suite'],
    text: 'Every payload carries an eventId, distinct for distinct events.',
  },
  {
    id: 'EVENT-CALL-ENDED-PAYLOAD',
    section: 'Events › Event kinds',
    level: 'MUST',
    checks: ['suite'],
    covers: { events: ['call.ended'] },
    text:
      'call.ended carries the base fields plus integer durationSec, ' +
      'hangupReason, sentimentLabel and boolean transferInitiated.',
  },
  {
    id: 'EVENT-CALL-TRANSFERRED-PAYLOAD',
    section: 'Events › Event kinds',
    level: 'MUST',
    checks: ['suite'],
    covers: { events: ['call.transferred'] },
    text: 'call.transferred carries the base fields, plus transferTarget when known.',
  },
  {
    id: 'EVENT-DISPOSITION-SET-PAYLOAD',
    section: 'Events › Event kinds',
    level: 'MUST',
    checks: ['suite'],
    covers: { events: ['disposition.set'] },
    text: 'disposition.set carries the base fields plus boolean terminal and triggersDnc.',
  },
  {
    id: 'EVENT-DNC-ADDED-PAYLOAD',
    section: 'Events › Event kinds',
    level: 'MUST',
    checks: ['suite'],
    covers: { events: ['dnc.added'] },
    text: 'dnc.added carries the base fields.',
  },
  {
    id: 'EVENT-LEAD-COMPLETED-PAYLOAD',
    section: 'Events › Event kinds',
    level: 'MUST',
    checks: ['suite'],
    covers: { events: ['lead.completed'] },
    text: 'lead.completed carries the base fields.',
  },
  {
    id: 'EVENT-TIMESTAMP-FIELD',
    section: 'Events',
    level: 'OBSERVE',
    checks: ['suite'],
    text: "The name of the payload's timestamp field is not shown; the one a target sends is recorded.",
  },
  {
    id: 'EVENT-ADDITIONAL-KEYS',
    section: 'Events',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'Keys beyond the documented ones are allowed; those a target sends are recorded.',
  },

  // ── Delivery rules ──
  {
    id: 'WEBHOOK-POST-JSON',
    section: 'Events › Delivery rules',
    level: 'MUST',
    checks: ['suite'],
    text: "A delivery is an HTTP POST to the subscription's target_url with a JSON body.",
  },
  {
    id: 'WEBHOOK-SIGNATURE-FORMAT',
    section: 'Events › Delivery rules',
    level: 'MUST',
    checks: ['suite'],
    text: 'Every delivery carries X-Service-Signature: t=<unix timestamp>,v1=<hex HMAC-SHA256>.',
  },
  {
    id: 'WEBHOOK-SIGNATURE-INPUT',
    section: 'Events › Delivery rules',
    level: 'MUST',
    checks: ['suite'],
    text: 'The signature is computed over the timestamp, a dot, then the raw request body.',
  },
  {
    id: 'WEBHOOK-SIGNATURE-KEY',
    section: 'Events › Delivery rules',
    level: 'MUST',
    checks: ['suite'],
    text: 'The HMAC is keyed with the secret POST /hooks returned for that subscription.',
  },
  {
    id: 'WEBHOOK-SIGNATURE-FRESH',
    section: 'Events › Delivery rules',
    level: 'MUST',
    checks: ['suite'],
    text: "The signature timestamp is the time of sending, within the receiver's tolerance (300 s by default).",
  },
  {
    id: 'WEBHOOK-ACK-2XX',
    section: 'Events › Delivery rules',
    level: 'MUST',
    checks: ['suite', 'load'],
    text: 'Any 2xx answer acknowledges a delivery: no further attempt follows.',
  },
  {
    id: 'WEBHOOK-4XX-NO-RETRY',
    section: 'Events › Delivery rules',
    level: 'MUST',
    checks: ['suite', 'load'],
    text: 'A 4xx answer is a permanent failure: exactly one attempt is made.',
  },
  {
    id: 'WEBHOOK-5XX-RETRY',
    section: 'Events › Delivery rules',
    level: 'MUST',
    checks: ['suite', 'load'],
    text: 'A 5xx answer is retried.',
  },
  {
    id: 'WEBHOOK-TIMEOUT-RETRY',
    section: 'Events › Delivery rules',
    level: 'MUST',
    checks: ['suite', 'load'],
    text: 'A delivery the receiver does not answer in time is retried.',
  },
  {
    id: 'WEBHOOK-BACKOFF-EXPONENTIAL',
    section: 'Events › Delivery rules',
    level: 'MUST',
    checks: ['suite', 'load'],
    text: 'Intervals between attempts grow: each at least as long as the one before, and growing overall.',
  },
  {
    id: 'WEBHOOK-RETRY-HORIZON-24H',
    section: 'Limits',
    level: 'MUST',
    checks: ['suite', 'load'],
    text: 'No attempt is made more than 24 hours after the first.',
  },
  {
    id: 'WEBHOOK-RETRY-SAME-EVENT',
    section: 'Events › Delivery rules',
    level: 'MUST',
    checks: ['suite', 'load'],
    text: 'Every attempt of one event carries the same eventId and a valid, fresh signature.',
  },
  {
    id: 'WEBHOOK-AUTO-DISABLE-10',
    section: 'States › Webhook subscription',
    level: 'MUST',
    checks: ['suite', 'property', 'load'],
    text:
      'After 10 consecutive failed attempts the subscription ' +
      'is disabled (DELETE then answers 404), and not before.',
  },
  {
    id: 'WEBHOOK-RECOVERY-BEFORE-10',
    section: 'States › Webhook subscription',
    level: 'MUST',
    checks: ['suite', 'load'],
    text:
      'A receiver that recovers before the tenth consecutive ' +
      'failure gets the event and the subscription stays active.',
  },
  {
    id: 'WEBHOOK-ORDERING',
    section: 'Events › Delivery rules',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'There is no global ordering; the order deliveries arrive in is recorded.',
  },
  {
    id: 'WEBHOOK-TIMEOUT-AND-BACKOFF-VALUES',
    section: 'Events › Delivery rules',
    level: 'OBSERVE',
    checks: ['suite', 'load'],
    text: 'The delivery timeout and the backoff intervals are not shown; the intervals seen are recorded.',
  },

  // ── Rate limit ──
  {
    id: 'RATE-LIMIT-100-PER-MIN',
    section: 'Limits',
    level: 'MUST',
    checks: ['suite', 'load'],
    text: 'A client sending at most 100 requests per minute is never refused for rate.',
  },
  {
    id: 'RATE-LIMIT-ENFORCED',
    section: 'Limits',
    level: 'MUST',
    checks: ['suite', 'load'],
    text:
      'A client sending more than the limit per minute is refused for the excess; ' +
      'the limit estimated is within 5 % of the configured one.',
  },
  {
    id: 'RATE-LIMIT-ALL-ENDPOINTS',
    section: 'Limits',
    level: 'MUST',
    checks: ['suite', 'load'],
    text:
      'The limit counts requests to every endpoint, per client IP, whatever credentials they carry ' +
      '(none, a token never issued: "Applies to: all").',
  },
  {
    id: 'RATE-LIMIT-PER-IP',
    section: 'Limits',
    level: 'MUST',
    checks: ['suite', 'load'],
    text:
      'The limit is per client IP ("100 requests per minute per IP"): requests of several tokens from one address ' +
      'share one budget, and another address has a budget of its own.',
  },
  {
    id: 'RATE-LIMIT-RESPONSE-SHAPE',
    section: 'Limits',
    level: 'OBSERVE',
    checks: ['load', 'suite'],
    text: 'The refusal is not shown: its status, body, Retry-After and rate-limit headers are recorded.',
  },
  {
    id: 'RATE-LIMIT-WINDOW-BEHAVIOUR',
    section: 'Limits',
    level: 'OBSERVE',
    checks: ['suite', 'load'],
    text: 'Whether the window is fixed or sliding and when it resets is recorded.',
  },

  // ── Versioning ──
  {
    id: 'VERSION-PATH-V1',
    section: 'Versioning',
    level: 'MUST',
    checks: ['suite'],
    text: 'Every operation is served under the /v1 path prefix of the base URL.',
  },
  {
    id: 'VERSION-OPENAPI-SERVED',
    section: 'Versioning',
    level: 'MUST',
    checks: ['suite'],
    text: '{base_url}/openapi.json serves a valid OpenAPI 3.1 description.',
  },
  {
    id: 'VERSION-NO-BREAKING-IN-PLACE',
    section: 'Versioning',
    level: 'MUST',
    checks: ['suite'],
    text:
      'The served description removes no operation, response, ' +
      'field or enum value and requires no new input compared with v1.',
  },
  {
    id: 'VERSION-ADDITIVE-CHANGES',
    section: 'Versioning',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'Additions in the served description (new optional fields, new endpoints) are recorded.',
  },
  {
    id: 'VERSION-DOCS-SERVED',
    section: 'Versioning',
    level: 'MUST',
    checks: ['suite'],
    text: '{base_url}/docs serves an interactive reference as an HTML page.',
  },
  {
    id: 'VERSION-PREVIOUS-12-MONTHS',
    section: 'Versioning',
    level: 'OBSERVE',
    checks: ['suite'],
    text:
      'A previous version stays available 12 months after a new one ships; ' +
      'whether a v2 prefix answers is recorded.',
  },

  // ── Account isolation ────────────────────────────────────────────────────────────────
  {
    id: 'ACCOUNT-ISOLATION',
    section: 'Endpoints',
    level: 'MUST',
    checks: ['suite'],
    text:
      'Nothing of another account appears in any answer: GET /agents lists the SIP lines of the account and ' +
      'GET /cdrs its records, never an agent, record or SIP line of another account (the spec\'s "of the ' +
      'account", "belongs to the caller\'s account").',
  },
  ...standardsLintRequirements,
  ...standardsRelations,
] as const satisfies readonly Requirement[];

export type RequirementId = (typeof requirements)[number]['id'];

/**
 * Requirements the k6 webhook-retry probe judges only against the reference, whose virtual clock
 * it drives: remotely the recovery plan is not run, and no watch of TIME_BUDGET_S reaches 24 h.
 */
export const REFERENCE_ONLY_PROBE_REQUIREMENTS: readonly RequirementId[] = [
  'WEBHOOK-RECOVERY-BEFORE-10',
  'WEBHOOK-RETRY-HORIZON-24H',
];

const byId = new Map<string, Requirement>(requirements.map((r) => [r.id, r]));

/** The entry for an id; throws on an unknown id so a typo in a test tag fails loudly. */
export function requirement(id: RequirementId): Requirement {
  const entry = byId.get(id);
  if (!entry) throw new Error(`unknown requirement id ${id}`);
  return entry;
}

export function isRequirementId(id: string): id is RequirementId {
  return byId.has(id);
}

/**
 * What each k6 probe decides or observes (its thresholds' and observations' requirement ids): a
 * probe that did not finish in a run leaves these not run, whatever its partial summary says.
 */
export const PROBE_REQUIREMENTS: Readonly<Record<'webhook-retry' | 'rate-limit', readonly RequirementId[]>> = {
  'webhook-retry': [
    'WEBHOOK-ACK-2XX',
    'WEBHOOK-4XX-NO-RETRY',
    'WEBHOOK-5XX-RETRY',
    'WEBHOOK-TIMEOUT-RETRY',
    'WEBHOOK-BACKOFF-EXPONENTIAL',
    'WEBHOOK-RETRY-HORIZON-24H',
    'WEBHOOK-RETRY-SAME-EVENT',
    'WEBHOOK-AUTO-DISABLE-10',
    'WEBHOOK-RECOVERY-BEFORE-10',
    'WEBHOOK-TIMEOUT-AND-BACKOFF-VALUES',
  ],
  'rate-limit': [
    'RATE-LIMIT-100-PER-MIN',
    'RATE-LIMIT-ENFORCED',
    'RATE-LIMIT-ALL-ENDPOINTS',
    'RATE-LIMIT-RESPONSE-SHAPE',
    'RATE-LIMIT-WINDOW-BEHAVIOUR',
    'RATE-LIMIT-PER-IP',
  ],
};
