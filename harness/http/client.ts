/**
 * The one HTTP client of the suite: undici with a keep-alive pool, a timeout on every request,
 * the throttle, and a record of every exchange.
 *
 * Tests get the raw exchange (they need, say, the hook secret from a response); what a report
 * gets (recordsSince) is only ever the redacted, capped record of one (recordExchange).
 */
import { Agent } from './undici.ts';
import { limits } from '../../contract/openapi.ts';
import { curlCommand } from '../report/curl.ts';
import { createRedactor, type Redactor } from './redact.ts';
import { createThrottle, retryAfterMs, type Throttle } from './throttle.ts';
import { createWarmConnections, type WarmConnections } from './warm.ts';
import { rawExchange, type RawRequest } from './raw.ts';
import { bodyFacts, type BodyFacts, type LintedMessage } from '../../contract/standards/message.ts';
import { createLintTally, lintMessage, type LintTally, type RunningTally } from '../../contract/standards/lint.ts';
import { fieldLinesOf, lintedExchange } from './lint-message.ts';
import { createOneTimeWatch, type OneTimeWatch } from './one-time-watch.ts';
import {
  describeTransport,
  detailOf,
  isSafeMethod,
  mayRetry,
  retryDelayMs,
  type TransportKind,
  transportKindOf,
  withTransportRetries,
} from './transport.ts';

export interface Exchange {
  readonly seq: number;
  readonly method: string;
  readonly url: string;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly requestBody: string | undefined;
  /** undefined when no response arrived (timeout, refused, reset). */
  readonly status: number | undefined;
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly rawBody: string;
  /** The parsed body when it is JSON; undefined otherwise. */
  readonly json: unknown;
  readonly jsonError: string | undefined;
  readonly transportError: string | undefined;
  /**
   * Set when the network broke the exchange (./transport.ts): refused, reset, stalled, a body cut
   * short. Never a verdict on the contract; undefined for a failure of the target's own making.
   */
  readonly transportKind?: TransportKind;
  /** Times the request was sent again after a transport failure before this answer. */
  readonly retries?: number;
  readonly startedAt: string;
  readonly durationMs: number;
}

/**
 * What the log (and so a report) keeps of one exchange: secrets redacted, sizes capped, and
 * `truncated` saying what was cut. JSON-ready: no parsed body (the body text is there).
 */
export interface ExchangeRecord extends Omit<Exchange, 'json'> {
  /** What was cut to stay within exchangeCaps, e.g. "response body cut at 16384 of 91234 bytes". */
  readonly truncated?: string;
  /** A curl command replaying the request, secrets as the variables that hold them (report/curl.ts). */
  readonly curl?: string;
}

export interface ExchangeCaps {
  readonly bodyBytes: number;
  readonly headers: number;
  readonly headerChars: number;
  readonly exchangesPerCheck: number;
}

/** How much of an exchange a report keeps (the one place these limits live). */
export const exchangeCaps: ExchangeCaps = {
  /** Request and response bodies, in UTF-8 bytes. */
  bodyBytes: 16_384,
  /** Headers per direction. */
  headers: 64,
  /** Characters of one header name or value. */
  headerChars: 2_048,
  /** Exchanges kept for a failed check: the last ones, which led to the failure. */
  exchangesPerCheck: 6,
};

export interface ApiRequest {
  /** Any method token: the surface near misses send TRACE and methods no standard defines. */
  readonly method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'HEAD' | 'OPTIONS' | (string & {});
  /** Path below the base URL ("/cdrs"), or an absolute URL (the auth server). */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  /** Sent as `Authorization: Bearer <token>`; leave out for no header. */
  readonly token?: string;
  /** A raw Authorization header value, for the malformed-scheme checks. */
  readonly authorization?: string;
  readonly json?: unknown;
  /** A raw body (sent as is, with `contentType`). */
  readonly body?: string;
  readonly contentType?: string;
  readonly form?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  /** A check about the 429 itself sees it; every other request waits out Retry-After and retries. */
  readonly expectRateLimit?: boolean;
  /**
   * A 503 is not an answer this operation documents: it is a server (or a proxy in front) saying
   * it is unavailable for now (RFC 9110 §15.6.4), so the request waits out Retry-After and is
   * sent again like a 429, instead of being judged.
   */
  readonly retryUnavailable?: boolean;
  /**
   * The caller reads a second answer knowing the first may have arrived (a clean-up's DELETE, for
   * which 204 and 404 both mean gone): sent again after any transport failure, as a safe method is.
   */
  readonly repeatable?: boolean;
}

