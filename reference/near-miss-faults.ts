/**
 * The reference's near-miss faults (reference/faults.ts, "Near misses derived from the contract"):
 * how a server that slips reads a credential, a number or an identifier. Each helper is the
 * identity unless its fault is on, so api.ts and server.ts call them with one line at the point
 * where the slip happens. Each fault is caught by one operator of operators/ alone.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaultSet } from './faults.ts';

/** Bearer, or (nm-token-scheme-accepted) the "Token" keyword some frameworks use. */
export const BEARER_OR_TOKEN = /^(?:bearer|token) +([^\s]+) *$/i;

/** An Authorization value made from a token found elsewhere (nm-token-in-query, -cookie, -x-api-key), or undefined. */
export function bearerElsewhere(request: FastifyRequest, faults: FaultSet): string | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  if (faults.has('nm-token-in-query') && typeof query?.access_token === 'string') return `Bearer ${query.access_token}`;
  const cookie = /(?:^|;\s*)access_token=([^;\s]+)/.exec(request.headers.cookie ?? '')?.[1];
  if (faults.has('nm-token-in-cookie') && cookie !== undefined) return `Bearer ${cookie}`;
  const key = request.headers['x-api-key'];
  if (faults.has('nm-token-x-api-key') && typeof key === 'string') return `Bearer ${key}`;
  return undefined;
}

/** The zero of each block of digits a Unicode-aware \d admits (Arabic-Indic, Persian, Devanagari, full-width). */
const DIGIT_ZEROS = [0x0660, 0x06f0, 0x0966, 0xff10];

function asciiDigit(digit: string): string {
  const code = digit.codePointAt(0)!;
  const zero = DIGIT_ZEROS.find((z) => code >= z && code <= z + 9);
  return zero === undefined ? digit : String(code - zero);
}

/** E.164 as a slipping validator sees it (nm-trailing-newline-accepted, nm-e164-trimmed, nm-unicode-digits). */
export function e164Seen(value: string, faults: FaultSet): string {
  let seen = value;
  if (faults.has('nm-trailing-newline-accepted')) seen = seen.replace(/\n$/, '');
  if (faults.has('nm-e164-trimmed')) seen = seen.trim();
  if (faults.has('nm-unicode-digits')) seen = seen.replace(/\p{Nd}/gu, asciiDigit);
  return seen;
}

/** aiAgentId read as a number (nm-numeric-id-lenient): "+70418" and "70418.0" become "70418". */
export function agentIdSeen(value: unknown, faults: FaultSet): unknown {
  if (!faults.has('nm-numeric-id-lenient') || typeof value !== 'string') return value;
  return /^\+?[0-9]+(\.0+)?$/.test(value) ? String(Number(value)) : value;
}

/** A string as C reads it, cut at the first NUL (nm-nul-truncated). */
export function cStringSeen(value: unknown, faults: FaultSet): unknown {
  return faults.has('nm-nul-truncated') && typeof value === 'string' ? value.split('\u0000')[0] : value;
}

/**
 * A hook id with a urn:uuid: prefix stripped (nm-uuid-urn-accepted); or (nm-id-char36-truncated) one
 * of more than 36 hex digits and hyphens looked up before it is validated, in a CHAR(36) column that
 * cuts it to 36 (MySQL's non-strict mode): where its first 36 name a stored hook, they are the id
 * (an id naming none goes on to be refused as not a UUID).
 */
export function hookIdSeen(value: string, faults: FaultSet, stored: ReadonlyMap<string, unknown>): string {
  const cut = value.slice(0, 36).toLowerCase();
  if (faults.has('nm-id-char36-truncated') && /^[0-9a-f-]{37,}$/i.test(value) && stored.has(cut)) return cut;
  return faults.has('nm-uuid-urn-accepted') ? value.replace(/^urn:uuid:/i, '') : value;
}

/**
 * An event with its first letter lower-cased (nm-event-first-letter-folded), forgiving the capital a
 * form or a phone keyboard puts first: "Call.ended" is read as call.ended ("Call.Ended" is not).
 */
export function firstLetterFolded(value: unknown, faults: FaultSet): unknown {
  if (!faults.has('nm-event-first-letter-folded') || typeof value !== 'string') return value;
  return value.charAt(0).toLowerCase() + value.slice(1);
}

/**
 * Whether fromNumber passes `e164` as a slipping validator sees it (e164Seen); or (nm-caller-id-one-digit)
 * the caller-ID override's own copy of the pattern, written with {0,14}: a one-digit "+1" passes.
 */
export function callerIdOk(e164: RegExp, value: string, faults: FaultSet): boolean {
  const pattern = faults.has('nm-caller-id-one-digit') ? new RegExp(e164.source.replace('{1,14}', '{0,14}')) : e164;
  return pattern.test(e164Seen(value, faults));
}

interface StoredHook {
  readonly id: string;
  readonly accountId: string;
  readonly event: string;
  readonly targetUrl: string;
  readonly status: string;
}

const sameSubscription = (a: StoredHook, b: StoredHook) =>
  a.accountId === b.accountId && a.event === b.event && a.targetUrl === b.targetUrl;

