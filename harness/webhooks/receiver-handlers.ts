/**
 * The webhook receiver's two request handlers, deliveries and the query API, over the receiver's
 * state (./receiver-state.ts) and its resolved settings; ./receiver.ts listens and routes to them.
 *
 * Deliveries — POST <registered path>, answered in this order of checks:
 *   unregistered path → 404 · not POST → 405 · body over maxBodyBytes → 413 ·
 *   no secret registered yet → kept, answered by the plan, judged once the secret comes (below) ·
 *   missing / malformed signature header, signature mismatch, timestamp outside tolerance → 401 ·
 *   invalid JSON (after a valid signature) → 400 ·
 *   otherwise the path's response plan (default 200; `hang` holds the socket open unanswered).
 *   Refusals carry a JSON body {error, message}. Every request to a non-/_receiver/ path is
 *   recorded as a Delivery, refused ones included. The signature is verified on the raw body
 *   BEFORE any JSON parsing, so `json` and `eventId` are only ever set for authentic bodies.
 *
 * A reserved path (registered without a secret: the suite registers a path with its plan before
 * its URL goes out in POST /hooks, and gives the secret once POST /hooks has answered, so a target
 * that delivers at once never meets an unknown path): a delivery before the secret is recorded
 * whole (`beforeSecret`, signature `secret_pending`) and answered by the plan, its step chosen by
 * the eventId the body gives, unverified. Not 401: the target may well have signed it right, and
 * a 4xx is final (the event would be lost); not 5xx: a retry the plan did not ask for would skew
 * the attempts the retry rules count. When the secret comes (`registerPath`), each such delivery
 * is judged as it would have been on arrival: its signature against the time it arrived, then its
 * JSON, eventId and duplicate mark; its answer stays what the target was given.
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
 * Store-only mode (`storeOnly`, the service deployment): the receiver never holds a secret (a
 * PUT carrying one is refused), verifies nothing, and answers every delivery to a registered
 * path by its plan; the suite verifies signatures in its own process, where the secrets stay.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SIGNATURE_HEADER, verifySignature } from '../../contract/signature.ts';
import { CONTROL_PREFIX, takeStep, validatePath, validatePlan } from './receiver-plan.ts';
import {
  cursorFor,
  type Delivery,
  type PathSetup,
  type ReceiverState,
  type Registration,
  type Stored,
} from './receiver-state.ts';

/** What the handlers need of the receiver's options, resolved and checked (./receiver.ts). */
export interface HandlerSettings {
  /** Never take a secret, never verify: store and answer by plan. */
  readonly storeOnly: boolean;
  /** Bearer token every query route but health requires; undefined: none. */
  readonly token: string | undefined;
  readonly maxBodyBytes: number;
  /** The signature's timestamp tolerance; undefined: verifySignature's own. */
  readonly toleranceSeconds: number | undefined;
}

