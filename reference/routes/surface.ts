/**
 * The answers off the operations: a path the server knows asked with a method it does not declare
 * is 405 method_not_allowed with Allow; any other path is 404 not_found; both are JSON errors (the
 * spec: all responses are JSON).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../http.ts';
import { site, type Points } from '../points.ts';

/** Paths of the /v1 surface and the others the server serves, with their methods. */
export const KNOWN_PATHS: ReadonlyArray<{ pattern: RegExp; allow: string }> = [
  { pattern: /^\/v1\/(me|balance|cdrs|agents|openapi\.json|docs)\/?$/, allow: 'GET, HEAD' },
  { pattern: /^\/v1\/(calls|hooks)\/?$/, allow: 'POST' },
  { pattern: /^\/v1\/hooks\/[^/]+\/?$/, allow: 'DELETE' },
  { pattern: /^\/oauth\/token\/?$/, allow: 'POST' },
  { pattern: /^\/\.well-known\/oauth-authorization-server\/?$/, allow: 'GET, HEAD' },
];

/** A request no route answers: its method and path, the reply, and the points (for the error answer). */
export interface Unrouted {
  readonly reply: FastifyReply;
  readonly points: Points;
  readonly method: string;
  readonly path: string;
}

export const surface = site('surface', {
  undeclaredMethod: ({ reply, method, path, allow }: Unrouted & { allow: string }): FastifyReply =>
    reply
      .code(405)
      .header('allow', allow)
      .send({ error: 'method_not_allowed', message: `${method} is not allowed on ${path}; allowed: ${allow}` }),
  unknownPath: ({ reply, points, method, path }: Unrouted): FastifyReply =>
    sendError(reply, points, 404, 'not_found', `no such resource: ${method} ${path}`),
});

/** The server's answer to a request no route takes. */
export function notFound(points: Points): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return (request, reply) => {
    const at = points.of(surface);
    const path = request.url.split('?', 1)[0]!;
    const known = KNOWN_PATHS.find((p) => p.pattern.test(path));
    const unrouted = { reply, points, method: request.method, path };
    return known === undefined ? at.unknownPath(unrouted) : at.undeclaredMethod({ ...unrouted, allow: known.allow });
  };
}
