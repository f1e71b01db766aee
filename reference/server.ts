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
 * Routes (./routes/, one fastify plugin per endpoint, written as the spec reads; faults and
 * variants bend their named points, ./points.ts): the /v1 operations, /v1/openapi.json and
 * /v1/docs, /oauth/token and /.well-known/oauth-authorization-server, the rate limit of every /v1
 * request and the answers off the operations; /_control/… the test-control protocol
 * (./control-protocol.ts, bearer control token); /_reference/… faults, reset, fixtures (./control.ts).
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
import { createClock } from './clock.ts';
import { randomBytes } from 'node:crypto';
import { registerControl } from './control.ts';
import { controlFaultSet } from './control-faults.ts';
import { registerControlProtocol } from './control-protocol.ts';
import { FaultSet } from './faults.ts';
import { faultBends } from './faults/index.ts';
import { registerWire } from './wire.ts';
import { Points } from './points.ts';
import { rewriteResponse, VariantSet } from './variants.ts';
import type { FixtureTokenName } from './seed.ts';
import { ReferenceStore } from './store.ts';
import { agentsRoute } from './routes/agents.ts';
import { balanceRoute } from './routes/balance.ts';
import { callsRoute } from './routes/calls.ts';
import { cdrsRoute } from './routes/cdrs.ts';
import { hooksIdRoute } from './routes/hooks-id.ts';
import { hooksRoute } from './routes/hooks.ts';
import { docsRoute } from './routes/docs.ts';
import { meRoute } from './routes/me.ts';
import { oauthRoute } from './routes/oauth.ts';
import { registerRateLimit } from './routes/rate-limit.ts';
import { notFound } from './routes/surface.ts';
import { registerRequestSite, rewriteUrlOf } from './routes/request.ts';
import type { RouteOptions } from './routes/options.ts';
import { variantBends } from './variants/index.ts';
import { postHocAttemptSlips, registerPostHocSlips } from './post-hoc-slips.ts';
import { registerRfcSlips, rfcAttemptSlips } from './post-hoc-slips-rfc.ts';
import { registerRfc2Slips, rfc2AttemptSlips } from './post-hoc-slips-rfc2.ts';

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

/** What a test needs to reach this server: its URLs, the control token, the seeded tokens and fixtures. */
function fixturesOf(store: ReferenceStore, origin: string, controlToken: string): ReferenceFixtures {
  return {
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
  };
}

/**
 * A request the HTTP parser could not read (a method Node does not know, a broken request line):
 * 400 as JSON, dated like every 4xx (RFC 9110 §6.6.1), the connection closed. Fastify's default
 * answer carries no Date.
 */
function answerUnparsed(error: { code?: string }, socket: import('node:net').Socket): void {
  if (!socket.writable) return;
  const body = JSON.stringify({ error: 'invalid_request', message: `the request could not be parsed (${error.code})` });
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nDate: ${new Date().toUTCString()}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function startReferenceServer(options: ReferenceOptions = {}): Promise<ReferenceServer> {
  validateOptions(options);
  const controlFaults = controlFaultSet(options.controlFaults);
  const host = options.host ?? '127.0.0.1';
  const faults = new FaultSet(options.faults ?? []);
  const variants = new VariantSet(options.variants ?? []);
  const points = new Points([...variantBends, ...faultBends], faults, variants, controlFaults);
  const clock = createClock({
    scale: variants.has('control-clock-stands-still') ? 0 : (options.clockScale ?? 1),
    deferNested: variants.has('control-advance-defers-nested'),
  });
  const store = new ReferenceStore({
    seed: options.seed ?? 1,
    clock,
    faults,
    variants,
    points,
    callDurationMs: options.callDurationMs ?? 300,
    ...(options.trustedCaPem !== undefined ? { trustedCaPem: options.trustedCaPem } : {}),
    ...(options.deliveryTimeoutMs !== undefined ? { deliveryTimeoutMs: options.deliveryTimeoutMs } : {}),
    attemptSlips: rfc2AttemptSlips(faults, rfcAttemptSlips(faults, postHocAttemptSlips(faults))),
  });
  const rate =
    options.rateLimit === false
      ? undefined
      : (options.rateLimit ?? { perWindow: limits.requestsPerMinute, windowMs: 60_000 });
  let origin = '';
  const controlToken = options.controlToken ?? `ctl_${randomBytes(18).toString('base64url')}`;
  const app: FastifyInstance = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { ignoreTrailingSlash: true },
    rewriteUrl: rewriteUrlOf(points),
    forceCloseConnections: true,
    return503OnClosing: false,
    clientErrorHandler: answerUnparsed,
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      reply.code(400).send({ error: 'bad_request', message: error.message });
    },
  });

  // One parser for every content type: the raw body as a string; routes decide what it means.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  // Before the rate limiter: ph-rate-limit-after-auth answers an unauthenticated request first.
  registerPostHocSlips(app, store);
  registerRfcSlips(app, store);
  registerRfc2Slips(app, store);

  const limiter =
    rate === undefined ? undefined : registerRateLimit(app, points, { ...rate, now: rate.now ?? Date.now });

  registerWire(app, points);
  if (variants.list().length > 0) {
    app.addHook('onSend', (request, reply, payload, done) =>
      done(null, rewriteResponse(variants, request.url, reply.statusCode, payload)),
    );
  }

  registerRequestSite(app, points, store);
  const routeOptions: RouteOptions = { store, points, origin: () => origin };
  for (const route of [meRoute, balanceRoute, cdrsRoute, agentsRoute, callsRoute, hooksRoute, hooksIdRoute, docsRoute])
    app.register(route, routeOptions);
  app.register(oauthRoute, { ...routeOptions, tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 3600 });
  const fixtures = (): ReferenceFixtures => fixturesOf(store, origin, controlToken);
  registerControl(app, store, { onReset: () => limiter?.clear(), fixtures });
  registerControlProtocol(app, store, { token: controlToken, points });

  app.setNotFoundHandler(notFound(points));

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
