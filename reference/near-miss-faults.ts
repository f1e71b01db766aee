/**
 * A helper of the near-miss fault nm-unknown-path-text (./faults.ts), which ./server.ts answers
 * for an unknown path. The other near-miss faults override points of the routes (./faults/).
 */

/** Whether a path is one step from a known one: a child of it, or it with a suffix (nm-unknown-path-text). */
export function nearKnownPath(path: string, known: readonly RegExp[]): boolean {
  const parent = path.replace(/\/[^/]+\/?$/, '');
  const stem = path.replace(/-[^/-]*$/, '');
  return known.some((pattern) => (parent !== path && pattern.test(parent)) || (stem !== path && pattern.test(stem)));
}
