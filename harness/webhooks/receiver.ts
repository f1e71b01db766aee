/**
 * A real HTTPS webhook receiver for the Outbound Calling API v1 (spec, Events › Delivery rules).
 * Tests, conformance suites and k6 scripts point POST /hooks target_urls at it and then read
 * what arrived.
 *
 * Deliveries — POST <registered path>, answered in this order of checks:
 *   unregistered path → 404 · not POST → 405 · body over maxBodyBytes → 413 ·
 *   no secret registered yet, missing / malformed signature header, signature mismatch,
 *   timestamp outside tolerance → 401 · invalid JSON (after a valid signature) → 400 ·
 *   otherwise the path's response plan (default 200; `hang` holds the socket open unanswered).
 *   Refusals carry a JSON body {error, message}. Every request to a non-/_receiver/ path is
 *   recorded as a Delivery, refused ones included. The signature is verified on the raw body
 *   BEFORE any JSON parsing, so `json` and `eventId` are only ever set for authentic bodies.
 *
 * Query API (same server, same port; for k6 scripts, the suite's ReceiverClient and other
 * processes; the "pull API" when the receiver runs as a service next to the target):
 *   GET    /_receiver/health                         → 200 {ok: true} (never needs the token)
 *   GET    /_receiver/deliveries[?path=/hooks/x][&since=<seq>]
 *                                                    → 200 {deliveries: Delivery[]}
 *                                                      (seq order; since = seq strictly greater)
 *   DELETE /_receiver/deliveries                     → 204, forgets deliveries and seen eventIds
 *   GET    /_receiver/paths                          → 200 {paths: [{path, hasSecret, plan}]}
 *   PUT    /_receiver/paths?path=/hooks/x  {secret?, plan?, perEvent?}
 *                                                    → 200 {path, hasSecret, plan, perEvent}; registers the path,
 *                                                      or updates only the fields given (a new plan restarts);
 *                                                      perEvent: each eventId goes through the plan on its own
 *                                                      (other events of the account may reach the same path)
 *   Errors: 400/401/404/405 {error, message}. Secrets are write-only: no route ever returns one
 *   (only `hasSecret`), and nothing here logs.
 *   With `token`, every route but health needs `Authorization: Bearer <token>` (401 otherwise).
 *
 * Each Delivery keeps the request as received: `bodyBase64` (the exact bytes), `rawHeaders`
 * (names and values in arrival order, as Node reads them) beside the convenient `rawBody` (UTF-8)
 * and lower-cased `headers`, so a signature can be verified later, elsewhere, on the raw bytes.
 *
 * Store-only mode (`storeOnly`, the service deployment): the receiver never holds a secret (a
 * PUT carrying one is refused), verifies nothing, and answers every delivery to a registered
 * path by its plan; the suite verifies signatures in its own process, where the secrets stay.
 *
 * Memory: deliveries are kept in a ring buffer of `maxDeliveries` (default 10,000) so a load
 * test can't exhaust memory; older ones are dropped (seq keeps counting, so a gap is visible).
 * With `maxAgeMs`, deliveries and registrations older than that are forgotten too.
 * Registrations are capped at `maxPaths` (default 10,000; the oldest goes first).
 * Duplicate detection remembers the last `maxTrackedEventIds` (default 100,000) eventIds.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer as createPlainServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, verifySignature } from '../../contract/signature.ts';

export type PlanStep = { status: number; times?: number } | { hang: true; times?: number };
export type ResponsePlan = PlanStep[];

export interface Delivery {
  seq: number;
  path: string;
  method: string;
  receivedAt: number;
  headers: Record<string, string>;
  /** Header names and values in arrival order, as received (Node's rawHeaders, flattened pairs). */
  rawHeaders: string[];
  /** The body decoded as UTF-8, for reading; `bodyBase64` holds the exact bytes. */
  rawBody: string;
  bodyBase64: string;
  json: unknown;
  jsonError?: string;
  /** `not_verified`: a store-only receiver (the suite verifies); `not_checked`: refused before. */
  signature: { ok: boolean; reason?: string; detail?: string; timestamp?: number };
  eventId?: string;
  duplicate: boolean;
  answeredStatus: number | 'no-answer';
  /** The `error` code of a refusal, absent when the plan answered. */
  error?: string;
}

