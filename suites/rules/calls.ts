/** The rules of calls.suite.ts that need no target: pure, so test/suites/calls.test.ts can hold them. */

const shown = (value: unknown): string => (JSON.stringify(value) ?? String(value)).slice(0, 200);

/**
 * Where the 502's `detail` sits, for the observation. control-openapi.json lets it go wherever the
 * target's API puts it, so a message or another member that may hold it is named as such, never
 * recorded as "nowhere": only a body with nothing but `error` has no place for it.
 */
export function detailLocation(body: unknown): string {
  if (body === null || typeof body !== 'object') return 'the body is not an object';
  const b = body as Record<string, unknown>;
  if ('detail' in b) return `a top-level "detail" field (${shown(b.detail)})`;
  if (typeof b.message === 'string' && /detail/i.test(b.message)) return `inside message (${shown(b.message)})`;
  const others = Object.keys(b).filter((key) => key !== 'error' && key !== 'message');
  if (others.length > 0)
    return `no "detail" member; other members: ${others.map((key) => `${key} (${shown(b[key])})`).join(', ')}`;
  if (typeof b.message === 'string') return `no "detail" member; in message if anywhere (${shown(b.message)})`;
  return `nowhere visible (fields: ${Object.keys(b).join(', ')})`;
}
