/**
 * The reference server's implementation of the test-control protocol (control-openapi.json):
 * every state and inspection, under /_control, behind `Authorization: Bearer <control token>`.
 * The suite drives the embedded reference through it exactly as it drives a vendor's staging
 * build. The reference's own fault switches and reset are NOT part of it (./control.ts,
 * /_reference): a vendor never implements faults.
 *
 * The states are set up and torn down in ./control-states.ts, the inspections answered in
 * ./control-inspections.ts. The conformant variants marked control (./variants.ts) make the other
 * choice at each **either** of the document (./variants/control.ts); the endpoint's own faults
 * (./control-faults.ts, off unless switched on at start) break one rule of the protocol each, so
 * that `occ control-check` is proven to name it (./faults/control.ts). Both override points of
 * these modules (./points.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CONTROL_PROTOCOL,
  controlInspections as inspections,
  controlStates as states,
  isControlInspection,
  isControlState,
} from '../contract/control.ts';
import { inspect } from './control-inspections.ts';
import { controlStateMachine, ProtocolError, type Params } from './control-states.ts';
import { isJsonContentType, isPlainObject } from './http.ts';
import { site, type Points } from './points.ts';
import type { ReferenceStore } from './store.ts';

function readBody(request: FastifyRequest): Params {
  const raw = typeof request.body === 'string' ? request.body : '';
  const type = request.headers['content-type'];
  if (type !== undefined && !isJsonContentType(type))
    throw new ProtocolError(400, 'invalid_request', 'the body must be JSON (content-type application/json)');
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ProtocolError(400, 'invalid_request', 'the body is not JSON');
  }
  if (!isPlainObject(value)) throw new ProtocolError(400, 'invalid_request', 'the body must be a JSON object');
  return value;
}

function paramsOf(body: Params, nullIsEmpty: boolean): Params {
  if (body.params === undefined || (body.params === null && nullIsEmpty)) return {};
  if (!isPlainObject(body.params)) throw new ProtocolError(400, 'invalid_request', 'params must be an object');
  return body.params;
}

export const controlProtocol = site('control protocol', {
  /** Only the control token opens the endpoint. */
  authorised: ({ given, expected }: { given: Buffer; expected: Buffer }): boolean =>
    given.length === expected.length && timingSafeEqual(given, expected),
  capabilities: (): Params => ({ protocol: CONTROL_PROTOCOL, states, inspections }),
  /** The states this target offers: every state of the document. */
  offered: (state: string): boolean => isControlState(state),
  /**
   * Requests are read as the document writes them: params null is no object, and a path or method it
   * does not document is the server's 404.
   */
  lenient: (): boolean => false,
});

/** The test-control protocol under /_control, behind `Authorization: Bearer <token>`. */
export function registerControlProtocol(
  app: FastifyInstance,
  store: ReferenceStore,
  options: { token: string; points: Points },
): void {
  const { points } = options;
  const expected = Buffer.from(`Bearer ${options.token}`);
  const authorised = (request: FastifyRequest): boolean =>
    points.of(controlProtocol).authorised({ given: Buffer.from(request.headers.authorization ?? ''), expected });
  const unauthorised = (reply: FastifyReply): FastifyReply =>
    reply.code(401).send({ error: 'unauthorized', message: 'send Authorization: Bearer <the control token>' });
  const { setup, teardown } = controlStateMachine(store, points);

  const guarded =
    (handler: (request: FastifyRequest) => Promise<unknown> | unknown) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      if (!authorised(request)) return unauthorised(reply);
      try {
        return reply.send(await handler(request));
      } catch (error) {
        if (error instanceof ProtocolError)
          return reply.code(error.status).send({ error: error.code, message: error.message });
        return reply.code(500).send({ error: 'setup_failed', message: (error as Error).message });
      }
    };

  app.get(
    '/_control/capabilities',
    guarded(() => points.of(controlProtocol).capabilities()),
  );

  app.post(
    '/_control/states',
    guarded((request) => {
      const at = points.of(controlProtocol);
      const body = readBody(request);
      const { state, action = 'setup' } = body;
      if (typeof state !== 'string') throw new ProtocolError(400, 'invalid_request', 'state must be a string');
      if (action !== 'setup' && action !== 'teardown')
        throw new ProtocolError(400, 'invalid_request', 'action must be setup or teardown');
      if (!isControlState(state) || !at.offered(state)) {
        throw new ProtocolError(404, 'unknown_state', `this target offers no state ${state}`);
      }
      const params = paramsOf(body, at.lenient());
      return action === 'setup' ? setup(state, params) : teardown(state, params);
    }),
  );

  app.post(
    '/_control/inspections',
    guarded((request) => {
      const body = readBody(request);
      const { inspection } = body;
      if (typeof inspection !== 'string')
        throw new ProtocolError(400, 'invalid_request', 'inspection must be a string');
      if (!isControlInspection(inspection))
        throw new ProtocolError(404, 'unknown_inspection', `this target offers no inspection ${inspection}`);
      return inspect(store, points, inspection, paramsOf(body, points.of(controlProtocol).lenient()));
    }),
  );

  // A lenient target: 401 before anything under the endpoint, 405 for a documented path with another
  // method (the reference's router answers 404 to both, without looking at a token).
  if (points.of(controlProtocol).lenient()) {
    const documented: Record<string, string> = {
      '/_control/capabilities': 'GET',
      '/_control/states': 'POST',
      '/_control/inspections': 'POST',
    };
    app.all('/_control/*', async (request, reply) => {
      if (!authorised(request)) return unauthorised(reply);
      const path = request.url.split('?', 1)[0]!.replace(/\/+$/, '');
      const allowed = documented[path];
      if (allowed === undefined)
        return reply.code(404).send({ error: 'not_found', message: `no control path ${path}` });
      return reply
        .code(405)
        .header('allow', allowed)
        .send({ error: 'method_not_allowed', message: `${path} takes ${allowed} only` });
    });
  }
}