export interface ReceiverOptions {
  host?: string;
  port?: number;
  /**
   * Certificate and key to serve; `caCertPem` when they come from
   * our own CA (./tls-cache.ts), reported as the receiver's.
   */
  tls?: { cert: string; key: string; caCertPem?: string };
  toleranceSeconds?: number;
  maxBodyBytes?: number;
  publicUrl?: string;
  maxDeliveries?: number;
  maxTrackedEventIds?: number;
  /** Forget deliveries and registrations older than this (default: never). */
  maxAgeMs?: number;
  maxPaths?: number;
  /** Bearer token every query route but health requires. */
  token?: string;
  /** Never take a secret, never verify: store and answer by plan (the suite verifies). */
  storeOnly?: boolean;
  /** Serve plain HTTP, for a deployment behind a TLS-terminating proxy. */
  plainHttp?: boolean;
  /**
   * Also serve the query API (only it) over plain HTTP on a second, loopback-only port: for local
   * clients such as k6 that would otherwise have to trust the receiver's certificate for
   * 127.0.0.1, which a user-supplied certificate (issued for a public name) never covers.
   */
  loopbackQueryPort?: boolean;
}

export interface Receiver {
  /** The URL a target must be given: publicUrl when set, else localUrl. No trailing slash. */
  url: string;
  localUrl: string;
  /** The plain-HTTP loopback query API (`loopbackQueryPort`), else undefined. */
  queryUrl: string | undefined;
  /** CA that signed the generated (or cached) server certificate; undefined with user-supplied tls. */
  caCertPem: string | undefined;
  /** `perEvent`: each eventId takes the plan from its first step (default: one plan for the path's arrivals). */
  register(path: string, setup: { secret?: string; plan?: ResponsePlan; perEvent?: boolean }): void;
  setPlan(path: string, plan: ResponsePlan): void;
  deliveries(path?: string): Delivery[];
  clear(): void;
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
export const DEFAULT_MAX_DELIVERIES = 10_000;
export const DEFAULT_MAX_TRACKED_EVENT_IDS = 100_000;
export const DEFAULT_MAX_PATHS = 10_000;
const CONTROL_PREFIX = '/_receiver/';
const DEFAULT_PLAN: ResponsePlan = [{ status: 200 }];

// ── pure helpers ──

type Check<T> = { ok: true; value: T } | { ok: false; message: string };

export function validatePath(path: unknown): Check<string> {
  if (typeof path !== 'string' || !path.startsWith('/'))
    return { ok: false, message: 'path must be a string starting with /' };
  if (path.length > 512) return { ok: false, message: 'path must be at most 512 characters' };
  if (/[?#\s]/.test(path)) return { ok: false, message: 'path must not contain ?, # or whitespace' };
  if (path === '/_receiver' || path.startsWith(CONTROL_PREFIX))
    return { ok: false, message: 'paths under /_receiver/ are reserved for the query API' };
  return { ok: true, value: path };
}

function isPositiveInt(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1;
}

export function validatePlan(plan: unknown): Check<ResponsePlan> {
  if (!Array.isArray(plan) || plan.length === 0 || plan.length > 1000) {
    return { ok: false, message: 'plan must be a non-empty array of at most 1000 steps' };
  }
  const steps: ResponsePlan = [];
  for (const [i, step] of plan.entries()) {
    if (typeof step !== 'object' || step === null) return { ok: false, message: `plan step ${i} must be an object` };
    const s = step as Record<string, unknown>;
    if (s.times !== undefined && !isPositiveInt(s.times))
      return { ok: false, message: `plan step ${i}: times must be an integer >= 1` };
    const times = s.times as number | undefined;
    if (s.hang === true && s.status === undefined) {
      steps.push(times === undefined ? { hang: true } : { hang: true, times });
    } else if (
      typeof s.status === 'number' &&
      Number.isInteger(s.status) &&
      s.status >= 200 &&
      s.status <= 599 &&
      s.hang === undefined
    ) {
      steps.push(times === undefined ? { status: s.status } : { status: s.status, times });
    } else {
      return { ok: false, message: `plan step ${i} must be {status: 200..599, times?} or {hang: true, times?}` };
    }
  }
  return { ok: true, value: steps };
}

interface PlanCursor {
  plan: ResponsePlan;
  index: number;
  usedInStep: number;
}

/** Consumes one step: steps in order, each `times` (default 1), the last one forever. */
export function takeStep(cursor: PlanCursor): PlanStep {
  const step = cursor.plan[cursor.index] as PlanStep;
  cursor.usedInStep++;
  if (cursor.index < cursor.plan.length - 1 && cursor.usedInStep >= (step.times ?? 1)) {
    cursor.index++;
    cursor.usedInStep = 0;
  }
  return step;
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in headers) {
    const v = headers[key];
    if (v !== undefined) out[key] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function extractEventId(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const id = (json as Record<string, unknown>).eventId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function signatureError(reason: string): string {
  switch (reason) {
    case 'missing_header':
      return `Missing ${SIGNATURE_HEADER} header.`;
    case 'malformed_header':
      return `Malformed ${SIGNATURE_HEADER} header.`;
    case 'timestamp_outside_tolerance':
      return 'The signed timestamp is outside the accepted tolerance (possible replay or clock skew).';
    case 'no_secret_registered':
      return 'No signing secret is registered for this path yet, so the delivery cannot be verified.';
    default:
      return "The signature does not match the raw body and this path's secret.";
  }
}

/** Fixed-capacity log: O(1) append, oldest entries overwritten. */
class RingLog<T> {
  readonly capacity: number;
  private items: Array<T | undefined>;
  private head = 0;
  private size = 0;
  constructor(capacity: number) {
    this.capacity = capacity;
    this.items = new Array<T | undefined>(capacity);
  }
  push(item: T): void {
    this.items[(this.head + this.size) % this.capacity] = item;
    if (this.size < this.capacity) this.size++;
    else this.head = (this.head + 1) % this.capacity;
  }
  /** Drops entries from the oldest end while `stale` holds (entries are in arrival order). */
  dropWhile(stale: (item: T) => boolean): void {
    while (this.size > 0 && stale(this.items[this.head] as T)) {
      this.items[this.head] = undefined;
      this.head = (this.head + 1) % this.capacity;
      this.size--;
    }
  }
  toArray(filter?: (item: T) => boolean): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.size; i++) {
      const item = this.items[(this.head + i) % this.capacity] as T;
      if (!filter || filter(item)) out.push(item);
    }
    return out;
  }
  clear(): void {
    this.items = new Array<T | undefined>(this.capacity);
    this.head = 0;
    this.size = 0;
  }
}

/** Insertion-ordered set that forgets its oldest member past capacity. */
class BoundedSet {
  private readonly capacity: number;
  private readonly set = new Set<string>();
  constructor(capacity: number) {
    this.capacity = capacity;
  }
  /** Adds the key; returns true when it was already there. */
  seen(key: string): boolean {
    if (this.set.has(key)) return true;
    this.set.add(key);
    if (this.set.size > this.capacity) this.set.delete(this.set.values().next().value as string);
    return false;
  }
  clear(): void {
    this.set.clear();
  }
}

// ── certificates ──

/** A throwaway CA and a server certificate it signs, valid for localhost, 127.0.0.1 and ::1. */
export async function generateTlsMaterial(): Promise<{ caCertPem: string; cert: string; key: string }> {
  // Imported here, not at the top: selfsigned and its ASN.1 stack take longer to load than the
  // rest of the receiver, and a run that reuses cached material (./tls-cache.ts) never needs them.
  const { generate } = await import('selfsigned');
  // Back-date a little so a sender whose clock is slightly behind still accepts the cert.
  const notBeforeDate = new Date(Date.now() - 60 * 60 * 1000);
  const notAfterDate = new Date(Date.now() + 7 * 24 * 60 * 60 * 1000);
  const ca = await generate([{ name: 'commonName', value: 'outbound-calling-conformance webhook receiver test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { caCertPem: ca.cert, cert: server.cert, key: server.private };
}

// ── the server ──

interface Registration {
  secret: string | undefined;
  cursor: PlanCursor;
  /** The plan per eventId (perEvent), oldest first; bounded by MAX_EVENT_CURSORS. */
  byEvent: Map<string, PlanCursor> | undefined;
  registeredAt: number;
}

/** Events a perEvent registration keeps a plan position for; the oldest is forgotten first. */
const MAX_EVENT_CURSORS = 1_000;

/** The plan position an arrival takes its answer from: its event's own under perEvent, else the path's. */
function cursorFor(reg: Registration, eventId: string | undefined): PlanCursor {
  if (reg.byEvent === undefined || eventId === undefined) return reg.cursor;
  let cursor = reg.byEvent.get(eventId);
  if (cursor === undefined) {
    cursor = { plan: reg.cursor.plan, index: 0, usedInStep: 0 };
    reg.byEvent.set(eventId, cursor);
    if (reg.byEvent.size > MAX_EVENT_CURSORS) reg.byEvent.delete(reg.byEvent.keys().next().value as string);
  }
  return cursor;
}

/** A delivery as the handler knows it: the body as bytes; the log keeps its wire form. */
type Stored = Omit<Delivery, 'rawBody' | 'bodyBase64'> & { body: Buffer };

function toDelivery(stored: Stored): Delivery {
  const { body, ...rest } = stored;
  return { ...rest, rawBody: body.toString('utf8'), bodyBase64: body.toString('base64') };
}

/** Constant-time check of `Authorization: Bearer <token>`. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  if (match === null) return false;
  const given = Buffer.from(match[1] as string, 'utf8');
  const expected = Buffer.from(token, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function sendJson(res: ServerResponse, status: number, body: unknown, extraHeaders?: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...extraHeaders,
  });
  res.end(text);
}

const ACK_BODY = '{"received":true}';

function sendAck(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': ACK_BODY.length });
  res.end(ACK_BODY);
}

function splitUrl(url: string | undefined): { pathname: string; query: URLSearchParams } {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  if (q === -1) return { pathname: raw, query: new URLSearchParams() };
  return { pathname: raw.slice(0, q), query: new URLSearchParams(raw.slice(q + 1)) };
}

/** Reads the body up to `limit` bytes; resolves `tooLarge` as soon as the limit is crossed. */
function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ tooLarge: false; body: Buffer } | { tooLarge: true }> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ tooLarge: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      total += chunk.length;
      if (total > limit) {
        done = true;
        chunks.length = 0;
        resolve({ tooLarge: true });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve({ tooLarge: false, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total) });
    });
    // A client that aborts mid-body: nothing to answer, nothing to record.
    req.on('error', () => {
      if (!done) {
        done = true;
        resolve({ tooLarge: false, body: Buffer.alloc(0) });
      }
    });
  });
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function normalisePublicUrl(publicUrl: string): string {
  let parsed: URL;
  try {
    parsed = new URL(publicUrl);
  } catch {
    throw new TypeError(`publicUrl "${publicUrl}" is not a valid URL; give an absolute https:// URL`);
  }
  if (parsed.protocol !== 'https:')
    throw new TypeError(`publicUrl "${publicUrl}" must use https (the API only delivers to https targets)`);
  return publicUrl.replace(/\/+$/, '');
}

export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const tolerance = options.toleranceSeconds;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxPaths = options.maxPaths ?? DEFAULT_MAX_PATHS;
  const maxAgeMs = options.maxAgeMs;
  const storeOnly = options.storeOnly === true;
  const token = options.token;
  const publicUrl =
    options.publicUrl === undefined || options.publicUrl === '' ? undefined : normalisePublicUrl(options.publicUrl);
  if (!isPositiveInt(maxBodyBytes)) throw new RangeError('maxBodyBytes must be an integer >= 1');
  if (!isPositiveInt(maxPaths)) throw new RangeError('maxPaths must be an integer >= 1');
  if (maxAgeMs !== undefined && !isPositiveInt(maxAgeMs)) throw new RangeError('maxAgeMs must be an integer >= 1');
  if (token !== undefined && (token === '' || /\s/.test(token)))
    throw new TypeError('token must be a non-empty string without whitespace');
  if (tolerance !== undefined && !(Number.isFinite(tolerance) && tolerance >= 0))
    throw new RangeError('toleranceSeconds must be >= 0');
  if (options.plainHttp === true && options.tls !== undefined)
    throw new TypeError('plainHttp and tls exclude each other');

