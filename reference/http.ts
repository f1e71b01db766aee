/**
 * Small HTTP helpers shared by the reference server's routes: the spec's error shape, JSON
 * body reading (the server registers ONE catch-all content-type parser that hands every body
 * over as a string, so each route decides itself, after authentication, what a bad body is).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { site, type Points } from './points.ts';

/** An error answer of the API: its status, the spec's error code and a message, and any documented field. */
export interface ErrorAnswer {
  readonly status: number;
  readonly error: string;
  readonly message: string;
  readonly extra?: Record<string, unknown>;
}

/** What goes on the wire for an error: the status, a content type when it is not JSON, the body. */
export interface ErrorPage {
  readonly status: number;
  readonly type?: string;
  readonly body: unknown;
}

export const errors = site('errors', {
  /** The spec's error body `{error, message}` in JSON, with the fields an operation documents (the 502's detail). */
  page: ({ status, error, message, extra }: ErrorAnswer): ErrorPage => ({
    status,
    body: extra === undefined ? { error, message } : { error, message, ...extra },
  }),
});

/** Sends an error answer of the API. */
export function refuse(reply: FastifyReply, points: Points, answer: ErrorAnswer): FastifyReply {
  const page = points.of(errors).page(answer);
  if (page.type !== undefined) reply.type(page.type);
  return reply.code(page.status).send(page.body);
}

/** Sends the spec's error body `{error, message}`. */
export function sendError(
  reply: FastifyReply,
  points: Points,
  status: number,
  error: string,
  message: string,
): FastifyReply {
  return refuse(reply, points, { status, error, message });
}

/** application/json or any +json media type, parameters ignored. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export type BodyResult = { ok: true; value: unknown } | { ok: false; message: string };

/** The request body as parsed JSON, or why it is not a JSON body. */
export function readJsonBody(request: FastifyRequest): BodyResult {
  if (!isJsonContentType(request.headers['content-type'])) {
    return { ok: false, message: 'the body must be JSON sent with Content-Type: application/json' };
  }
  const raw = typeof request.body === 'string' ? request.body : '';
  if (raw.trim() === '') return { ok: false, message: 'the body is empty; a JSON object is expected' };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false, message: 'the body is not valid JSON' };
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON object a serialised payload holds, or undefined (not a string, not JSON, not an object). */
export function parsedObject(payload: unknown): Record<string, unknown> | undefined {
  if (typeof payload !== 'string') return undefined;
  try {
    const value = JSON.parse(payload) as unknown;
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A query parameter given once, as a string; `undefined` when absent; `null` when repeated. */
export function singleQuery(query: unknown, name: string): string | undefined | null {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}
