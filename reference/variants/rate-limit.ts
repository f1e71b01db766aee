/** Conformant variants of the rate limit (../routes/rate-limit.ts). ../variants.ts describes each. */
import { variantsAt } from '../points.ts';
import { FixedWindowLimiter } from '../ratelimit.ts';
import { rateLimit } from '../routes/rate-limit.ts';

export default variantsAt(rateLimit, {
  'rate-limit-fixed-window': { limiter: ({ perWindow, windowMs }) => new FixedWindowLimiter(perWindow, windowMs) },
  'rate-limit-plain-429': {
    allowed: () => {},
    refused: ({ reply }) => {
      reply.code(429).type('text/plain; charset=utf-8').send('Too Many Requests');
    },
  },
  // Counted all the same: only the answer past the budget differs.
  'rate-limit-unauthenticated-401': {
    refused: (refusal, next) => {
      if (refusal.request.headers.authorization !== undefined) return next(refusal);
      refusal.reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="api"')
        .send({ error: 'unauthorized', message: 'missing bearer token' });
    },
  },
});
