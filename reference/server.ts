/**
 * The embedded reference server: a faithful, stateful implementation of the Outbound Calling
 * REST API v1 (/work/shared/spec/outbound-calling-api-v1.md, written down as openapi.json) that
 * the suite runs against by default, plus injectable faults (./faults.ts) that prove the suite
 * catches real deviations, the test-control protocol (./control-protocol.ts, control-openapi.json)
 * and its own reference-only test API (./control.ts).
 *
 * Why Fastify 5: actively maintained, among the fastest Node HTTP frameworks (the benchmark
 * hammers GET /v1/me), and its hooks/error handler let us own every byte of every answer. It is
 * used SCHEMA-FREE here on purpose: request validation is part of what we emulate (the spec's
 * error codes and their precedence), so every route validates by hand, and the one content-type
 * parser hands the raw body over as a string (auth first, then the body).
 *
 * Routes: /v1/… the API (./api.ts) plus /v1/openapi.json and /v1/docs (./docs.ts);
 * /oauth/token and /.well-known/oauth-authorization-server (./oauth.ts); /_control/… the test-control
 * protocol (./control-protocol.ts, bearer control token); /_reference/… faults, reset, fixtures (./control.ts).
 *
 * Rate limit: every /v1 request (API, openapi.json, docs, unknown /v1 paths) counts per client
 * IP in a sliding-window log (./ratelimit.ts) on the REAL clock (or one the caller moves:
 * rateLimit.now), never the virtual one; the control and OAuth routes
 * are exempt (they are not part of {base_url}). Every /v1 answer carries RateLimit-Limit,
 * RateLimit-Remaining and RateLimit-Reset; a refusal is 429 {error: 'rate_limited', message}
 * with Retry-After in whole seconds (rounded up).
 *
 * Robustness: bodies over 64 KiB → 413 {error: 'payload_too_large'}; unknown path → 404
 * {error: 'not_found'}; a known path with another method → 405 {error: 'method_not_allowed'}
 * with Allow; malformed JSON / non-JSON content type on a POST → that endpoint's 400
 * invalid_input (after auth); any other error → the {error, message} shape, never HTML.
 */
import Fastify from 'fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import { limits } from '../contract/openapi.ts';
import { registerApi } from './api.ts';
import { createClock } from './clock.ts';
import { randomBytes } from 'node:crypto';
import { registerControl } from './control.ts';
import { controlFaultSet } from './control-faults.ts';
import { registerControlProtocol } from './control-protocol.ts';
import { registerDocs } from './docs.ts';
import { FaultSet } from './faults.ts';
import { sendError } from './http.ts';
import { registerOAuth } from './oauth.ts';
import { FixedWindowLimiter, SlidingWindowLimiter } from './ratelimit.ts';
import { rewriteResponse, VariantSet } from './variants.ts';
import type { FixtureTokenName } from './seed.ts';
import { ReferenceStore } from './store.ts';
import { nearKnownPath } from './near-miss-faults.ts';
import { postHocAttemptSlips, registerPostHocSlips } from './post-hoc-slips.ts';

export interface ReferenceOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** Seed of the generated data; default 1. */
  seed?: number;
  /**
   * Default { perWindow: limits.requestsPerMinute, windowMs: 60_000 }; false = off. `now` is the
   * limiter's clock in real ms (Date.now by default): the rate-limit check, on a server of its
   * own, passes one it moves itself, so a window passes without being waited out.
   */
  rateLimit?: { perWindow: number; windowMs: number; now?: () => number } | false;
  /** Fault ids switched on at start. */
  faults?: string[];
  /** Conformant variant ids switched on at start (./variants.ts; never faults). */
  variants?: string[];
  /** CAs the webhook dispatcher trusts (PEM). */
  trustedCaPem?: string[];
  /** Virtual ms per real ms; default 1. */
  clockScale?: number;
  /** Webhook delivery timeout (the dispatcher's default otherwise). */
  deliveryTimeoutMs?: number;
  /** Simulated call length in virtual ms; default 300. */
  callDurationMs?: number;
  /** OAuth access token lifetime; default 3600. */
  tokenLifetimeSeconds?: number;
  /** Bearer token of the test-control protocol (/_control); default a random one (see fixtures). */
  controlToken?: string;
  /** Faults of the test-control endpoint (./control-faults.ts), apart from the API's `faults`. */
  controlFaults?: string[];
}

export interface ReferenceFixtures {
  baseUrl: string;
  authUrl: string;
  /** The test-control protocol (CONTROL_URL) and its bearer token (CONTROL_TOKEN). */
  controlUrl: string;
  controlToken: string;
  /** The reference-only test API (faults, reset, raw views). */
  referenceUrl: string;
  tokens: Record<FixtureTokenName, string>;
  /** `scopes`: the ones the client is registered for (OAUTH_CLIENT_SCOPES). */
  oauth: { clientId: string; clientSecret: string; scopes: string[] };
  /** noTrunk / noDialer: a provisioned agent of the account of TOKEN_NO_TRUNK / TOKEN_NO_DIALER. */
  agents: { provisioned: string; unprovisioned: string; foreign: string; noTrunk: string; noDialer: string };
}

