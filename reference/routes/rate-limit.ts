/**
 * The rate limit (spec: Limits): every /v1 request (API, openapi.json, docs, unknown /v1 paths)
 * counts per client IP in a sliding-window log (../ratelimit.ts) on the REAL clock (or one the
 * caller moves), never the virtual one; the control and OAuth routes are exempt (they are not part
 * of {base_url}). Every /v1 answer carries RateLimit-Limit, RateLimit-Remaining and
 * RateLimit-Reset; a refusal is 429 {error: 'rate_limited', message} with Retry-After in whole
 * seconds (rounded up).
 *
 * The client IP is the socket's remote address (no trustProxy: no header picks the bucket), so a
 * client bound to 127.0.0.2 is another client than one on 127.0.0.1.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { site, type Points } from '../points.ts';
import { SlidingWindowLimiter, type FixedWindowLimiter, type RateDecision } from '../ratelimit.ts';

export type Limiter = SlidingWindowLimiter | FixedWindowLimiter;

export const rateLimit = site('rate limit', {
  /** The limiter: a sliding-window log per client. */
  limiter: ({ perWindow, windowMs }: { perWindow: number; windowMs: number }): Limiter =>
    new SlidingWindowLimiter(perWindow, windowMs),
  enforced: (): boolean => true,
  /** The client a request counts for: its address. */
  client: (request: FastifyRequest): string => request.socket.remoteAddress ?? request.ip,
  /** Whether a request counts toward its client's budget: every one, whatever credentials it carries. */
  counted: (_request: FastifyRequest): boolean => true,
  /** The requests a client may send in a window. */
  limit: (configured: number): number => configured,
  /** The answer to a request the limit lets through: its budget in the RateLimit headers. */
  allowed: ({ reply, decision }: { reply: FastifyReply; decision: RateDecision }): void => {
    reply.header('ratelimit-limit', decision.limit);
    reply.header('ratelimit-remaining', decision.remaining);
    reply.header('ratelimit-reset', decision.resetSeconds);
  },
  /** The answer to a request over the limit: 429 rate_limited, Retry-After and the RateLimit headers. */
  refused: ({
    reply,
    decision,
    limiter,
  }: {
    reply: FastifyReply;
    decision: RateDecision;
    limiter: Limiter;
    request: FastifyRequest;
  }): void => {
    reply.header('ratelimit-limit', decision.limit);
    reply.header('ratelimit-remaining', decision.remaining);
    reply.header('ratelimit-reset', decision.resetSeconds);
    reply.header('retry-after', decision.retryAfterSeconds);
    reply.code(429).send({
      error: 'rate_limited',
      message:
        `more than ${limiter.limit} requests in ${limiter.windowMs / 1000} s from this address; ` +
        `retry after ${decision.retryAfterSeconds} s`,
    });
  },
});

/** Limits every /v1 request to `perWindow` per `windowMs` of `now`; returns the limiter (reset clears it). */
export function registerRateLimit(
  app: FastifyInstance,
  points: Points,
  rate: { perWindow: number; windowMs: number; now: () => number },
): Limiter {
  const limiter = points.of(rateLimit).limiter(rate);
  app.addHook('onRequest', (request, reply, done) => {
    const at = points.of(rateLimit);
    if (!request.url.startsWith('/v1') || !at.enforced() || !at.counted(request)) return done();
    const decision = limiter.check(at.client(request), rate.now(), at.limit(limiter.limit));
    if (!decision.allowed) return at.refused({ reply, decision, limiter, request });
    at.allowed({ reply, decision });
    done();
  });
  return limiter;
}