export interface ClientOptions {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly requestsPerMinute: number | undefined;
  /**
   * The target's rate window: the throttle refills requestsPerMinute per it, 429s are weighed in it. Default 60 000.
   */
  readonly rateWindowMs?: number;
  readonly secrets?: readonly string[];
  readonly maxBodyBytes?: number;
  readonly throttle?: Throttle;
  /** Secret value → the variable holding it, so replay commands name the variable (report/curl.ts). */
  readonly secretVariables?: ReadonlyMap<string, string>;
  /** The pause before a retry after a transport failure (tests run it on a virtual clock). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Where the values the contract returns once are watched for (shared with the receiver client). */
  readonly oneTimeWatch?: OneTimeWatch;
}

export interface ClientStats {
  readonly requestsSent: number;
  readonly rateLimited: number;
  /** Exchanges the network broke (./transport.ts), retried or not. */
  readonly transportErrors: number;
  /** Requests sent again: after a transport failure, a 429 or an undocumented 503. */
  readonly retries: number;
  /** Milliseconds spent waiting on exchanges, summed (overlapping ones each counted): a check's time in transit. */
  readonly transitMs: number;
}

/**
 * One 429, and how many requests this client had sent in the rate window
 * (60 s unless a stand-in documents another) up to it (that one included).
 */
export interface RateLimitEvent {
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly sentInPrecedingMinute: number;
  /** Sent no more than the documented limit in that minute: evidence against RATE-LIMIT-100-PER-MIN. */
  readonly underDocumentedLimit: boolean;
}

/** Requests sent within `windowMs` up to `at` (times ascending), the one sent at `at` included. Pure. */
export function sentWithin(sentAt: readonly number[], at: number, windowMs = 60_000): number {
  return sentAt.filter((time) => time > at - windowMs && time <= at).length;
}

export interface ApiClient {
  send(request: ApiRequest): Promise<Exchange>;
  /**
   * Sends the requests at the same moment: each on a connection opened beforehand (./warm.ts),
   * all written in one turn once the throttle lets the last one go. No 429 is retried: a double
   * retried is no longer one.
   */
  sendTogether(requests: readonly ApiRequest[]): Promise<Exchange[]>;
  /**
   * One request over a socket of its own, its answer's bytes as they came (./raw.ts), through the
   * same throttle and transport discipline: a safe method is sent again after a transport failure,
   * any other only when nothing reached the target; a failure that ends it throws a TransportFailure.
   */
  sendRaw(request: RawRequest): Promise<Buffer>;
  /** Exchanges sent so far: a check notes the count when it starts. */
  readonly exchangeCount: number;
  /**
   * The redacted, capped records (with a curl replay) of the exchanges since the count `since`:
   * the last exchangeCaps.exchangesPerCheck of them, and how many earlier ones were left out.
   */
  recordsSince(since: number): { records: ExchangeRecord[]; omitted: number };
  readonly stats: ClientStats;
  /** Every 429 received, with the client's own count of the minute before it. */
  readonly rateLimitEvents: readonly RateLimitEvent[];
  /**
   * The protocol lint of every answer that came whole (contract/standards/): the standards' rules
   * applied to what the run already exchanged, at no request of its own.
   */
  readonly lint: LintTally;
  /** The values the contract returns once, and where the target said them again. */
  readonly oneTime: OneTimeWatch;
  /** An answer of the target another transport of the run received (the per-IP clients), into the lint's tally. */
  lintOther(message: LintedMessage): void;
  readonly redact: Redactor;
  close(): Promise<void>;
}

const MAX_RETRY_AFTER_MS = 65_000;
const MAX_RATE_LIMIT_RETRIES = 2;
/**
 * A 429 while this client sent no more than the documented limit in the window before it, or an
 * undocumented 503: another client of the address may have spent the budget, or the target (or a
 * proxy) is briefly unavailable. Waited out once when Retry-After asks for at most this long;
 * a longer wait would hold the check past its own bound, and the check is then not verifiable.
 */