/**
 * The hook a DELETE acts on: the one its id names, or (nm-delete-by-target), where that one is
 * active, the account's oldest active one of the same event and target_url, as an unsubscribe
 * keyed by the target (REST Hooks) finds it: of two identical subscriptions, the sibling's id
 * disables the first one.
 */
export function hookNamed<H extends StoredHook>(
  hooks: ReadonlyMap<string, H>,
  key: string,
  faults: FaultSet,
): H | undefined {
  const hook = hooks.get(key);
  if (hook?.status !== 'active' || !faults.has('nm-delete-by-target')) return hook;
  return [...hooks.values()].find((h) => h.status === 'active' && sameSubscription(h, hook)) ?? hook;
}

/**
 * nm-create-lost-update: the subscriptions of one event and target_url are one list, read as a new
 * one is stored and written back after a store's round trip (20 ms, as slowStore): a subscription
 * another creation of the same event and target stored meanwhile is lost. Both creations are
 * answered 200; the lost id names nothing afterwards. Returns the created one.
 */
export async function writtenBack<H extends StoredHook>(
  hooks: Map<string, H>,
  created: H,
  faults: FaultSet,
): Promise<H> {
  if (!faults.has('nm-create-lost-update')) return created;
  const read = new Set([...hooks.values()].filter((h) => sameSubscription(h, created)).map((h) => h.id));
  await new Promise((resolve) => setTimeout(resolve, 20));
  for (const h of [...hooks.values()]) if (sameSubscription(h, created) && !read.has(h.id)) hooks.delete(h.id);
  return created;
}

/**
 * The key a hook is looked up by: the lower-case id (RFC 9562), the id as typed
 * (nm-uuid-case-sensitive), or the stored id sharing its first 35 characters (nm-id-prefix-match).
 */
export function hookKey(id: string, stored: Iterable<string>, faults: FaultSet): string {
  if (faults.has('nm-uuid-case-sensitive')) return id;
  const lower = id.toLowerCase();
  if (!faults.has('nm-id-prefix-match')) return lower;
  for (const key of stored) if (key.slice(0, 35) === lower.slice(0, 35)) return key;
  return lower;
}

/** The account check is skipped for an id not written as issued (nm-foreign-id-case). */
export function ownershipSkipped(id: string, faults: FaultSet): boolean {
  return faults.has('nm-foreign-id-case') && id !== id.toLowerCase();
}

/** +00:00 refused as a timestamp ("write Z for UTC": nm-datetime-zero-offset-refused). */
export function zeroOffsetRefused(raw: string | null | undefined, faults: FaultSet): boolean {
  return faults.has('nm-datetime-zero-offset-refused') && typeof raw === 'string' && /\+00:00$/.test(raw);
}

/** A limit no plain integer but whole to Number() ("1e4", "1001.0"), used uncapped (nm-limit-lenient). */
export function lenientLimit(raw: string | null | undefined, limit: number, faults: FaultSet): number {
  if (!faults.has('nm-limit-lenient') || typeof raw !== 'string' || /^[+-]?[0-9]+$/.test(raw.trim())) return limit;
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : limit;
}

/** A limit past 2^31 cast to a signed 32-bit integer, a negative one read as "no limit" (nm-limit-int32-wrap). */
export function int32Limit(raw: string | null | undefined, limit: number, faults: FaultSet): number {
  if (!faults.has('nm-limit-int32-wrap') || typeof raw !== 'string' || !/^[0-9]{10,15}$/.test(raw)) return limit;
  return (Number(raw) | 0) < 0 ? Number.MAX_SAFE_INTEGER : limit;
}

/** Whether a path is one step from a known one: a child of it, or it with a suffix (nm-unknown-path-text). */
export function nearKnownPath(path: string, known: readonly RegExp[]): boolean {
  const parent = path.replace(/\/[^/]+\/?$/, '');
  const stem = path.replace(/-[^/-]*$/, '');
  return known.some((pattern) => (parent !== path && pattern.test(parent)) || (stem !== path && pattern.test(stem)));
}

/**
 * nm-secret-given-twice: an "idempotent" create, where the same account, event and target get the
 * active subscription back, secret included.
 */
export function idempotentCreate<H extends { accountId: string; event: string; targetUrl: string; status: string }>(
  hooks: Iterable<H>,
  account: string,
  event: unknown,
  targetUrl: unknown,
  faults: FaultSet,
): H | undefined {
  if (!faults.has('nm-secret-given-twice')) return undefined;
  return [...hooks].find(
    (h) => h.accountId === account && h.event === event && h.targetUrl === targetUrl && h.status === 'active',
  );
}

/**
 * nm-delete-not-atomic: the status is read before and written after a store's round trip, so two
 * DELETEs of one active hook that arrive within it both find it active. 20 ms: two requests a
 * client sends at once arrive well within it, and the run's many serial DELETEs (cleanups) stay cheap.
 */
export async function slowStore(faults: FaultSet): Promise<void> {
  if (faults.has('nm-delete-not-atomic')) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * nm-204-with-body: body bytes after a 204's head. Node's server drops a 204's body, so they are
 * written on the socket itself. Returns whether it answered.
 */
export function bodyAfter204(reply: FastifyReply, faults: FaultSet): boolean {
  if (!faults.has('nm-204-with-body')) return false;
  reply.hijack();
  reply.raw.socket?.end('HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n{"status":"disabled"}');
  return true;
}
