/** Faults of the answers off the operations (../routes/surface.ts). ../faults.ts describes each. */
import { faultsAt } from '../points.ts';
import { KNOWN_PATHS, surface } from '../routes/surface.ts';

/** What a framework's default 405 page looks like. */
const HTML_405 =
  '<!doctype html><html><head><title>405 Method Not Allowed</title></head><body>Not allowed</body></html>';

/** Whether a path is one step from a known one: a child of it, or it with a suffix. */
export function nearKnownPath(path: string): boolean {
  const parent = path.replace(/\/[^/]+\/?$/, '');
  const stem = path.replace(/-[^/-]*$/, '');
  return KNOWN_PATHS.some(
    ({ pattern }) => (parent !== path && pattern.test(parent)) || (stem !== path && pattern.test(stem)),
  );
}

export default faultsAt(surface, {
  'nm-undeclared-method-html': {
    undeclaredMethod: ({ reply, allow }) =>
      reply.code(405).header('allow', allow).type('text/html; charset=utf-8').send(HTML_405),
  },
  'nm-unknown-path-text': {
    unknownPath: (unrouted, next) =>
      nearKnownPath(unrouted.path)
        ? unrouted.reply.code(404).type('text/plain; charset=utf-8').send('Not Found')
        : next(unrouted),
  },
});
