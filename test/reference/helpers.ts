/** Shared helpers of the reference server tests: HTTP over undici, contract checks, control calls. */
import { request } from 'undici';
import { expect } from 'vitest';
import { createContract, matchPathTemplate } from '../../contract/validator.ts';
import type { ReferenceServer } from '../../reference/server.ts';
import { rawExchange, type RawRequest } from '../../harness/http/raw.ts';
import { wireAnswers, type WireAnswers } from '../../contract/standards/wire-answers.ts';
import { suiteCacheDirectory } from '../../harness/config/settings.ts';

export const contract = createContract({ cacheDirectory: suiteCacheDirectory(process.env) });

export interface Res {
  status: number;
  headers: Record<string, string>;
  rawBody: string;
  json: unknown;
  jsonError?: string;
}

export interface CallOptions {
  token?: string | undefined;
  body?: string | Buffer | undefined;
  contentType?: string | undefined;
  headers?: Record<string, string>;
}

export async function http(method: string, url: string, options: CallOptions = {}): Promise<Res> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  const r = await request(url, {
    method: method as 'GET',
    headers,
    body: options.body,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const rawBody = await r.body.text();
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
  let json: unknown;
  let jsonError: string | undefined;
  if (rawBody.length > 0) {
    try {
      json = JSON.parse(rawBody);
    } catch (e) {
      jsonError = `body is not JSON: ${(e as Error).message}`;
    }
  }
  return { status: r.statusCode, headers: flat, rawBody, json, ...(jsonError !== undefined ? { jsonError } : {}) };
}

/** A /v1 call: `path` is relative to baseUrl ("/me"). */
export function api(server: ReferenceServer, method: string, path: string, options: CallOptions = {}): Promise<Res> {
  return http(method, `${server.baseUrl}${path}`, options);
}

export function postJson(
  server: ReferenceServer,
  path: string,
  token: string | undefined,
  body: unknown,
): Promise<Res> {
  return api(server, 'POST', path, { token, body: JSON.stringify(body), contentType: 'application/json' });
}

/** A call to the reference-only test API (/_reference: faults, reset, raw views). */
export async function control(server: ReferenceServer, method: string, path: string, body?: unknown): Promise<Res> {
  const r = await http(
    method,
    `${server.referenceUrl}${path}`,
    body === undefined ? {} : { body: JSON.stringify(body), contentType: 'application/json' },
  );
  return r;
}

/** Problems of a /v1 response against openapi.json (documented status, content type, body schema). */
export function conformance(method: string, path: string, res: Res): readonly string[] {
  const template = matchPathTemplate(path);
  if (template === undefined) return [`${path} is no path of openapi.json`];
  return contract.checkResponse(method, template, res).problems;
}

/** Asserts status, the error code when given, and conformance to openapi.json. */
export function expectResponse(method: string, path: string, res: Res, status: number, error?: string): void {
  expect(res.status, res.rawBody).toBe(status);
  if (error !== undefined) expect((res.json as { error?: unknown }).error, res.rawBody).toBe(error);
  expect(conformance(method, path, res)).toEqual([]);
}

export async function reset(server: ReferenceServer, faults: string[] = []): Promise<void> {
  const r = await control(server, 'POST', '/reset', { faults });
  expect(r.status).toBe(200);
}

export async function setFaults(server: ReferenceServer, enable: string[]): Promise<void> {
  const r = await control(server, 'PUT', '/faults', { enable });
  expect(r.status, r.rawBody).toBe(200);
}

export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The answers to GET `path` (under baseUrl) with the `all` token, sent on a socket of its own
 * (harness/http/raw.ts) with `options`: the Host lines, the version, the target's form, asked again.
 */
export async function answersOnSocket(
  server: ReferenceServer,
  path: string,
  options: Pick<RawRequest, 'hosts' | 'version' | 'askAgainAfterMs' | 'absoluteForm' | 'headers'> = {},
): Promise<WireAnswers> {
  const headers = { authorization: `Bearer ${server.fixtures.tokens.all}`, ...options.headers };
  const bytes = await rawExchange({ method: 'GET', url: `${server.baseUrl}${path}`, ...options, headers });
  return wireAnswers(bytes, 'GET', true);
}
