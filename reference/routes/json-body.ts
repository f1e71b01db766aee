/**
 * The body of a POST, read after authentication: a JSON object sent as application/json (or any
 * +json media type, parameters ignored); anything else is that operation's 400 invalid_input.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isPlainObject, readJsonBody, sendError } from '../http.ts';
import type { BodyResult } from '../http.ts';
import { site } from '../points.ts';
import type { RouteOptions } from './options.ts';

/** A body read, or what is answered in its place: an invalid_input message, or (a fault's) whole answer. */
export type BodyRead = BodyResult | { ok: false; answer: { status: number; body: unknown } };

export const jsonBody = site('JSON body', {
  /** The body parsed as JSON, or why it is no JSON body. */
  read: (request: FastifyRequest): BodyRead => readJsonBody(request),
});

/** The JSON object a POST carries; otherwise sends 400 invalid_input and returns undefined. */
export function objectBody(
  request: FastifyRequest,
  reply: FastifyReply,
  { points }: RouteOptions,
): Record<string, unknown> | undefined {
  const read = points.of(jsonBody).read(request);
  if (!read.ok && 'answer' in read) {
    reply.code(read.answer.status).send(read.answer.body);
    return undefined;
  }
  if (!read.ok) {
    sendError(reply, points, 400, 'invalid_input', read.message);
    return undefined;
  }
  if (!isPlainObject(read.value)) {
    sendError(reply, points, 400, 'invalid_input', 'the body must be a JSON object');
    return undefined;
  }
  return read.value;
}