const MAX_BRIEF_WAIT_MS = 20_000;
/** The least total time a response (status line and body) gets: a slow link is not a hung target. */
const TOTAL_FLOOR_MS = 60_000;

/**
 * A request's headers and body as sent: JSON, a form or a raw body, and the bearer token, which
 * `redact` learns (a token the suite sends is a secret wherever the target echoes it; a raw
 * `authorization` is a deliberately malformed header, not a credential to hunt for).
 */
function requestParts(request: ApiRequest, redact: Redactor): { headers: Record<string, string>; body?: string } {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (request.authorization !== undefined) headers.authorization = request.authorization;
  else if (request.token !== undefined) {
    headers.authorization = `Bearer ${request.token}`;
    redact.learn(request.token);
  }
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    return { headers, body: JSON.stringify(request.json) };
  }
  if (request.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    return { headers, body: new URLSearchParams(request.form).toString() };
  }
  if (request.body !== undefined && request.contentType !== undefined) headers['content-type'] = request.contentType;
  return request.body === undefined ? { headers } : { headers, body: request.body };
}

/** A 429 weighed against the requests this client sent in the window before it. */
function rateLimitEventOf(
  exchange: Exchange,
  request: ApiRequest,
  sentAt: readonly number[],
  windowMs: number,
): RateLimitEvent {
  const at = Date.parse(exchange.startedAt);
  const sentInPrecedingMinute = sentWithin(sentAt, Number.isNaN(at) ? Date.now() : at, windowMs);
  return {
    at: exchange.startedAt,
    method: request.method,
    path: new URL(exchange.url).pathname,
    sentInPrecedingMinute,
    underDocumentedLimit: sentInPrecedingMinute <= limits.requestsPerMinute,
  };
}

/** An exchange from what was sent and what came back. Pure. */
function exchangeFrom(
  sent: Pick<Exchange, 'seq' | 'method' | 'url' | 'startedAt' | 'durationMs'> & {
    headers: Record<string, string>;
    body: string | undefined;
  },
  answer: Pick<Exchange, 'status' | 'responseHeaders' | 'rawBody' | 'transportError' | 'transportKind'>,
  parsed: Pick<Exchange, 'json' | 'jsonError'>,
): Exchange {
  const { headers, body, ...request } = sent;
  return { ...request, requestHeaders: headers, requestBody: body, ...answer, ...parsed };
}

/** The URL of a request: below the base URL, or absolute (the auth server), with its query. Pure. */
function urlOf(baseUrl: string, request: ApiRequest): URL {
  const url = /^https?:\/\//.test(request.path) ? new URL(request.path) : new URL(baseUrl + request.path);
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url;
}

/**
 * One request on the wire: the answer (its body capped), and why it broke off where it did (a
 * body cut short keeps the status and headers that came before it, and is a transport failure,
 * never an empty body). The status line must come within `timeoutMs`, and the body is read while
 * bytes keep arriving (no gap over `timeoutMs`), under a generous total (`totalMs`).
 */
async function transmit(
  agent: Agent,
  request: { url: URL; method: ApiRequest['method']; headers: Record<string, string>; body: string | undefined },
  caps: { timeoutMs: number; totalMs: number; maxBodyBytes: number },
): Promise<{
  status?: number;
  responseHeaders: Record<string, string>;
  rawBody: string;
  transportError?: string;
  transportKind?: TransportKind;
  /** What the protocol lint reads: the field lines and octets, when the answer came whole. */
  wire?: { fields: Array<[string, string]>; body: BodyFacts };
}> {
  let status: number | undefined;
  let responseHeaders: Record<string, string> = {};
  try {
    const response = await agent.request({
      origin: request.url.origin,
      path: request.url.pathname + request.url.search,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(caps.totalMs),
    });
    status = response.statusCode;
    responseHeaders = flattenHeaders(response.headers);
    const octets = await readCapped(response.body, caps.maxBodyBytes);
    const wire = { fields: fieldLinesOf(response.headers), body: bodyFacts(octets) };
    return { status, responseHeaders, rawBody: octets.toString('utf8'), wire };
  } catch (error) {
    if (error instanceof BodyTooLarge) return { status, responseHeaders, rawBody: '', transportError: error.message };
    const kind =
      status !== undefined && transportKindOf(error) !== 'refused' ? 'cut' : (transportKindOf(error) ?? 'other');
    const timeout = kind === 'cut' ? caps.totalMs : caps.timeoutMs;
    return {
      status,
      responseHeaders,
      rawBody: '',
      transportError: describeTransport(kind, detailOf(error), timeout),
      transportKind: kind,
    };
  }
}

