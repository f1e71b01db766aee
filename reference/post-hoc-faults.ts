/**
 * Faults written AFTER the near-miss operators: a measurement of how
 * well the method generalises, not a proof. Each is a plausible slip of a real implementer that
 * breaks one sentence of the spec (quoted in `breaks`, word for word), is visible to an HTTP
 * client or to the webhook receiver, and belongs to a class that neither an operator of
 * operators/ nor a fault of ./faults.ts was designed for (`nearest` names the closest one and
 * how this differs).
 *
 * This list is apart from the self-proof catalogue (./faults.ts `faults`): the self-proof and its
 * kill rate never see these, and the suite is not changed to catch them; `bench/post-hoc.ts`
 * reports how many one run of the suite catches (and how many Schemathesis does). They are
 * switched on like the others (`occ reference --faults ph-…`, OCC_REFERENCE_FAULTS, the control
 * API: FaultSet knows these ids too) and implemented in ./post-hoc-slips.ts.
 *
 * Data only, no imports: ./faults.ts reads the ids from here.
 */
export interface PostHocFault {
  readonly id: string;
  /** The class of slip, in a few words (bench/RESULTS.md's column). */
  readonly class: string;
  readonly description: string;
  /** The spec sentence it breaks, as it stands in outbound-calling-api-v1.md (a substring of it). */
  readonly breaks: string;
  /** The existing fault or operator closest to it, and why it is not the same class. */
  readonly nearest: string;
}

