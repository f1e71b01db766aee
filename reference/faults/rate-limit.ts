/** Faults of the rate limit (../routes/rate-limit.ts). ../faults.ts describes each. */
import { faultsAt } from '../points.ts';
import { rateLimit } from '../routes/rate-limit.ts';

export default faultsAt(rateLimit, {
  'no-rate-limit': { enforced: () => false },
  'rate-limit-half': { limit: (configured) => Math.max(1, Math.floor(configured / 2)) },
  'rate-limit-per-token': {
    client: (request, next) => {
      const bearer = /^Bearer\s+(\S+)/i.exec(request.headers.authorization ?? '')?.[1];
      return bearer === undefined ? `ip ${next(request)}` : `token ${bearer}`;
    },
  },
  'rate-limit-global': { client: () => 'every client' },
  // The client's own X-Forwarded-For taken as its address.
  'nm-forwarded-for-trusted': {
    client: (request, next) => {
      const forwarded = request.headers['x-forwarded-for'];
      return typeof forwarded === 'string' ? forwarded.split(',')[0]!.trim() : next(request);
    },
  },
  // Meant for API clients: a request without credentials (refused 401 anyway) skips the limiter.
  'nm-rate-limit-skips-anonymous': {
    counted: (request, next) => request.headers.authorization !== undefined && next(request),
  },
});