/**
 * The client's keep-alive pool: the status line within the timeout, the body while bytes keep
 * coming (a gap of the timeout is a stall), connections from the warmed ones first.
 */
function agentOf(timeoutMs: number, warm: WarmConnections): Agent {
  return new Agent({
    keepAliveTimeout: 10_000,
    connections: 8,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: warm.connector,
  });
}

export function createApiClient(options: ClientOptions): ApiClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const warm = createWarmConnections({ timeoutMs: options.timeoutMs });
  const agent = agentOf(options.timeoutMs, warm);
  const windowMs = options.rateWindowMs ?? 60_000;
  const throttle = options.throttle ?? createThrottle({ requestsPerMinute: options.requestsPerMinute, windowMs });
  const redact = createRedactor(options.secrets);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const roundTrips = createRoundTrips();
  // Only a failed check's last exchanges reach a report, so records are made when asked for, not
  // for every exchange (a run sends over a thousand): the raw ones wait here, in this worker, and
  // are redacted then with every secret learnt so far, which is never fewer than at sending time.
  const recent: Exchange[] = [];
  let seq = 0;
  let retries = 0;
  let transitMs = 0;
  const rateLog = createRateLog(windowMs);
  let transportErrors = 0;
  const [lint, watch] = [createLintTally(), options.oneTimeWatch ?? createOneTimeWatch()];

  /** The request as it goes on the wire, once the throttle lets it go (its send time counted). */
  const prepare = async (request: ApiRequest) => {
    const url = urlOf(baseUrl, request);
    const { headers, body } = requestParts(request, redact);
    await throttle.acquire();
    return { request, url, headers, body };
  };

  const once = async (request: ApiRequest): Promise<Exchange> => exchangeOf(await prepare(request));

  const exchangeOf = async ({ request, url, headers, body }: Awaited<ReturnType<typeof prepare>>) => {
    rateLog.sent();
    const started = performance.now();
    const startedAt = new Date().toISOString();
    const answer = await transmit(
      agent,
      { url, method: request.method, headers, body },
      { timeoutMs: options.timeoutMs, totalMs: roundTrips.totalMs(options.timeoutMs), maxBodyBytes },
    );
    const { status, responseHeaders, rawBody, transportError } = answer;
    if (answer.transportKind !== undefined) transportErrors += 1;
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    transitMs += durationMs;
    if (transportError === undefined) roundTrips.add(durationMs);
    const { json, jsonError } = parseJson(rawBody, responseHeaders['content-type']);
    const sent = { seq: ++seq, method: request.method, url: url.href, headers, body, startedAt, durationMs };
    const exchange = exchangeFrom(sent, { ...answer, status, transportError }, { json, jsonError });
    // Hook secrets and access tokens are learnt before the record is made, so no copy keeps them.
    if (json !== undefined) redact.learnFrom(json);
    if (answer.wire !== undefined) readAnswer({ lint, watch, baseUrl }, { url, headers }, answer.wire, exchange);
    recent.push(exchange);
    if (recent.length > exchangeCaps.exchangesPerCheck) recent.shift();
    return exchange;
  };

  return {
    async send(request) {
      let exchange = await once(request);
      let transportAttempts = 0;
      let waited = 0;
      for (;;) {
        if (exchange.status === 429) rateLog.refused(exchange, request);
        const transport = exchange.transportKind !== undefined;
        const wait = retryWaitOf(exchange, request, { attempt: transportAttempts + 1, waited }, rateLog.events.at(-1));
        if (wait === undefined) return exchange;
        if (transport) {
          transportAttempts += 1;
          await sleep(wait);
        } else {
          waited += 1;
          throttle.pauseFor(wait);
        }
        retries += 1;
        exchange = { ...(await once(request)), retries: transportAttempts + waited };
      }
    },
    async sendTogether(requests) {
      const ready = [];
      for (const request of requests) ready.push(await prepare(request));
      // One connection each, the pool's idle ones aside: what undici does not take is closed after.
      for (const origin of new Set(ready.map((r) => r.url.origin))) await warm.warm(new URL(origin), ready.length);
      const sent = ready.map(exchangeOf);
      warm.drop();
      const exchanges = await Promise.all(sent);
      for (const [i, exchange] of exchanges.entries())
        if (exchange.status === 429) rateLog.refused(exchange, requests[i]!);
      return exchanges;
    },
    sendRaw: (request) =>
      sendRawThrough(request, {
        throttle,
        timeoutMs: options.timeoutMs,
        sleep,
        sent: rateLog.sent,
        failed: (retried) => {
          transportErrors += 1;
          if (retried) retries += 1;
        },
      }),
    get exchangeCount() {
      return seq;
    },
    recordsSince: (since) => recordsOf(recent, { since, seq, redact, variables: options.secretVariables }),
    get stats() {
      const rateLimited = rateLog.events.length;
      return { requestsSent: throttle.stats.sent, rateLimited, transportErrors, retries, transitMs };
    },
    rateLimitEvents: rateLog.events,
    lint,
    oneTime: watch,
    lintOther: (message) => lint.add(lintMessage(message)),
    redact,
    async close() {
      await agent.close();
    },
  };
}

