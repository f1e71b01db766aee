/**
 * The last point every answer of the API and of the auth host passes before it goes on the wire
 * (a Fastify onSend hook): the conformant reference leaves it as it is; faults of the standards
 * the spec stands on (./faults/standards.ts) bend its fields and octets here, the way a framework
 * setting or a hand-written header would. The test-control and reference endpoints are ours, not
 * the target's: they never pass it.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Points } from './points.ts';
import { site } from './points.ts';

export interface Outgoing {
  readonly method: string;
  /** The request's path, without the query. */
  readonly path: string;
  /** Its status, its fields (set or removed through the reply). */
  readonly reply: FastifyReply;
  /** The serialised content, as the route made it. */
  readonly payload: unknown;
}

export const wire = site('wire', {
  /** The content that goes out; the reply's fields may be set or removed. */
  answer: ({ payload }: Outgoing): unknown => payload,
  /** Why a request's Host lines get 400 (RFC 9112 §3.2), or undefined. */
  hostProblem: ({ rawHeaders, version }: { rawHeaders: readonly string[]; version: string }): string | undefined =>
    hostProblem(rawHeaders, version),
});

const OURS = /^\/_(control|reference)(\/|$)/;

/** RFC 9112 §3.2: Host = uri-host [ ":" port ]: no whitespace, no path, no userinfo. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::[0-9]*)?$/;

/**
 * RFC 9112 §3.2: "A server MUST respond with a 400 (Bad Request) status code to any HTTP/1.1
 * request message that lacks a Host header field and to any request message that contains more
 * than one Host header field line or a Host header field with an invalid field value." Node
 * refuses a missing Host itself; two lines, or one that is no uri-host [":" port], are refused here.
 */
export function hostProblem(rawHeaders: readonly string[], version: string): string | undefined {
  // The sentence binds HTTP/1.1 requests; an HTTP/1.0 one may come without Host or as it was written.
  if (version === '1.0') return undefined;
  const hosts = rawHeaders.filter((_, i) => i % 2 === 0 && rawHeaders[i]!.toLowerCase() === 'host').length;
  if (hosts > 1) return `${hosts} Host field lines`;
  const value = rawHeaders[rawHeaders.findIndex((name, i) => i % 2 === 0 && name.toLowerCase() === 'host') + 1];
  return value !== undefined && !HOST.test(value) ? 'a Host that is no uri-host [":" port]' : undefined;
}

/** One hook: every answer of the target's own surface through the `wire` point (and Host checked first). */
export function registerWire(app: FastifyInstance, points: Points): void {
  app.addHook('onRequest', (request, reply, done) => {
    const problem = points.of(wire).hostProblem({
      rawHeaders: request.raw.rawHeaders,
      version: request.raw.httpVersion,
    });
    if (problem === undefined) return done();
    reply.code(400).send({ error: 'bad_request', message: `the request carries ${problem} (RFC 9112 §3.2)` });
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const path = request.url.split('?', 1)[0]!;
    if (OURS.test(path)) return done(null, payload);
    done(null, points.of(wire).answer({ method: request.method, path, reply, payload }) as typeof payload);
  });
}