  const generated = options.tls || options.plainHttp === true ? undefined : await generateTlsMaterial();
  const tlsMaterial = options.tls ?? generated;
  const caCertPem = generated?.caCertPem ?? options.tls?.caCertPem;

  const registrations = new Map<string, Registration>();
  const log = new RingLog<Delivery>(options.maxDeliveries ?? DEFAULT_MAX_DELIVERIES);
  const seenEvents = new BoundedSet(options.maxTrackedEventIds ?? DEFAULT_MAX_TRACKED_EVENT_IDS);
  const held = new Set<ServerResponse>();
  let seq = 0;

  /** Age-based expiry, applied lazily on every write and read: nothing runs in the background. */
  function expire(): void {
    if (maxAgeMs === undefined) return;
    const cutoff = Date.now() - maxAgeMs;
    log.dropWhile((d) => d.receivedAt < cutoff);
    for (const [path, r] of registrations) {
      if (r.registeredAt >= cutoff) break; // Map order is (re)registration order
      registrations.delete(path);
    }
  }

  function register(path: string, setup: { secret?: string; plan?: ResponsePlan; perEvent?: boolean }): void {
    const p = validatePath(path);
    if (!p.ok) throw new TypeError(p.message);
    if (setup.secret !== undefined && (typeof setup.secret !== 'string' || setup.secret === '')) {
      throw new TypeError('secret must be a non-empty string');
    }
    if (setup.secret !== undefined && storeOnly)
      throw new TypeError('this receiver is store-only: it never takes a secret (the suite verifies signatures)');
    const plan = setup.plan === undefined ? undefined : validatePlan(setup.plan);
    if (plan && !plan.ok) throw new TypeError(plan.message);
    expire();
    const existing = registrations.get(path);
    const secret = setup.secret ?? existing?.secret;
    const cursor = plan
      ? { plan: plan.value, index: 0, usedInStep: 0 }
      : (existing?.cursor ?? { plan: DEFAULT_PLAN, index: 0, usedInStep: 0 });
    // A new plan is for the path unless it says perEvent; without a plan, perEvent keeps its setting.
    const perEvent = plan ? setup.perEvent === true : (setup.perEvent ?? existing?.byEvent !== undefined);
    const byEvent = !perEvent ? undefined : plan || existing?.byEvent === undefined ? new Map() : existing.byEvent;
    registrations.delete(path); // re-insert: the Map stays in registration order for expiry
    registrations.set(path, { secret, cursor, byEvent, registeredAt: Date.now() });
    if (registrations.size > maxPaths) registrations.delete(registrations.keys().next().value as string);
  }