/** Everything a request is handled with: the state, the settings, and the responses held open. */
export interface Handling {
  readonly state: ReceiverState;
  readonly settings: HandlerSettings;
  /** Responses a `hang` step holds unanswered; closing the receiver destroys their sockets. */
  readonly held: Set<ServerResponse>;
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

type SignatureCheck =
  | { ok: true; signature: Delivery['signature'] }
  | { ok: false; error: string; message: string; signature: Delivery['signature'] };

/** The signature of a delivery, verified on the raw bytes with `secret` at `nowSeconds` (now by default). */
function checkSignature(
  settings: HandlerSettings,
  secret: string,
  header: string | string[] | undefined,
  body: Buffer,
  nowSeconds?: number,
): SignatureCheck {
  const verdict = verifySignature({
    header: Array.isArray(header) ? header.join(',') : header,
    rawBody: body,
    secret,
    toleranceSeconds: settings.toleranceSeconds,
    ...(nowSeconds === undefined ? {} : { nowSeconds }),
  });
  if (!verdict.ok) {
    const { reason, detail } = verdict;
    return { ok: false, error: reason, message: detail, signature: { ok: false, reason, detail } };
  }
  return { ok: true, signature: { ok: true, timestamp: verdict.timestamp } };
}

const NOT_VERIFIED: Delivery['signature'] = {
  ok: false,
  reason: 'not_verified',
  detail: 'This receiver stores deliveries unverified; the suite verifies the signature.',
};

const SECRET_PENDING: Delivery['signature'] = {
  ok: false,
  reason: 'secret_pending',
  detail: "It arrived before its path's secret was registered; it is judged once the secret is.",
};

/** The body parsed, or why it is not JSON. */
function parseJson(body: Buffer): { json: unknown } | { jsonError: string } {
  try {
    return { json: JSON.parse(body.toString('utf8')) };
  } catch (e) {
    return { jsonError: (e as Error).message };
  }
}

/**
 * A delivery kept before its path's secret, judged now that the secret is known, as on arrival:
 * the signature against the time it arrived, then its JSON; its answer stays the plan's.
 */
function judgedBeforeSecret(handling: Handling, d: Delivery, secret: string): Delivery {
  const { signature: _pending, ...kept } = d;
  const body = Buffer.from(d.bodyBase64, 'base64');
  const checked = checkSignature(handling.settings, secret, d.headers[SIGNATURE_HEADER], body, d.receivedAt / 1000);
  if (!checked.ok) return { ...kept, signature: checked.signature };
  const parsed = parseJson(body);
  if ('jsonError' in parsed) return { ...kept, signature: checked.signature, jsonError: parsed.jsonError };
  const eventId = extractEventId(parsed.json);
  const duplicate = eventId !== undefined && handling.state.seen(d.path, eventId);
  return { ...kept, signature: checked.signature, json: parsed.json, eventId, duplicate };
}

/**
 * Registers `path` or updates the fields `setup` gives (the one way in, for the query API and the
 * in-process Receiver); with a secret, settles what arrived before it. Throws TypeError on invalid input.
 */
export function registerPath(handling: Handling, path: string, setup: PathSetup): void {
  handling.state.register(path, setup);
  const { secret } = setup;
  if (secret !== undefined) handling.state.settleBeforeSecret(path, (d) => judgedBeforeSecret(handling, d, secret));
}

/** Answers by the plan (its step for `eventId` under perEvent) and records the delivery with that answer. */
function answerByPlan(
  { state, held }: Handling,
  res: ServerResponse,
  reg: Registration,
  delivery: Omit<Stored, 'seq' | 'answeredStatus'>,
  eventId: string | undefined,
): void {
  const step = takeStep(cursorFor(reg, eventId));
  if ('hang' in step) {
    state.record({ ...delivery, answeredStatus: 'no-answer' });
    held.add(res);
    res.on('close', () => held.delete(res));
    return;
  }
  state.record({ ...delivery, answeredStatus: step.status });
  sendAck(res, step.status);
}

/** What a delivery's record holds before its body is judged. */
type Arrival = Pick<Stored, 'path' | 'method' | 'receivedAt' | 'headers' | 'rawHeaders' | 'json' | 'duplicate'>;

/** Records a refusal and answers it with {error, message}. */
function refuse(
  { state }: Handling,
  res: ServerResponse,
  arrival: Arrival,
  refusal: { status: number; error: string; message: string },
  kept: { body?: Buffer; signature?: Delivery['signature']; headers?: Record<string, string> } = {},
): void {
  const { status, error, message } = refusal;
  const body = kept.body ?? Buffer.alloc(0);
  const signature = kept.signature ?? { ok: false, reason: 'not_checked' };
  state.record({ ...arrival, body, signature, answeredStatus: status, error });
  sendJson(res, status, { error, message }, kept.headers);
}

/** A delivery to `pathname`: checked in the order the header gives, recorded, answered. */
async function handleDelivery(
  handling: Handling,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  const { state, settings } = handling;
  const arrival: Arrival = {
    path: pathname,
    method: req.method ?? '',
    receivedAt: Date.now(),
    headers: flattenHeaders(req.headers),
    rawHeaders: req.rawHeaders,
    json: undefined,
    duplicate: false,
  };
  const message = `No webhook path ${pathname} is registered on this receiver.`;
  const unknownPath = { status: 404, error: 'not_found', message };
  state.expire();
  if (!state.registrations.has(pathname)) {
    req.resume();
    return refuse(handling, res, arrival, unknownPath);
  }
  if (req.method !== 'POST') {
    req.resume();
    const notPost = { status: 405, error: 'method_not_allowed', message: 'Deliveries must use POST.' };
    return refuse(handling, res, arrival, notPost, { headers: { allow: 'POST' } });
  }
  const read = await readBody(req, settings.maxBodyBytes);
  if (read.tooLarge) {
    // Close the connection: the rest of an oversized body is not worth reading.
    const message = `The body exceeds ${settings.maxBodyBytes} bytes.`;
    const tooLarge = { status: 413, error: 'payload_too_large', message };
    return refuse(handling, res, arrival, tooLarge, { headers: { connection: 'close' } });
  }
  // Looked up again after the body: its secret may have come meanwhile (or, past maxPaths, it went).
  const reg = state.registrations.get(pathname);
  if (reg === undefined) return refuse(handling, res, arrival, unknownPath, { body: read.body });
  judgeBody(handling, req, res, reg, arrival, read.body);
}

/** A delivery's body on a registered path: stored (store-only), kept (no secret yet) or verified, then answered. */
function judgeBody(
  handling: Handling,
  req: IncomingMessage,
  res: ServerResponse,
  reg: Registration,
  arrival: Arrival,
  body: Buffer,
): void {
  const { state, settings } = handling;
  if (settings.storeOnly) {
    // Not ours to judge: the suite verifies and reads jsonError; the plan answers.
    const parsed = parseJson(body);
    const eventId = 'json' in parsed ? extractEventId(parsed.json) : undefined;
    const duplicate = eventId !== undefined && state.seen(arrival.path, eventId);
    const delivery = { ...arrival, body, ...parsed, signature: NOT_VERIFIED, eventId, duplicate };
    answerByPlan(handling, res, reg, delivery, eventId);
    return;
  }
  if (reg.secret === undefined) {
    // Kept unjudged (judgedBeforeSecret, later); the plan's step follows the eventId as sent.
    const parsed = parseJson(body);
    const eventIdAsSent = 'json' in parsed ? extractEventId(parsed.json) : undefined;
    const delivery = { ...arrival, body, signature: SECRET_PENDING, beforeSecret: true as const };
    answerByPlan(handling, res, reg, delivery, eventIdAsSent);
    return;
  }
  const checked = checkSignature(settings, reg.secret, req.headers[SIGNATURE_HEADER], body);
  if (!checked.ok) {
    const refusal = { status: 401, error: checked.error, message: checked.message };
    refuse(handling, res, arrival, refusal, { body, signature: checked.signature });
    return;
  }
  const { signature } = checked;
  const parsed = parseJson(body);
  if ('jsonError' in parsed) {
    state.record({ ...arrival, body, ...parsed, signature, answeredStatus: 400, error: 'invalid_json' });
    sendJson(res, 400, { error: 'invalid_json', message: 'The body is not valid JSON.' });
    return;
  }
  const eventId = extractEventId(parsed.json);
  const duplicate = eventId !== undefined && state.seen(arrival.path, eventId);
  answerByPlan(handling, res, reg, { ...arrival, body, json: parsed.json, signature, eventId, duplicate }, eventId);
}

/** PUT /_receiver/paths?path=…: registers the path, or updates the fields the body gives. */
async function putPath(
  { state, settings, held }: Handling,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
): Promise<void> {
  const path = validatePath(query.get('path'));
  if (!path.ok) return sendJson(res, 400, { error: 'invalid_input', message: `Query parameter ${path.message}.` });
  const read = await readBody(req, settings.maxBodyBytes);
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
  if (secret !== undefined && settings.storeOnly) {
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
  registerPath({ state, settings, held }, path.value, {
    secret,
    plan: checkedPlan?.value,
    ...(perEvent === undefined ? {} : { perEvent }),
  });
  return sendJson(res, 200, state.describe(path.value));
}

/** A request to the query API (`pathname` under /_receiver/). */
async function handleControl(
  handling: Handling,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  query: URLSearchParams,
): Promise<void> {
  const { state, settings } = handling;
  const route = pathname.slice(CONTROL_PREFIX.length);
  const method = req.method ?? '';
  if (route === 'health' && method === 'GET') return sendJson(res, 200, { ok: true });
  if (settings.token !== undefined && !bearerMatches(req.headers.authorization, settings.token)) {
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
    return sendJson(res, 200, { deliveries: state.deliveries(path, since) });
  }
  if (route === 'deliveries' && method === 'DELETE') {
    state.clear();
    res.writeHead(204).end();
    return;
  }
  if (route === 'paths' && method === 'GET') {
    state.expire();
    return sendJson(res, 200, { paths: [...state.registrations.keys()].map(state.describe) });
  }
  if (route === 'paths' && method === 'PUT') return putPath(handling, req, res, query);
  const known = route === 'health' || route === 'deliveries' || route === 'paths';
  if (known)
    return sendJson(res, 405, { error: 'method_not_allowed', message: `${method} is not supported on ${pathname}.` });
  return sendJson(res, 404, { error: 'not_found', message: `No query API route ${pathname}.` });
}

// Last line of defence: a bug must cost one request, never the process, and never leak a stack.
function guard(res: ServerResponse, work: Promise<void>): void {
  work.catch(() => {
    if (!res.headersSent)
      sendJson(res, 500, { error: 'receiver_error', message: 'The receiver failed to handle this request.' });
    else res.destroy();
  });
}

/** The receiver's port: the query API under /_receiver/, a delivery anywhere else. */
export function handleRequest(handling: Handling, req: IncomingMessage, res: ServerResponse): void {
  const { pathname, query } = splitUrl(req.url);
  guard(
    res,
    pathname.startsWith(CONTROL_PREFIX)
      ? handleControl(handling, req, res, pathname, query)
      : handleDelivery(handling, req, res, pathname),
  );
}

/** The loopback query port (`loopbackQueryPort`): the query API only, never a delivery. */
export function handleQueryOnly(handling: Handling, req: IncomingMessage, res: ServerResponse): void {
  const { pathname, query } = splitUrl(req.url);
  if (pathname.startsWith(CONTROL_PREFIX)) {
    guard(res, handleControl(handling, req, res, pathname, query));
    return;
  }
  req.resume();
  sendJson(res, 404, {
    error: 'not_found',
    message: "This port serves only the query API (/_receiver/); deliveries go to the receiver's main port.",
  });
}