/**
 * The send times of the last rate window (pruned as it goes) and every 429 weighed against them:
 * the passive rate-limit verdict's evidence.
 */
function createRateLog(windowMs: number): {
  sent(): void;
  refused(exchange: Exchange, request: ApiRequest): RateLimitEvent;
  readonly events: RateLimitEvent[];
} {
  let sentAt: number[] = [];
  const events: RateLimitEvent[] = [];
  return {
    sent() {
      const now = Date.now();
      sentAt = sentAt.filter((time) => time > now - windowMs);
      sentAt.push(now);
    },
    refused(exchange, request) {
      const event = rateLimitEventOf(exchange, request, sentAt, windowMs);
      events.push(event);
      return event;
    },
    events,
  };
}

/**
 * How long to wait before sending `exchange`'s request again, or undefined to hand it to the caller
 * as it is: the network's failures by ./transport.ts (`attempt`: the retry it would be, from 1), a
 * 429 or an undocumented 503 by Retry-After (`waited`: the times one was waited out already). Pure.
 */
function retryWaitOf(
  exchange: Exchange,
  request: ApiRequest,
  tries: { readonly attempt: number; readonly waited: number },
  lastRateLimit: RateLimitEvent | undefined,
): number | undefined {
  const { attempt, waited } = tries;
  if (exchange.transportKind !== undefined)
    return mayRetry(request.repeatable ?? isSafeMethod(request.method), exchange.transportKind, attempt)
      ? retryDelayMs(attempt)
      : undefined;
  const wait = retryAfterMs(exchange.responseHeaders['retry-after']) ?? 1_000;
  if (exchange.status === 503 && request.retryUnavailable === true)
    return waited === 0 && wait <= MAX_BRIEF_WAIT_MS ? wait : undefined;
  if (exchange.status !== 429 || request.expectRateLimit === true) return undefined;
  // Over our own count: our budget was spent, the limiter is right, wait it out. Under it: the
  // window is someone else's, or the limit is below the documented one (RATE-LIMIT-100-PER-MIN's
  // verdict): waited out once when brief, else handed back at once, not held to the check's bound.
  if (lastRateLimit?.underDocumentedLimit !== false)
    return waited === 0 && wait <= MAX_BRIEF_WAIT_MS ? wait : undefined;
  return waited < MAX_RATE_LIMIT_RETRIES && wait <= MAX_RETRY_AFTER_MS ? wait : undefined;
}

/**
 * A raw exchange (./raw.ts) through the client's throttle and the transport discipline: `sent`
 * is told of every attempt, `failed` of every transport failure (and whether it was retried).
 */