  function setPlan(path: string, plan: ResponsePlan): void {
    if (!registrations.has(path)) throw new TypeError(`path ${path} is not registered`);
    register(path, { plan });
  }

  function describe(path: string): { path: string; hasSecret: boolean; plan: ResponsePlan; perEvent: boolean } {
    const r = registrations.get(path) as Registration;
    return { path, hasSecret: r.secret !== undefined, plan: r.cursor.plan, perEvent: r.byEvent !== undefined };
  }

  function record(d: Omit<Stored, 'seq'>): void {
    expire();
    // Both readings are made once, here: readers (the query API polled every few ms, k6) only filter.
    log.push(toDelivery({ seq: ++seq, ...d }));
  }

  function deliveries(path?: string, since = 0): Delivery[] {
    expire();
    return log.toArray((d) => d.seq > since && (path === undefined || d.path === path));
  }

  async function handleDelivery(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const receivedAt = Date.now();
    const base = {
      path: pathname,
      method: req.method ?? '',
      receivedAt,
      headers: flattenHeaders(req.headers),
      rawHeaders: req.rawHeaders,
      json: undefined,
      duplicate: false,
    };
    const refuse = (
      status: number,
      error: string,
      message: string,
      body: Buffer = Buffer.alloc(0),
      signature: Delivery['signature'] = { ok: false, reason: 'not_checked' },
      extra?: Record<string, string>,
    ): void => {
      record({ ...base, body, signature, answeredStatus: status, error });
      sendJson(res, status, { error, message }, extra);
    };

    expire();
    const reg = registrations.get(pathname);
    if (!reg) {
      req.resume();
      return refuse(404, 'not_found', `No webhook path ${pathname} is registered on this receiver.`);
    }
    if (req.method !== 'POST') {
      req.resume();
      return refuse(405, 'method_not_allowed', 'Deliveries must use POST.', undefined, undefined, { allow: 'POST' });
    }
    const read = await readBody(req, maxBodyBytes);
    if (read.tooLarge) {
      // Close the connection: the rest of an oversized body is not worth reading.
      return refuse(413, 'payload_too_large', `The body exceeds ${maxBodyBytes} bytes.`, undefined, undefined, {
        connection: 'close',
      });
    }
    const body = read.body;
    const rawBody = body.toString('utf8');
    let signature: Delivery['signature'];
    if (storeOnly) {
      signature = {
        ok: false,
        reason: 'not_verified',
        detail: 'This receiver stores deliveries unverified; the suite verifies the signature.',
      };
    } else {
      if (reg.secret === undefined) {
        return refuse(401, 'no_secret_registered', signatureError('no_secret_registered'), body, {
          ok: false,
          reason: 'no_secret_registered',
        });
      }
      const header = req.headers[SIGNATURE_HEADER];
      const verdict = verifySignature({
        header: Array.isArray(header) ? header.join(',') : header,
        rawBody: body,
        secret: reg.secret,
        toleranceSeconds: tolerance,
      });
      if (!verdict.ok) {
        return refuse(401, verdict.reason, verdict.detail, body, {
          ok: false,
          reason: verdict.reason,
          detail: verdict.detail,
        });
      }
      signature = { ok: true, timestamp: verdict.timestamp };
    }
    let json: unknown;
    let jsonError: { jsonError: string } | undefined;
    try {
      json = JSON.parse(rawBody);
    } catch (e) {
      jsonError = { jsonError: (e as Error).message };
      if (!storeOnly) {
        record({ ...base, body, ...jsonError, signature, answeredStatus: 400, error: 'invalid_json' });
        return sendJson(res, 400, { error: 'invalid_json', message: 'The body is not valid JSON.' });
      }
      // Store-only: not ours to judge; the suite reads jsonError, the plan answers.
    }
    const eventId = extractEventId(json);
    const duplicate = eventId !== undefined && seenEvents.seen(`${pathname}\n${eventId}`);
    const step = takeStep(cursorFor(reg, eventId));
    const accepted = { ...base, body, json, ...jsonError, signature, eventId, duplicate };
    if ('hang' in step) {
      record({ ...accepted, answeredStatus: 'no-answer' });
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    record({ ...accepted, answeredStatus: step.status });
    sendAck(res, step.status);
  }

  async function handleControl(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    query: URLSearchParams,
  ): Promise<void> {
    const route = pathname.slice(CONTROL_PREFIX.length);
    const method = req.method ?? '';
    if (route === 'health' && method === 'GET') return sendJson(res, 200, { ok: true });
    if (token !== undefined && !bearerMatches(req.headers.authorization, token)) {
      req.resume();
      return sendJson(
        res,
        401,
        { error: 'unauthorized', message: 'The query API needs Authorization: Bearer <RECEIVER_TOKEN>.' },
        { 'www-authenticate': 'Bearer realm="receiver"' },
      );
    }
    if (route === 'deliveries' && method === 'GET') {
      const path = query.get('path') ?? undefined;
      const sinceRaw = query.get('since');
      const since = sinceRaw === null ? 0 : Number(sinceRaw);
      if (!Number.isSafeInteger(since) || since < 0)
        return sendJson(res, 400, { error: 'invalid_input', message: 'since must be a non-negative integer.' });
      return sendJson(res, 200, { deliveries: deliveries(path, since) });
    }
    if (route === 'deliveries' && method === 'DELETE') {
      clear();
      res.writeHead(204).end();
      return;
    }
    if (route === 'paths' && method === 'GET') {
      expire();
      return sendJson(res, 200, { paths: [...registrations.keys()].map(describe) });
    }
    if (route === 'paths' && method === 'PUT') {
      const path = validatePath(query.get('path'));
      if (!path.ok) return sendJson(res, 400, { error: 'invalid_input', message: `Query parameter ${path.message}.` });
      const read = await readBody(req, maxBodyBytes);
      if (read.tooLarge)
        return sendJson(res, 413, { error: 'payload_too_large', message: 'Body too large.' }, { connection: 'close' });
      let body: unknown;
      try {
        body = read.body.length === 0 ? {} : JSON.parse(read.body.toString('utf8'));
      } catch {
        return sendJson(res, 400, { error: 'invalid_input', message: 'Body is not valid JSON.' });
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return sendJson(res, 400, { error: 'invalid_input', message: 'Body must be a JSON object {secret?, plan?}.' });
      }
      const { secret, plan, perEvent } = body as { secret?: unknown; plan?: unknown; perEvent?: unknown };
      if (secret !== undefined && storeOnly) {
        return sendJson(res, 400, {
          error: 'invalid_input',
          message: 'This receiver is store-only and never takes a secret: the suite verifies signatures itself.',
        });
      }
      if (secret !== undefined && (typeof secret !== 'string' || secret === '')) {
        return sendJson(res, 400, { error: 'invalid_input', message: 'secret must be a non-empty string.' });
      }
      const checkedPlan = plan === undefined ? undefined : validatePlan(plan);
      if (checkedPlan && !checkedPlan.ok)
        return sendJson(res, 400, { error: 'invalid_input', message: `${checkedPlan.message}.` });
      if (perEvent !== undefined && typeof perEvent !== 'boolean')
        return sendJson(res, 400, { error: 'invalid_input', message: 'perEvent must be true or false.' });
      register(path.value, {
        secret,
        plan: checkedPlan?.value,
        ...(perEvent === undefined ? {} : { perEvent }),
      });
      return sendJson(res, 200, describe(path.value));
    }
    const known = route === 'health' || route === 'deliveries' || route === 'paths';
    if (known)
      return sendJson(res, 405, { error: 'method_not_allowed', message: `${method} is not supported on ${pathname}.` });
    return sendJson(res, 404, { error: 'not_found', message: `No query API route ${pathname}.` });
  }

  function clear(): void {
    log.clear();
    seenEvents.clear();
  }

  // Last line of defence: a bug must cost one request, never the process, and never leak a stack.
  const guard = (res: ServerResponse, work: Promise<void>): void => {
    work.catch(() => {
      if (!res.headersSent)
        sendJson(res, 500, { error: 'receiver_error', message: 'The receiver failed to handle this request.' });
      else res.destroy();
    });
  };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const { pathname, query } = splitUrl(req.url);
    guard(
      res,
      pathname.startsWith(CONTROL_PREFIX)
        ? handleControl(req, res, pathname, query)
        : handleDelivery(req, res, pathname),
    );
  };
  const server =
    tlsMaterial === undefined
      ? createPlainServer(handler)
      : createServer({ cert: tlsMaterial.cert, key: tlsMaterial.key }, handler);
  // A sender that doesn't trust our certificate is its problem to report, not ours to crash on.
  server.on('tlsClientError', () => {});

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const localUrl = `${tlsMaterial === undefined ? 'http' : 'https'}://${formatHost(host)}:${port}`;

