/**
 * A real HTTPS webhook receiver for the Outbound Calling API v1 (spec, Events › Delivery rules).
 * Tests, conformance suites and k6 scripts point POST /hooks target_urls at it and then read
 * what arrived: in this process (the Receiver's methods) or over its query API.
 *
 * Its parts, each described where it is written:
 *   ./receiver-handlers.ts  deliveries (their order of checks and answers), the query API under
 *                           /_receiver/ (its routes, the token) and store-only mode
 *   ./receiver-state.ts     what a Delivery keeps of the request, and the memory bounds (a ring
 *                           buffer of deliveries, registrations and eventIds capped, maxAgeMs)
 *   ./receiver-plan.ts      the paths a delivery may use and the response plans that answer it
 * This file checks the options, listens (on its port, and on the optional loopback query port)
 * and closes; every name the suite imports from the receiver is exported here.
 */
import { createServer as createPlainServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  type HandlerSettings,
  type Handling,
  handleQueryOnly,
  handleRequest,
  registerPath,
} from './receiver-handlers.ts';
import { isPositiveInt, type ResponsePlan } from './receiver-plan.ts';
import { createReceiverState, type Delivery, type StateSettings } from './receiver-state.ts';

export { bearerMatches } from './receiver-handlers.ts';
export { type PlanStep, type ResponsePlan, takeStep, validatePath, validatePlan } from './receiver-plan.ts';
export type { Delivery } from './receiver-state.ts';

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
  /**
   * Registers `path` or updates the fields given. Without a secret the path is reserved: what
   * arrives is kept, answered by the plan, and judged once the secret is registered.
   * `perEvent`: each eventId takes the plan from its first step (default: one plan for the path's arrivals).
   */
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

/** The options resolved to their defaults and checked, as the state and the handlers take them. */
interface Settings extends HandlerSettings, StateSettings {
  readonly host: string;
  readonly publicUrl: string | undefined;
}

/** Why the receiver could not start, naming the variable that fixes it: one line. */
export function describeStartError(e: unknown, options: ReceiverOptions): string {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'EADDRINUSE')
    return `port ${options.port} is already in use (another receiver or run?); set RECEIVER_PORT to a free port`;
  if (err.code === 'EADDRNOTAVAIL') return `RECEIVER_HOST=${options.host} is not an address of this machine`;
  if (options.tls)
    return (
      `the certificate or key could not be used (${err.message}); ` +
      'check RECEIVER_TLS_CERT / RECEIVER_TLS_KEY are a matching PEM pair'
    );
  return `could not start (${err.message})`;
}

/** Resolves `options` to their defaults; throws TypeError or RangeError on an invalid one. */
function resolveOptions(options: ReceiverOptions): Settings {
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
  return {
    host,
    publicUrl,
    storeOnly,
    token,
    maxBodyBytes,
    toleranceSeconds: tolerance,
    maxPaths,
    maxAgeMs,
    maxDeliveries: options.maxDeliveries ?? DEFAULT_MAX_DELIVERIES,
    maxTrackedEventIds: options.maxTrackedEventIds ?? DEFAULT_MAX_TRACKED_EVENT_IDS,
  };
}

export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const settings = resolveOptions(options);
  const { host } = settings;
  const generated = options.tls || options.plainHttp === true ? undefined : await generateTlsMaterial();
  const tlsMaterial = options.tls ?? generated;
  const caCertPem = generated?.caCertPem ?? options.tls?.caCertPem;

  const state = createReceiverState(settings);
  const handling: Handling = { state, settings, held: new Set() };
  const handler = (req: IncomingMessage, res: ServerResponse): void => handleRequest(handling, req, res);
  // A delivery without Host is kept and judged (RFC 9112 §3.2 is the sender's MUST: the protocol
  // lint fails it), not refused by Node before the receiver sees it.
  const lenient = { requireHostHeader: false };
  const server =
    tlsMaterial === undefined
      ? createPlainServer(lenient, handler)
      : createServer({ ...lenient, cert: tlsMaterial.cert, key: tlsMaterial.key }, handler);
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
    const only = createPlainServer((req, res) => handleQueryOnly(handling, req, res));
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
      for (const res of handling.held) res.socket?.destroy();
      handling.held.clear();
      server.closeAllConnections();
    });
    return closing;
  }

  return {
    url: settings.publicUrl ?? localUrl,
    localUrl,
    queryUrl,
    caCertPem,
    register: (path, setup) => registerPath(handling, path, setup),
    setPlan: state.setPlan,
    deliveries: (path?: string) => state.deliveries(path),
    clear: state.clear,
    close,
  };
}
