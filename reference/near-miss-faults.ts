/**
 * The reference's near-miss faults (reference/faults.ts, "Near misses derived from the contract"):
 * how a server that slips reads a credential, a number or an identifier. Each helper is the
 * identity unless its fault is on, so api.ts and server.ts call them with one line at the point
 * where the slip happens. Each fault is caught by one operator of operators/ alone.
 */
import type { FastifyReply } from 'fastify';
import type { FaultSet } from './faults.ts';

/** A string as C reads it, cut at the first NUL (nm-nul-truncated). */
export function cStringSeen(value: unknown, faults: FaultSet): unknown {
  return faults.has('nm-nul-truncated') && typeof value === 'string' ? value.split('\u0000')[0] : value;
}

/** A hook id with a urn:uuid: prefix stripped (nm-uuid-urn-accepted). */
export function hookIdSeen(value: string, faults: FaultSet): string {
  return faults.has('nm-uuid-urn-accepted') ? value.replace(/^urn:uuid:/i, '') : value;
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
