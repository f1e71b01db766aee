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
});

const OURS = /^\/_(control|reference)(\/|$)/;

/** One hook: every answer of the target's own surface through the `wire` point. */
export function registerWire(app: FastifyInstance, points: Points): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const path = request.url.split('?', 1)[0]!;
    if (OURS.test(path)) return done(null, payload);
    done(null, points.of(wire).answer({ method: request.method, path, reply, payload }) as typeof payload);
  });
}