  let queryServer: ReturnType<typeof createPlainServer> | undefined;
  if (options.loopbackQueryPort === true) {
    const only = createPlainServer((req, res) => {
      const { pathname, query } = splitUrl(req.url);
      if (!pathname.startsWith(CONTROL_PREFIX)) {
        req.resume();
        return sendJson(res, 404, {
          error: 'not_found',
          message: "This port serves only the query API (/_receiver/); deliveries go to the receiver's main port.",
        });
      }
      guard(res, handleControl(req, res, pathname, query));
    });
    await new Promise<void>((resolve, reject) => {
      only.once('error', reject);
      only.listen(0, '127.0.0.1', () => resolve());
    });
    queryServer = only;
  }
  const queryUrl =
    queryServer === undefined ? undefined : `http://127.0.0.1:${(queryServer.address() as AddressInfo).port}`;

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    closing ??= new Promise<void>((resolve) => {
      if (queryServer !== undefined) {
        queryServer.close();
        queryServer.closeAllConnections();
      }
      server.close(() => resolve());
      // Held (`hang`) responses and idle keep-alive sockets would keep close() waiting forever.
      for (const res of held) res.socket?.destroy();
      held.clear();
      server.closeAllConnections();
    });
    return closing;
  }

  return {
    url: publicUrl ?? localUrl,
    localUrl,
    queryUrl,
    caCertPem,
    register,
    setPlan,
    deliveries: (path?: string) => deliveries(path),
    clear,
    close,
  };
}
