/**
 * The request before any route takes it, and its answer after: where a fault bends what every
 * operation shares (docs/relations.md). Conformant behaviour changes nothing:
 * - `url`: the URL the router matches is the one received (the router decodes a percent-encoded
 *   unreserved character and keeps a reserved one as data, RFC 3986 §2.2, §2.3);
 * - `sharedAnswer`: no answer is ever shared between two requests (undefined: none is cached);
 * - `precondition`: no precondition is answered before the route's checks;
 * - `acceptable`: every Accept admits the JSON answer (any range, a list, weights): nothing is 406.
 */
import type { FastifyInstance } from 'fastify';
import { site, type Points } from '../points.ts';
import type { ReferenceStore } from '../store.ts';

/** What a request shares with others for a cache: its method, URL and the account of its bearer token. */
export interface Shareable {
  readonly method: string;
  readonly url: string;
  /** The account of the request's bearer token, if it names a token that authenticates (known, live). */
  readonly account: string | undefined;
}

export const requestSite = site('request', {
  /** The URL the router matches, from the method and the URL received. */
  url: ({ url }: { method: string; url: string }): string => url,
  /** The key under which the answer is shared with other requests; undefined: never shared. */
  sharedAnswer: (_request: Shareable): string | undefined => undefined,
  /**
   * A status answered at once, before authentication, from the request's precondition fields
   * (RFC 9110 §13.1); undefined: none. The reference evaluates no precondition (it sends no
   * validator), and RFC 9110 §13.2.1 lets a server evaluate them only after its normal checks.
   */
  precondition: (_request: { method: string; headers: Record<string, unknown> }): number | undefined => undefined,
  /** Whether a request's Accept admits the answer (JSON): any Accept does, the reference never answers 406. */
  acceptable: (_request: { url: string; accept: string | undefined }): boolean => true,
});

/** Fastify's rewriteUrl option: the URL the router matches (`url` point). */
export function rewriteUrlOf(points: Points): (request: { method?: string; url?: string }) => string {
  return (request) => points.of(requestSite).url({ method: request.method ?? 'GET', url: request.url ?? '/' });
}

/** The token record of each Authorization line of a request, in order (undefined: no known token). */
export interface LineRecord {
  readonly line: string;
  readonly scopes: ReadonlySet<string> | undefined;
}

const linesOf = new WeakMap<object, readonly LineRecord[]>();

/** The Authorization lines of a request and their tokens' scopes, as the request site read them. */
export function authorizationLines(request: { raw: object }): readonly LineRecord[] {
  return linesOf.get(request.raw) ?? [];
}

/**
 * How long the first of a shared key holds its answer, in ms (a fault's single-flight; nothing is
 * shared by default): requests with that key arriving meanwhile get the same answer.
 */
const HOLD_MS = 5;

interface Flight {
  /** The credentials of the request whose answer it is (shared only with others'). */
  readonly by: string;
  readonly answer: Promise<{ status: number; type: string; payload: string }>;
  settle(answer: { status: number; type: string; payload: string }): void;
}

/** The hooks of the site: an answer shared under a key is served again, before authentication. */
export function registerRequestSite(app: FastifyInstance, points: Points, store: ReferenceStore): void {
  // Requests in flight by key (a fault's single-flight): a repeat with the same token is a question of
  // freshness, not of principals, so an answer is shared only with requests of other credentials.
  const flights = new Map<string, Flight>();
  const mine = new WeakMap<object, Flight>();
  const keyOf = (request: { method: string; url: string; headers: { authorization?: string } }) => {
    const token = /^bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1];
    const record = token === undefined ? undefined : store.state.tokens.get(token);
    const live =
      record !== undefined &&
      !record.revoked &&
      (record.expiresAt === undefined || record.expiresAt > store.tokenNow());
    const account = live ? record.account : undefined;
    return points.of(requestSite).sharedAnswer({ method: request.method, url: request.url, account });
  };
  app.addHook('onRequest', (request, reply, done) => {
    if (!points.of(requestSite).acceptable({ url: request.url, accept: request.headers.accept })) {
      reply.code(406).send({ error: 'not_acceptable', message: 'only application/json is served' });
      return;
    }
    const early = points.of(requestSite).precondition({ method: request.method, headers: request.headers });
    if (early !== undefined) {
      reply.code(early).send(early === 304 ? undefined : { error: 'precondition_failed', message: 'precondition' });
      return;
    }
    const raw = request.raw.rawHeaders;
    const lines: LineRecord[] = [];
    for (let i = 0; i < raw.length; i += 2) {
      if (raw[i]!.toLowerCase() !== 'authorization') continue;
      const token = /^bearer +(\S+) *$/i.exec(raw[i + 1] ?? '')?.[1];
      lines.push({
        line: raw[i + 1]!,
        scopes: token === undefined ? undefined : store.state.tokens.get(token)?.scopes,
      });
    }
    if (lines.length > 1) linesOf.set(request.raw, lines);
    const key = keyOf(request);
    if (key === undefined) return done();
    const by = request.headers.authorization ?? '';
    const flight = flights.get(key);
    if (flight !== undefined && flight.by !== by) {
      void flight.answer.then((hit) => reply.code(hit.status).type(hit.type).send(hit.payload));
      return;
    }
    if (flight !== undefined) return done();
    let settle: Flight['settle'] = () => {};
    const answer = new Promise<{ status: number; type: string; payload: string }>((resolve) => {
      settle = resolve;
    });
    const started: Flight = { by, answer, settle };
    flights.set(key, started);
    mine.set(request.raw, started);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const flight = mine.get(request.raw);
    if (flight === undefined) return done(null, payload);
    mine.delete(request.raw);
    const answer = {
      status: reply.statusCode,
      type: String(reply.getHeader('content-type') ?? 'application/json'),
      payload: typeof payload === 'string' ? payload : '',
    };
    // Held a moment, so the requests arriving meanwhile join it; then the key is free again.
    setTimeout(() => {
      flight.settle(answer);
      for (const [key, f] of flights) if (f === flight) flights.delete(key);
      done(null, payload);
    }, HOLD_MS);
  });
}
