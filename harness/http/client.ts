/**
 * The one HTTP client of the suite: undici with a keep-alive pool, a timeout on every request,
 * the throttle, and a record of every exchange.
 *
 * Tests get the raw exchange (they need, say, the hook secret from a response); the log the
 * reports are built from holds only redacted copies.
 */
import { Agent, errors as undiciErrors } from 'undici';
import { curlCommand } from '../report/curl.ts';
import { createRedactor, redactHeaders, type Redactor } from './redact.ts';
import { createThrottle, retryAfterMs, type Throttle } from './throttle.ts';

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
  readonly startedAt: string;
  readonly durationMs: number;
  /** In the log only: a curl command replaying the request, secrets as their variables (report/curl.ts). */
  readonly curl?: string;
}

export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'HEAD' | 'OPTIONS';
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
}

export interface ClientOptions {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly requestsPerMinute: number | undefined;
  readonly secrets?: readonly string[];
  readonly maxBodyBytes?: number;
  readonly throttle?: Throttle;
  /** Secret value → the variable holding it, so replay commands name the variable (report/curl.ts). */
  readonly secretVariables?: ReadonlyMap<string, string>;
}

export interface ClientStats {
  readonly requestsSent: number;
  readonly rateLimited: number;
  readonly transportErrors: number;
}

export interface ApiClient {
  send(request: ApiRequest): Promise<Exchange>;
  /** The redacted log of every exchange so far, in order. */
  readonly log: readonly Exchange[];
  readonly stats: ClientStats;
  readonly redact: Redactor;
  close(): Promise<void>;
}

const MAX_RETRY_AFTER_MS = 65_000;
const MAX_RATE_LIMIT_RETRIES = 2;

export function createApiClient(options: ClientOptions): ApiClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    connections: 8,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connect: { timeout: options.timeoutMs },
  });
  const throttle = options.throttle ?? createThrottle({ requestsPerMinute: options.requestsPerMinute });
  const redact = createRedactor(options.secrets);
  const log: Exchange[] = [];
  let seq = 0;
  let rateLimited = 0;
  let transportErrors = 0;

  const buildUrl = (request: ApiRequest): URL => {
    const url = /^https?:\/\//.test(request.path) ? new URL(request.path) : new URL(baseUrl + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  };

  const once = async (request: ApiRequest): Promise<Exchange> => {
    const url = buildUrl(request);
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    if (request.authorization !== undefined) headers.authorization = request.authorization;
    else if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
    let body: string | undefined;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    } else if (request.form !== undefined) {
      body = new URLSearchParams(request.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (request.body !== undefined) {
      body = request.body;
      if (request.contentType !== undefined) headers['content-type'] = request.contentType;
    }

    await throttle.acquire();
    const started = performance.now();
    const startedAt = new Date().toISOString();
    let status: number | undefined;
    let responseHeaders: Record<string, string> = {};
    let rawBody = '';
    let transportError: string | undefined;
    try {
      const response = await agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: request.method,
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs + 1_000),
      });
      status = response.statusCode;
      responseHeaders = flattenHeaders(response.headers);
      rawBody = await readCapped(response.body, maxBodyBytes);
    } catch (error) {
      transportError = describeTransportError(error, options.timeoutMs);
      transportErrors += 1;
    }
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    const { json, jsonError } = parseJson(rawBody, responseHeaders['content-type']);
    const exchange: Exchange = {
      seq: ++seq, method: request.method, url: url.href, requestHeaders: headers, requestBody: body,
      status, responseHeaders, rawBody, json, jsonError, transportError, startedAt, durationMs,
    };
    log.push({ ...redactExchange(exchange, redact), curl: curlCommand(exchange, options.secretVariables ?? new Map(), redact) });
    return exchange;
  };

  return {
    async send(request) {
      let exchange = await once(request);
      for (let retry = 0; ; retry += 1) {
        if (exchange.status !== 429) return exchange;
        rateLimited += 1;
        if (request.expectRateLimit === true || retry >= MAX_RATE_LIMIT_RETRIES) return exchange;
        const wait = retryAfterMs(exchange.responseHeaders['retry-after']) ?? 1_000;
        if (wait > MAX_RETRY_AFTER_MS) return exchange;
        throttle.pauseFor(wait);
        exchange = await once(request);
      }
    },
    get log() {
      return log;
    },
    get stats() {
      return { requestsSent: throttle.stats.sent, rateLimited, transportErrors };
    },
    redact,
    async close() {
      await agent.close();
    },
  };
}

/** A copy safe for logs and reports: credentials and secrets scrubbed from every part. */
export function redactExchange(exchange: Exchange, redact: Redactor): Exchange {
  const rawBody = redact(exchange.rawBody);
  return {
    ...exchange,
    url: redact(exchange.url),
    requestHeaders: redactHeaders(exchange.requestHeaders, redact),
    requestBody: exchange.requestBody === undefined ? undefined : redact(exchange.requestBody),
    responseHeaders: redactHeaders(exchange.responseHeaders, redact),
    rawBody,
    json: exchange.json === undefined ? undefined : parseJson(rawBody, 'application/json').json,
    transportError: exchange.transportError === undefined ? undefined : redact(exchange.transportError),
  };
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy?: () => void }, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy?.();
      throw new Error(`response body larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** JSON when the body is non-empty; the parse error is kept so a check can show it. */
export function parseJson(rawBody: string, contentType: string | undefined): { json: unknown; jsonError: string | undefined } {
  if (rawBody === '') return { json: undefined, jsonError: undefined };
  try {
    return { json: JSON.parse(rawBody), jsonError: undefined };
  } catch (error) {
    const kind = contentType === undefined ? 'no content type' : `content type ${contentType}`;
    return { json: undefined, jsonError: `body is not JSON (${kind}): ${(error as Error).message}` };
  }
}

function describeTransportError(error: unknown, timeoutMs: number): string {
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError
    || (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))) {
    return `no complete response within ${timeoutMs} ms (the target hung)`;
  }
  if (error instanceof undiciErrors.ConnectTimeoutError) return `could not connect within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
  if (cause === 'ECONNREFUSED') return 'connection refused: is the target running at that address?';
  if (cause === 'ECONNRESET' || cause === 'UND_ERR_SOCKET') return 'connection reset by the target before a complete response';
  return `transport error: ${(error as Error).message ?? String(error)}`;
}

/** One readable paragraph of an exchange, for failure messages (already redacted input expected). */
export function formatExchange(exchange: Exchange): string {
  const request = `${exchange.method} ${exchange.url}`;
  const headersIn = Object.entries(exchange.requestHeaders).map(([k, v]) => `  ${k}: ${v}`).join('\n');
  const requestBody = exchange.requestBody === undefined ? '' : `\n\n  ${truncate(exchange.requestBody)}`;
  if (exchange.status === undefined) return `${request}\n${headersIn}${requestBody}\n→ ${exchange.transportError}`;
  const headersOut = Object.entries(exchange.responseHeaders).map(([k, v]) => `  ${k}: ${v}`).join('\n');
  const cut = exchange.transportError === undefined ? '' : `\n  (then: ${exchange.transportError})`;
  return `${request}\n${headersIn}${requestBody}\n→ ${exchange.status} (${exchange.durationMs} ms)\n${headersOut}\n\n  ${truncate(exchange.rawBody)}${cut}`;
}

function truncate(text: string, max = 2_000): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
