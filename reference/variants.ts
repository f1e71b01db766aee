/**
 * Conformant variants of the reference server: each one is a choice a careful engineer who read
 * only the spec could have made differently from ours, where the spec is silent or ambiguous.
 * They are NOT faults: a target with any of them on is conformant, and the suite must pass it
 * (test/self-proof/variants.run.test.ts runs the whole suite against each one, as a remote target).
 * They never count in the self-proof's kill rate.
 *
 * Switched on at start (`variants` option, `npm run reference -- --variants id,id|all`).
 * Where a variant bends a route, its code overrides that route's points (./variants/, ../points.ts);
 * the others are implemented at their point in the code (grep for the id).
 */
export interface Variant {
  readonly id: string;
  /** The reading of the spec this variant takes (the reference's own is in docs/decisions.md). */
  readonly description: string;
  /**
   * Proven by runs WITH CONTROL_URL: a choice control-openapi.json leaves to the target, or one
   * only its control endpoint drives into view (virtual time).
   */
  readonly control?: true;
}

export const variants = [
  {
    id: 'cdrs-default-from-now',
    description:
      'GET /cdrs with only till: from = 24 hours before NOW, read literally ' +
      '(a till older than that is a negative window: 400 till_must_be_after_from).',
  },
  {
    id: 'cdrs-count-total',
    description: 'CdrList count is the number of records in the window, larger than calls.length when limit truncates.',
  },
  {
    id: 'cdrs-descending',
    description: 'CDRs come newest first; with more records than limit, the newest `limit` are returned.',
  },
  {
    id: 'cdrs-till-inclusive',
    description: 'The window is [from, till]: a record starting exactly at till is included.',
  },
  {
    id: 'cdrs-from-exclusive',
    description: 'The window is (from, till]: a record starting exactly at from is excluded, one at till included.',
  },
  {
    id: 'oauth-basic-only',
    description:
      'The token endpoint supports only HTTP Basic client authentication (RFC 6749 §2.3.1) ' +
      'and its metadata advertises only client_secret_basic; ' +
      'credentials in the body are refused with 401 invalid_client.',
  },
  {
    id: 'oauth-scope-narrowed',
    description:
      "A grant asking for scopes beyond the client's registration is narrowed to the registered ones and " +
      'says so in `scope` (RFC 6749 §3.3), instead of being refused with invalid_scope; a token answer ' +
      'omits `scope` when it grants exactly the scope requested (RFC 6749 §5.1: optional then).',
  },
  {
    id: 'calls-agent-first',
    description:
      'POST /calls checks the agent (404, then 409 ai_agent_not_provisioned) right after aiAgentId is read, ' +
      'before the other fields and the account state.',
  },
  {
    id: 'rate-limit-fixed-window',
    description:
      'The rate limiter counts per fixed window aligned to the clock (e.g. each wall-clock minute), ' +
      'so up to twice the limit can pass in a rolling window across a boundary.',
  },
  {
    id: 'rate-limit-plain-429',
    description: 'A refusal for rate is 429 with a text/plain body, no Retry-After and no RateLimit-* headers.',
  },
  {
    id: 'rate-limit-unauthenticated-401',
    description:
      'Every request counts toward its address, but one without an Authorization header past the budget is ' +
      'answered 401 unauthorized, not 429 (the spec shows neither the refusal for rate nor an order).',
  },
  { id: 'errors-without-message', description: 'Error bodies carry only `error` (message is optional).' },
  {
    id: 'extra-fields',
    description:
      'Responses carry additional fields (allowed: additive changes ship in place): ' +
      'Me, Balance, CdrList, each Cdr and Agent, CallQueued and HookCreated get one more field.',
  },
  { id: 'balance-no-credit-limit', description: 'GET /balance omits creditLimit (it is not required).' },
  // Choices control-openapi.json leaves to the implementer (its **either**): the test-control
  // endpoint's, so they are proven by runs against a remote target WITH CONTROL_URL.
  {
    id: 'webhook-backoff-slow-start',
    description:
      'Retries start 12 minutes after the first attempt and grow by 1.5 (12, 18, 27, 40.5 min …): ten attempts ' +
      'still fall within the 24 hours (virtual time).',
    control: true,
  },
  {
    id: 'control-virtual-clock-signing',
    description:
      'Webhook signatures (t of X-Service-Signature) are made with the virtual clock, as payload timestamps are: ' +
      'after clock-advanced they are hours ahead of real time (control-openapi.json, Time: either).',
    control: true,
  },
  {
    id: 'control-foreign-events',
    description:
      'Each event-emitted setup also delivers another event of the same kind and account (real activity: another ' +
      'eventId, not in the answer) to the same subscriptions, just before the requested one.',
    control: true,
  },
  {
    id: 'deliver-on-subscribe',
    description:
      "The account's call activity coincides with every POST /hooks: one event of the new hook's kind goes to " +
      'every active subscription of that kind of the account, the new one included, its first attempt started ' +
      'before POST /hooks answers (real activity, at any time: control-openapi.json, Events).',
    control: true,
  },
  {
    id: 'control-event-sets',
    description:
      "event-emitted emits a call's set (the requested kind, call.ended, disposition.set, lead.completed, one each, " +
      'one callId) and answers {eventId, eventIds} with every eventId in emission order, without deliveries.',
    control: true,
  },
  // The other choice at every **either** (and MAY that changes an answer) of control-openapi.json
  // 1.2.0 that the reference does not already make both ways; composable: all at once are one target.
  {
    id: 'control-advance-defers-nested',
    description:
      'clock-advanced fires the timers due within the jump that existed before it; timers those set within the ' +
      'jump wait for the next advance (Time: either). A fractional ms is rounded up to a whole ms.',
    control: true,
  },
  {
    id: 'control-clock-stands-still',
    description:
      'The virtual clock stands still between advances: only clock-advanced moves it (Time: either). Call ' +
      'progress and token expiry follow it, so a call ends only when the clock is advanced past its end.',
    control: true,
  },
  {
    id: 'control-advance-waits',
    description:
      'clock-advanced answers only after the delivery attempts it fired have ended (bounded by 10 s), ' +
      'not while they are in flight (either).',
    control: true,
  },
  {
    id: 'control-idle-counts-calls',
    description:
      'deliveries-idle also waits, within its 10 s, for calls in progress whose call.ended falls due within them ' +
      '(events not yet emitted: either).',
    control: true,
  },
  {
    id: 'control-real-time-stamps',
    description:
      'Call progress, OAuth token expiry and last-used times run on real time, not the virtual clock (either).',
    control: true,
  },
  {
    id: 'control-strict-params',
    description:
      'event-emitted refuses fields eventId, event, occurredAt, fields its kind does not document and values of ' +
      'another type with 422, and any account name (it honours none of its own); the account states, clock and ' +
      'deliveries-idle refuse params other than {} (teardown values aside) with 422; clock-advanced refuses ' +
      'more than 48 hours with 422 (each a MAY or either).',
    control: true,
  },
  {
    id: 'control-lenient-requests',
    description:
      'params: null reads as {}; a documented path with another method answers 405; an unknown path under the ' +
      'control endpoint answers 401 first without the token (each either).',
    control: true,
  },
  {
    id: 'control-emitted-call-records',
    description:
      "call-record knows the callId of an emitted event's payload (an ended call), rather than 404 (either).",
    control: true,
  },
  {
    id: 'control-account-tokens-kept',
    description:
      'Each account state gives the same token at every setup (the account and token are kept) and its teardown ' +
      'keeps the token rather than revoking it (either).',
    control: true,
  },
  {
    id: 'control-account-made-per-setup',
    description:
      'Each setup of an account state makes a new account in that condition (with a provisioned and an ' +
      'unprovisioned agent) rather than keeping one (either).',
    control: true,
  },
  {
    id: 'control-account-states-apart',
    description:
      'balance-upstream-failing, originate-failing and engine-not-configured use an account other than the test ' +
      'account, and the failure holds for that account only (either).',
    control: true,
  },
  {
    id: 'control-502-detail-in-message',
    description: 'The 502 originate_failed carries the upstream detail inside message, with no detail member (either).',
    control: true,
  },
  {
    id: 'control-token-forget',
    description:
      'The teardown of token-issued forgets the token (it no longer authenticates; token-last-used answers 404) ' +
      'instead of revoking it (MAY).',
    control: true,
  },
  {
    id: 'control-revoke-issued-only',
    description:
      'token-revoked accepts only tokens token-issued returned; any other token is 422 invalid_params (either).',
    control: true,
  },
  {
    id: 'control-teardown-named-only',
    description:
      "A teardown undoes only what its values name; without values it ends only the state's condition " +
      '(tokens other setups gave stay valid) (either).',
    control: true,
  },
  {
    id: 'control-scope-401-not-a-use',
    description: "A request refused 401 for a missing scope does not stamp the token's last-used time (either).",
    control: true,
  },
  {
    id: 'control-attempt-event-ids',
    description:
      'hook-attempts gives each attempt its own eventId (MAY), omits disabledReason while the hook is active, and ' +
      'the clock inspection answers {now} alone (iso and virtual are optional).',
    control: true,
  },
  // ── Standards: relations, ambiguity, principals ──
  {
    id: 'ambig-query-repeated-first',
    description: 'GET /cdrs reads a repeated query parameter as its first value, validated as if given once.',
  },
  {
    id: 'ambig-json-duplicate-refused',
    description: 'A JSON body with a member given twice is refused 400 invalid_input (RFC 8259 §4: unpredictable).',
  },
] as const satisfies readonly Variant[];