export interface ReferenceServer {
  /** http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** http://127.0.0.1:PORT (token at /oauth/token) */
  authUrl: string;
  /** http://127.0.0.1:PORT/_control (the test-control protocol) */
  controlUrl: string;
  /** http://127.0.0.1:PORT/_reference (faults, reset, raw views) */
  referenceUrl: string;
  fixtures: ReferenceFixtures;
  /** Calls originated and not yet ended (each ends with a call.ended event, callDurationMs later). */
  callsInProgress(): number;
  close(): Promise<void>;
}

export const BODY_LIMIT_BYTES = 64 * 1024;

/** nm-undeclared-method-html: what a framework's default 405 page looks like. */
const HTML_405 =
  '<!doctype html><html><head><title>405 Method Not Allowed</title></head><body>Not allowed</body></html>';

/**
 * Answers a request off the /v1 surface: 405 with Allow on a known path, 404 elsewhere, both JSON
 * errors (the spec: all responses are JSON). The two near-miss faults answer as a framework's
 * default page would.
 */
function notFound(faults: FaultSet): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return (request, reply) => {
    const path = request.url.split('?', 1)[0]!;
    const known = KNOWN_PATHS.find((p) => p.pattern.test(path));
    if (known && faults.has('nm-undeclared-method-html'))
      return reply.code(405).header('allow', known.allow).type('text/html; charset=utf-8').send(HTML_405);
    const patterns = KNOWN_PATHS.map((p) => p.pattern);
    if (!known && faults.has('nm-unknown-path-text') && nearKnownPath(path, patterns))
      return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
    if (known)
      return reply
        .code(405)
        .header('allow', known.allow)
        .send({
          error: 'method_not_allowed',
          message: `${request.method} is not allowed on ${path}; allowed: ${known.allow}`,
        });
    return sendError(reply, faults, 404, 'not_found', `no such resource: ${request.method} ${path}`);
  };
}

/** Paths of the /v1 surface and their methods, for 405 answers. */
const KNOWN_PATHS: Array<{ pattern: RegExp; allow: string }> = [
  { pattern: /^\/v1\/(me|balance|cdrs|agents|openapi\.json|docs)\/?$/, allow: 'GET, HEAD' },
  { pattern: /^\/v1\/(calls|hooks)\/?$/, allow: 'POST' },
  { pattern: /^\/v1\/hooks\/[^/]+\/?$/, allow: 'DELETE' },
  { pattern: /^\/oauth\/token\/?$/, allow: 'POST' },
  { pattern: /^\/\.well-known\/oauth-authorization-server\/?$/, allow: 'GET, HEAD' },
];

function validateOptions(options: ReferenceOptions): void {
  const int = (name: string, v: unknown, min: number) => {
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min))
      throw new RangeError(`${name} must be an integer >= ${min}`);
  };
  int('port', options.port, 0);
  int('seed', options.seed, 0);
  int('callDurationMs', options.callDurationMs, 0);
  int('tokenLifetimeSeconds', options.tokenLifetimeSeconds, 1);
  if (options.rateLimit) {
    int('rateLimit.perWindow', options.rateLimit.perWindow, 1);
    if (!(options.rateLimit.windowMs > 0)) throw new RangeError('rateLimit.windowMs must be > 0');
    if (options.rateLimit.now !== undefined && typeof options.rateLimit.now !== 'function')
      throw new TypeError('rateLimit.now must be a function returning ms');
  }
}

