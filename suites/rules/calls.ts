/** The rules of calls.suite.ts that need no target: pure, so test/suites/calls.test.ts can hold them. */

/** Where the 502's `detail` sits, for the observation. */
export function detailLocation(body: unknown): string {
  if (body === null || typeof body !== 'object') return 'the body is not an object';
  const b = body as Record<string, unknown>;
  if ('detail' in b) return `a top-level "detail" field (${JSON.stringify(b.detail)})`;
  if (typeof b.message === 'string' && /detail/i.test(b.message))
    return `inside message (${JSON.stringify(b.message)})`;
  return `nowhere visible (fields: ${Object.keys(b).join(', ')})`;
}