export type VariantId = (typeof variants)[number]['id'];

const known = new Set<string>(variants.map((v) => v.id));

/** The ids of `ids` that name no variant (for a precise error message). */
export function unknownVariantIds(ids: readonly string[]): string[] {
  return ids.filter((id) => !known.has(id));
}

/** `all` expands to every variant; otherwise the ids as given. */
export function expandVariantIds(ids: readonly string[]): string[] {
  return ids.includes('all') ? variants.map((v) => v.id) : [...ids];
}

/** The variants switched on, fixed at start. */
export class VariantSet {
  readonly #on: ReadonlySet<string>;

  constructor(ids: readonly string[] = []) {
    const unknown = unknownVariantIds(ids);
    if (unknown.length > 0)
      throw new RangeError(
        `unknown variant id${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (reference/variants.ts lists them)`,
      );
    this.#on = new Set(ids);
  }

  has(id: VariantId): boolean {
    return this.#on.has(id);
  }

  list(): VariantId[] {
    return variants.map((v) => v.id).filter((id) => this.#on.has(id));
  }
}

/** Fields the extra-fields variant adds, by path: additive fields a later v1 could ship. */
const EXTRA_FIELDS: Record<string, (body: Record<string, unknown>) => void> = {
  '/v1/me': (b) => {
    b.timezone = 'Europe/Berlin';
  },
  '/v1/balance': (b) => {
    b.updatedAt = new Date(0).toISOString();
  },
  '/v1/cdrs': (b) => {
    b.truncated = false;
    for (const row of (b.calls as Array<Record<string, unknown>> | undefined) ?? []) row.direction = 'outbound';
  },
  '/v1/agents': (b) => {
    for (const row of (b.agents as Array<Record<string, unknown>> | undefined) ?? []) row.enabled = true;
  },
  '/v1/calls': (b) => {
    b.createdAt = new Date(0).toISOString();
  },
  '/v1/hooks': (b) => {
    b.createdAt = new Date(0).toISOString();
  },
};

/**
 * The variants that only change how a /v1 answer is written (an onSend hook of the server):
 * extra-fields, balance-no-credit-limit, errors-without-message. Returns the payload unchanged
 * when none applies.
 */
export function rewriteResponse(on: VariantSet, url: string, status: number, payload: unknown): unknown {
  if (typeof payload !== 'string' || !url.startsWith('/v1/')) return payload;
  // The path as the router matched it: a percent-encoded unreserved character is that character (RFC 3986 §6.2.2.2).
  const path = url
    .split('?', 1)[0]!
    .replace(/%(3[0-9]|4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|2D|2E|5F|7E)/gi, (_m, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
    .replace(/\/+$/, '');
  const extra = status === 200 && on.has('extra-fields') ? EXTRA_FIELDS[path] : undefined;
  const noCredit = status === 200 && path === '/v1/balance' && on.has('balance-no-credit-limit');
  const noMessage = status >= 400 && on.has('errors-without-message');
  if (extra === undefined && !noCredit && !noMessage) return payload;
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return payload;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return payload;
  const b = body as Record<string, unknown>;
  extra?.(b);
  if (noCredit) delete b.creditLimit;
  if (noMessage && typeof b.error === 'string') for (const key of Object.keys(b)) if (key !== 'error') delete b[key];
  return JSON.stringify(b);
}