async function sendRawThrough(
  request: RawRequest,
  through: {
    readonly throttle: Throttle;
    readonly timeoutMs: number;
    readonly sleep: (ms: number) => Promise<void>;
    readonly sent: () => void;
    readonly failed: (retried: boolean) => void;
  },
): Promise<Buffer> {
  try {
    return await withTransportRetries(
      async () => {
        await through.throttle.acquire();
        through.sent();
        return rawExchange({ timeoutMs: through.timeoutMs, ...request });
      },
      { repeatable: isSafeMethod(request.method), sleep: through.sleep, onRetry: () => through.failed(true) },
    );
  } catch (error) {
    if (transportKindOf(error) !== undefined) through.failed(false);
    throw error;
  }
}

/**
 * The round trips of the exchanges that completed, and the total time a response gets from them:
 * TOTAL_FLOOR_MS, six times the request timeout, or 100 round trips (the median of the last 50),
 * whichever is longest. A slow network stretches the total; it never shortens below the floor.
 */
function createRoundTrips(): { add(ms: number): void; totalMs(timeoutMs: number): number } {
  const last: number[] = [];
  return {
    add(ms) {
      last.push(ms);
      if (last.length > 50) last.shift();
    },
    totalMs(timeoutMs) {
      const sorted = [...last].sort((a, b) => a - b);
      const median = sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!;
      return Math.max(TOTAL_FLOOR_MS, 6 * timeoutMs, Math.ceil(100 * median));
    },
  };
}

/** The record safe for logs and reports: redacted by what each part is, then capped. */
export function recordExchange(
  exchange: Exchange,
  redact: Redactor,
  caps: ExchangeCaps = exchangeCaps,
): ExchangeRecord {
  const cuts: string[] = [];
  const requestHeaders = capHeaders(redact.headers(exchange.requestHeaders), caps, 'request', cuts);
  const responseHeaders = capHeaders(redact.headers(exchange.responseHeaders), caps, 'response', cuts);
  const requestBody =
    exchange.requestBody === undefined
      ? undefined
      : capBody(
          redact.body(exchange.requestBody, exchange.requestHeaders['content-type']),
          caps.bodyBytes,
          'request',
          cuts,
        );
  const rawBody = capBody(
    redact.body(exchange.rawBody, exchange.responseHeaders['content-type']),
    caps.bodyBytes,
    'response',
    cuts,
  );
  return {
    seq: exchange.seq,
    method: exchange.method,
    url: redact.url(exchange.url),
    requestHeaders,
    requestBody,
    status: exchange.status,
    responseHeaders,
    rawBody,
    jsonError: exchange.jsonError === undefined ? undefined : redact(exchange.jsonError),
    transportError: exchange.transportError === undefined ? undefined : redact(exchange.transportError),
    ...(exchange.transportKind === undefined ? {} : { transportKind: exchange.transportKind }),
    ...(exchange.retries === undefined ? {} : { retries: exchange.retries }),
    startedAt: exchange.startedAt,
    durationMs: exchange.durationMs,
    ...(cuts.length === 0 ? {} : { truncated: cuts.join('; ') }),
  };
}

function capBody(body: string, maxBytes: number, side: 'request' | 'response', cuts: string[]): string {
  const total = Buffer.byteLength(body);
  if (total <= maxBytes) return body;
  // The longest prefix within maxBytes that does not split a surrogate pair.
  let low = 0;
  let high = Math.min(body.length, maxBytes);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (Buffer.byteLength(body.slice(0, mid)) <= maxBytes) low = mid;
    else high = mid - 1;
  }
  const kept = clipChars(body, low);
  cuts.push(`${side} body cut at ${Buffer.byteLength(kept)} of ${total} bytes`);
  return kept;
}