export async function startReferenceServer(options: ReferenceOptions = {}): Promise<ReferenceServer> {
  validateOptions(options);
  const controlFaults = controlFaultSet(options.controlFaults);
  const host = options.host ?? '127.0.0.1';
  const faults = new FaultSet(options.faults ?? []);
  const variants = new VariantSet(options.variants ?? []);
  const clock = createClock({
    scale: variants.has('control-clock-stands-still') ? 0 : (options.clockScale ?? 1),
    deferNested: variants.has('control-advance-defers-nested'),
  });
  const store = new ReferenceStore({
    seed: options.seed ?? 1,
    clock,
    faults,
    variants,
    callDurationMs: options.callDurationMs ?? 300,
    ...(options.trustedCaPem !== undefined ? { trustedCaPem: options.trustedCaPem } : {}),
    ...(options.deliveryTimeoutMs !== undefined ? { deliveryTimeoutMs: options.deliveryTimeoutMs } : {}),
    attemptSlips: postHocAttemptSlips(faults),
  });
  const rate =
    options.rateLimit === false
      ? undefined
      : (options.rateLimit ?? { perWindow: limits.requestsPerMinute, windowMs: 60_000 });
  const limiter =
    rate === undefined
      ? undefined
      : variants.has('rate-limit-fixed-window')
        ? new FixedWindowLimiter(rate.perWindow, rate.windowMs)
        : new SlidingWindowLimiter(rate.perWindow, rate.windowMs);
  const limiterNow = rate?.now ?? Date.now;

  let origin = '';
  const controlToken = options.controlToken ?? `ctl_${randomBytes(18).toString('base64url')}`;
  const app: FastifyInstance = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { ignoreTrailingSlash: true },
    forceCloseConnections: true,
    return503OnClosing: false,
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      reply.code(400).send({ error: 'bad_request', message: error.message });
    },
  });

  // One parser for every content type: the raw body as a string; routes decide what it means.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  // Before the rate limiter: ph-rate-limit-after-auth answers an unauthenticated request first.
  registerPostHocSlips(app, store);

  // The client IP is the socket's remote address (no trustProxy: no header picks the bucket), so a
  // client bound to 127.0.0.2 is another client than one on 127.0.0.1. The two faults key otherwise.
  const rateKey = (request: FastifyRequest): string => {
    if (faults.has('rate-limit-global')) return 'every client';
    const forwarded = request.headers['x-forwarded-for'];
    // nm-forwarded-for-trusted: the client's own X-Forwarded-For taken as its address.
    if (faults.has('nm-forwarded-for-trusted') && typeof forwarded === 'string') return forwarded.split(',')[0]!.trim();
    const ip = request.socket.remoteAddress ?? request.ip;
    if (!faults.has('rate-limit-per-token')) return ip;
    const bearer = /^Bearer\s+(\S+)/i.exec(request.headers.authorization ?? '')?.[1];
    return bearer === undefined ? `ip ${ip}` : `token ${bearer}`;
  };
  if (limiter) {
    app.addHook('onRequest', (request, reply, done) => {
      if (!request.url.startsWith('/v1') || faults.has('no-rate-limit')) return done();
      const effective = faults.has('rate-limit-half') ? Math.max(1, Math.floor(limiter.limit / 2)) : limiter.limit;
      const decision = limiter.check(rateKey(request), limiterNow(), effective);
      if (variants.has('rate-limit-plain-429')) {
        if (decision.allowed) return done();
        reply.code(429).type('text/plain; charset=utf-8').send('Too Many Requests');
        return;
      }
      reply.header('ratelimit-limit', decision.limit);
      reply.header('ratelimit-remaining', decision.remaining);
      reply.header('ratelimit-reset', decision.resetSeconds);
      if (decision.allowed) return done();
      reply.header('retry-after', decision.retryAfterSeconds);
      reply.code(429).send({
        error: 'rate_limited',
        message:
          `more than ${limiter.limit} requests in ${limiter.windowMs / 1000} s from this address; ` +
          `retry after ${decision.retryAfterSeconds} s`,
      });
    });
  }

  if (variants.list().length > 0) {
    app.addHook('onSend', (request, reply, payload, done) =>
      done(null, rewriteResponse(variants, request.url, reply.statusCode, payload)),
    );
  }

  registerApi(app, store);
  registerDocs(app, faults, () => `${origin}/v1`);
  registerOAuth(app, store, { authUrl: () => origin, tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 3600 });
  const fixtures = (): ReferenceFixtures => ({
    baseUrl: `${origin}/v1`,
    authUrl: origin,
    controlUrl: `${origin}/_control`,
    controlToken,
    referenceUrl: `${origin}/_reference`,
    tokens: { ...store.state.fixtureTokens },
    oauth: {
      clientId: store.state.oauthClient.clientId,
      clientSecret: store.state.oauthClient.clientSecret,
      scopes: [...store.state.oauthClient.scopes],
    },
    agents: { ...store.state.agentFixtures },
  });
  registerControl(app, store, { onReset: () => limiter?.clear(), fixtures });
  registerControlProtocol(app, store, { token: controlToken, faults: controlFaults });

  app.setNotFoundHandler(notFound(faults));

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = error.statusCode ?? 500;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) {
      return reply
        .code(413)
        .send({ error: 'payload_too_large', message: `the body is larger than ${BODY_LIMIT_BYTES} bytes` });
    }
    if (status >= 400 && status < 500) {
      return reply
        .code(status)
        .send({ error: status === 400 ? 'invalid_input' : 'bad_request', message: error.message });
    }
    return reply.code(500).send({ error: 'internal_error', message: 'unexpected error' });
  });

  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  origin = `http://${hostPart}:${address.port}`;

  let closed: Promise<void> | undefined;
  return {
    baseUrl: `${origin}/v1`,
    authUrl: origin,
    controlUrl: `${origin}/_control`,
    referenceUrl: `${origin}/_reference`,
    get fixtures() {
      return fixtures();
    },
    callsInProgress: () => [...store.calls.values()].filter((call) => call.status !== 'ended').length,
    close() {
      closed ??= (async () => {
        await app.close();
        await store.close();
        clock.close();
      })();
      return closed;
    },
  };
}
