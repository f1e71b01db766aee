/**
 * Small HTTP helpers shared by the reference server's routes: the spec's error shape, JSON
 * body reading (the server registers ONE catch-all content-type parser that hands every body
 * over as a string, so each route decides itself, after authentication, what a bad body is).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaultSet } from './faults.ts';

const HTML_404 = '<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>';

/** Sends the spec's error body `{error, message}` (error-html-body: 404s become an HTML page). */
export function sendError(
  reply: FastifyReply,
  faults: FaultSet,
  status: number,
  error: string,
  message: string,
  extra?: Record<string, unknown>,
): FastifyReply {
  if (status === 404 && faults.has('error-html-body')) {
    return reply.code(404).type('text/html; charset=utf-8').send(HTML_404);
  }
  return reply.code(status).send(extra === undefined ? { error, message } : { error, message, ...extra });
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

/** A query parameter given once, as a string; `undefined` when absent; `null` when repeated. */
export function singleQuery(query: unknown, name: string): string | undefined | null {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}