export const postHocFaults = [
  // ── GET /cdrs ──
  {
    id: 'ph-cdrs-zero-window-accepted',
    class: 'lower bound of a window (strict vs non-strict)',
    description: 'GET /cdrs refuses only till < from, so from = till answers 200 with no rows.',
    breaks: '400 `till_must_be_after_from` (zero or negative window)',
    nearest: 'cdrs-window-31d-rejected / -32d-accepted: the upper bound of the window; nothing probes its lower bound',
  },
  {
    id: 'ph-cdrs-window-unchecked-with-default-till',
    class: 'a rule checked only on explicit values',
    description:
      'The 31-day check runs only when both from and till are given: from 40 days ago without till ' +
      '(till defaults to now) answers 200.',
    breaks: 'window end; must be after `from`; window at most 31 days',
    nearest: 'cdrs-window-32d-accepted: no check at all; here the check skips a defaulted bound',
  },
  {
    id: 'ph-cdrs-now-cached',
    class: 'clock read once (a cached now)',
    description:
      'The default till ("now") is the moment the process started (a module-level constant), so records made ' +
      'since, and any time the clock has moved on, are outside the default window.',
    breaks: '24 hours before now up to now',
    nearest: 'cdrs-default-till-midnight: a wrong default of a fixed shape; here a stale clock reading',
  },
  // ── GET /agents ──
  {
    id: 'ph-agents-created-at-naive',
    class: 'date-time without an offset in a response',
    description:
      'GET /agents writes createdAt as a naive date-time from the database ("2025-06-01T10:00:00": no offset, ' +
      'no Z), not an RFC 3339 date-time.',
    breaks: '| createdAt | string, date-time |',
    nearest: 'nm-datetime-zero-offset-refused (NM-DATETIME-EQUIVALENT): offsets of request values, not responses',
  },
  // ── Error status and code choice ──
  {
    id: 'ph-hooks-validation-422',
    class: 'status of a validation error (422)',
    description:
      "POST /hooks answers a well-formed JSON body with an invalid field 422 invalid_input (a framework's " +
      'validation status); a body that is not JSON still gets 400.',
    breaks: 'Errors: 400 `invalid_input` (body not JSON, event outside the enumeration, or target_url not https), 401.',
    nearest: 'hooks-unknown-event-accepted: accepts the field; here it is refused with the wrong status',
  },
  {
    id: 'ph-expired-token-code',
    class: 'error code of one 401 cause',
    description: 'An expired token gets 401 with error token_expired (RFC 6750 style) instead of unauthorized.',
    breaks:
      'A token that is invalid, expired, revoked or missing the required scope gets 401 with error `unauthorized`.',
    nearest: 'expired-token-accepted: the token is accepted; here it is refused with another code',
  },
  {
    id: 'ph-scope-403',
    class: 'status of a missing scope (403)',
    description:
      'A valid token without the required scope gets 403 insufficient_scope (RFC 6750 §3.1) instead of 401 ' +
      'unauthorized.',
    breaks:
      'Every endpoint can answer 401 `unauthorized` when the token is invalid, expired, revoked, or lacks the scope.',
    nearest: 'scope-unchecked-*: the scope is not checked; here it is, with the wrong status and code',
  },
  // ── POST /hooks, DELETE /hooks/{id} ──
  {
    id: 'ph-hook-id-uuid-v7',
    class: 'version of an issued UUID',
    description: 'POST /hooks issues time-ordered UUID v7 ids (a database default); DELETE still takes them.',
    breaks: 'Path parameter `id`: UUID v4, the id returned by POST /hooks.',
    nearest: 'NM-UUID-FORMS / NM-ID-CASE: forms of an id on input; nothing reads the version of an issued id',
  },
  {
    id: 'ph-hook-saved-before-length-check',
    class: 'state changed by a refused request (hooks)',
    description:
      'POST /hooks saves the subscription before checking the length of target_url: a target of 513 to ' +
      '64 KiB characters is refused 400 but subscribed, and receives deliveries.',
    breaks: '| (none) | POST /hooks | valid body | active |',
    nearest: 'hooks-long-target-accepted: answers 200; here the answer is right and the state is not',
  },
  {
    id: 'ph-delete-auto-disabled-204',
    class: 'two causes of one state told apart',
    description:
      'DELETE /hooks/{id} looks for a deletion mark, not the status: a hook auto-disabled after 10 failures ' +
      'is deleted with 204 instead of 404 not_found.',
    breaks: '| disabled | DELETE /hooks/{id} | always | disabled (unchanged) | response 404 `not_found` |',
    nearest: 'hooks-delete-twice-204: a second DELETE; here the first DELETE of an auto-disabled hook',
  },
  // ── POST /calls ──
  {
    id: 'ph-calls-placed-despite-bad-from-number',
    class: 'state changed by a refused request (calls)',
    description:
      'fromNumber is validated last, after the call is queued (it is not forwarded anyway): an invalid ' +
      'fromNumber answers 400 invalid_input, but the call is placed (a CDR, a call.ended delivery).',
    breaks: '400 `invalid_input`: body is not JSON or a field fails validation;',
    nearest: 'calls-e164-not-validated / nm-* E.164 faults: the value passes; here it is refused and still acted on',
  },
  {
    id: 'ph-calls-from-number-forwarded',
    class: 'a reserved field acted on',
    description: "A valid fromNumber is forwarded as the caller ID: the call's CDR carries it as src.",
    breaks: 'caller ID override; validated but reserved for the future, not forwarded',
    nearest: 'calls-metadata-rejected: a field refused; here an accepted field has an effect it must not have',
  },
  // ── Webhook signing and delivery ──
  {
    id: 'ph-signature-ms-timestamp',
    class: 'unit of the signature timestamp',
    description:
      'The signature timestamp is Date.now() in milliseconds (t=1767225600000), signed consistently, ' +
      'not a unix timestamp in seconds.',
    breaks: '`X-Service-Signature: t=<unix_timestamp>,v1=<hex_hmac_sha256>`',
    nearest: 'signature-without-timestamp / signature-wrong-key: the signed input and key, not the unit of t',
  },
  {
    id: 'ph-signature-reserialized-body',
    class: 'signed bytes differ from sent bytes',
    description:
      'The HMAC is computed over the compact JSON of the payload, but the body is sent pretty-printed ' +
      '(the HTTP client serialises it again): the raw body does not verify.',
    breaks: 'the timestamp `t`, a dot, then the raw request body',
    nearest: 'signature-without-timestamp: the signed input lacks t.; here it is another serialisation of the body',
  },
  {
    id: 'ph-delivery-text-plain',
    class: 'media type of a delivery',
    description:
      'Deliveries go out with the HTTP client\'s default for a string body, content-type "text/plain;charset=UTF-8".',
    breaks: 'Events are delivered by HTTP POST with a JSON body',
    nearest: 'error-html-body / nm-unknown-path-text: media types of API answers, not of deliveries',
  },
  {
    id: 'ph-event-contact-id-number',
    class: 'type of an event field',
    description: "Event payloads carry contactId as a JSON number (the contacts table's integer key).",
    breaks:
      'Base fields (all strings, payload may carry additional keys): callId, contactId, phone, dispositionCode, actor.',
    nearest: 'event-missing-field: a field absent; here present with the wrong type',
  },
  {
    id: 'ph-ack-only-200',
    class: 'which 2xx acknowledge',
    description:
      'Only 200 acknowledges a delivery: a receiver answering 202 or 204 is treated as failing (retried, counted ' +
      'toward auto-disable).',
    breaks: 'any 2xx response means delivered',
    nearest: 'retry-after-4xx / no-retry-after-5xx: the 4xx and 5xx classes; nothing varies the 2xx',
  },
  {
    id: 'ph-4xx-not-counted',
    class: 'which failures count toward auto-disable',
    description:
      'A 4xx answer ends its delivery but is not counted as a failure: an endpoint answering 410 to every ' +
      'event is never disabled.',
    breaks: 'endpoint disabled after 10 consecutive failures',
    nearest:
      'no-auto-disable / nm-failure-counter-not-reset: never disabled or never reset; here one kind is not counted',
  },
  // ── OAuth ──
  {
    id: 'ph-oauth-no-store-missing',
    class: 'a response header a standard requires',
    description:
      'The token response carries no Cache-Control: no-store (nor Pragma: no-cache), which RFC 6749 §5.1 ' +
      'requires of an answer holding a token.',
    breaks: 'a short-lived token obtained by OAuth 2.0 `client_credentials` from {auth_url}/oauth/token',
    nearest: 'oauth-metadata-token-endpoint-elsewhere: a field of the metadata; nothing reads the headers',
  },
  {
    id: 'ph-oauth-expiry-seconds-as-ms',
    class: 'a time unit mixed up (s vs ms)',
    description:
      'An OAuth token expires expires_in MILLISECONDS after it is minted (seconds added to a ms clock): ' +
      'it says 3600 and stops working after 3.6 s.',
    breaks: 'a short-lived token obtained by OAuth 2.0 `client_credentials` from {auth_url}/oauth/token',
    nearest: 'expired-token-accepted: an expired token accepted; here a live token refused',
  },
  // ── Rate limit, versioning ──
  {
    id: 'ph-rate-limit-after-auth',
    class: 'which requests the rate limit counts',
    description:
      'The rate limiter runs after authentication: requests with a missing or unknown token are answered ' +
      '401 and neither counted nor ever refused 429.',
    breaks: '100 requests per minute per IP by default',
    nearest: 'rate-limit-per-token / nm-forwarded-for-trusted: the key of the bucket; here what is counted',
  },
  {
    id: 'ph-openapi-3-0',
    class: 'version of the served description',
    description: "{base_url}/openapi.json declares openapi: 3.0.3 (a generator's default) over the same 3.1 document.",
    breaks: 'A machine-readable OpenAPI 3.1 description is served at {base_url}/openapi.json',
    nearest: 'openapi-removed-operation: an operation missing; here the declared version',
  },
] as const satisfies readonly PostHocFault[];

export type PostHocFaultId = (typeof postHocFaults)[number]['id'];

export const postHocFaultIds: readonly PostHocFaultId[] = postHocFaults.map((fault) => fault.id);