function capHeaders(
  headers: Record<string, string>,
  caps: ExchangeCaps,
  side: 'request' | 'response',
  cuts: string[],
): Record<string, string> {
  const entries = Object.entries(headers);
  let cutValues = 0;
  const kept = entries.slice(0, caps.headers).map(([name, value]) => {
    if (name.length > caps.headerChars || value.length > caps.headerChars) cutValues += 1;
    return [clipChars(name, caps.headerChars), clipChars(value, caps.headerChars)] as const;
  });
  if (entries.length > caps.headers) cuts.push(`${caps.headers} of ${entries.length} ${side} headers kept`);
  if (cutValues > 0)
    cuts.push(`${cutValues} ${side} header${cutValues === 1 ? '' : 's'} cut at ${caps.headerChars} characters`);
  // fromEntries: a header named "__proto__" stays a plain field.
  return Object.fromEntries(kept);
}

/** At most max UTF-16 units, never ending on the first half of a surrogate pair. */
function clipChars(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max);
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value]],
    ),
  );
}

/** The redacted records of the recent exchanges after `since`, and how many earlier ones were not kept. */
function recordsOf(
  recent: readonly Exchange[],
  at: { since: number; seq: number; redact: Redactor; variables: ReadonlyMap<string, string> | undefined },
): ReturnType<ApiClient['recordsSince']> {
  const wanted = recent.filter((exchange) => exchange.seq > at.since);
  const records = wanted.map((exchange) => ({
    ...recordExchange(exchange, at.redact),
    curl: curlCommand(exchange, at.variables ?? new Map(), at.redact),
  }));
  return { records, omitted: Math.max(0, at.seq - at.since - wanted.length) };
}

/**
 * What the run reads of every whole answer at no request: the protocol lint's tally, and the
 * one-time values issued before it looked for in it, then its own learnt.
 */
function readAnswer(
  into: { lint: RunningTally; watch: OneTimeWatch; baseUrl: string },
  sent: { url: URL; headers: Record<string, string> },
  wire: NonNullable<Awaited<ReturnType<typeof transmit>>['wire']>,
  exchange: Exchange,
): void {
  const { lint, watch, baseUrl } = into;
  const request = { ...sent, method: exchange.method };
  const message = lintedExchange(baseUrl, request, { status: exchange.status!, ...wire });
  lint.add(lintMessage(message));
  const where = `${exchange.method} ${message.path} → ${exchange.status}`;
  const texts = [exchange.rawBody, ...message.fields.map(([, value]) => value)];
  watch.scan({ kind: 'answer', where, texts, seq: exchange.seq });
  if (message.operation !== undefined) watch.learn(message.operation, exchange.json, exchange.seq);
}

/** A body over the client's cap: the target's doing, not the network's. */
class BodyTooLarge extends Error {}

async function readCapped(body: AsyncIterable<Buffer> & { destroy?: () => void }, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy?.();
      throw new BodyTooLarge(`response body larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** JSON when the body is non-empty; the parse error is kept so a check can show it. */
export function parseJson(
  rawBody: string,
  contentType: string | undefined,
): { json: unknown; jsonError: string | undefined } {
  if (rawBody === '') return { json: undefined, jsonError: undefined };
  try {
    return { json: JSON.parse(rawBody), jsonError: undefined };
  } catch (error) {
    const kind = contentType === undefined ? 'no content type' : `content type ${contentType}`;
    return { json: undefined, jsonError: `body is not JSON (${kind}): ${(error as Error).message}` };
  }
}

/** One readable paragraph of an exchange record, for failure messages and reports. */
export function formatExchange(exchange: ExchangeRecord): string {
  const request = `${exchange.method} ${exchange.url}`;
  const headersIn = Object.entries(exchange.requestHeaders)
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n');
  const requestBody = exchange.requestBody === undefined ? '' : `\n\n  ${truncate(exchange.requestBody)}`;
  if (exchange.status === undefined) return `${request}\n${headersIn}${requestBody}\n→ ${exchange.transportError}`;
  const headersOut = Object.entries(exchange.responseHeaders)
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n');
  const cut = exchange.transportError === undefined ? '' : `\n  (then: ${exchange.transportError})`;
  const note = exchange.truncated === undefined ? '' : `\n  (${exchange.truncated})`;
  return (
    `${request}\n${headersIn}${requestBody}\n→ ${exchange.status} (${exchange.durationMs} ms)\n` +
    `${headersOut}\n\n  ${truncate(exchange.rawBody)}${cut}${note}`
  );
}

function truncate(text: string, max = 2_000): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
