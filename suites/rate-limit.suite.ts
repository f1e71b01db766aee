/**
 * The request-rate limit. The shared conformance reference runs with its limit off (the other
 * suites would trip it), so this check has a reference of its own started (the run's starter,
 * through the run channel: harness/run/own-reference.ts) with the spec's 100 requests per minute
 * and the faults the run's embedded reference has on (OCC_REFERENCE_FAULTS, or the self-proof's
 * fault of this run). That server's limiter reads a clock only the check moves: the burst happens
 * at one instant, however slow the machine, and the minute passes without being waited out. Its
 * requests go through a client of its own: that server is not the target, and nothing here is
 * sent to a remote target (embedded only; a remote target's limit is probed in real time by the
 * k6 probe, `--with-load`).
 */
import { randomUUID } from 'node:crypto';
import { createAddressClient } from '../harness/http/address-client.ts';
import { describe } from 'vitest';
import { limits } from '../contract/openapi.ts';
import { check } from '../harness/checks/check.ts';
import { startOwnReference } from '../harness/run/own-reference.ts';
import { refused, type Answer } from './rules/rate-limit.ts';

/** The spec's window: a minute, on the limiter's clock that the check moves. */
const WINDOW_MS = 60_000;
const PER_WINDOW = limits.requestsPerMinute;

/** One request per endpoint of the API, in turn: the limit must count them all together. */
function endpointRequest(index: number): { method: 'GET' | 'POST' | 'DELETE'; path: string; body?: string } {
  const all = [
    { method: 'GET', path: '/me' },
    { method: 'GET', path: '/balance' },
    { method: 'GET', path: '/cdrs?limit=1' },
    { method: 'GET', path: '/agents' },
    // Bodies a correct server refuses (400) after counting them: nothing is created or rung.
    { method: 'POST', path: '/calls', body: JSON.stringify({ aiAgentId: '1', toNumber: 'not-a-phone-number' }) },
    {
      method: 'POST',
      path: '/hooks',
      body: JSON.stringify({ event: 'not.an.event', target_url: 'http://example.invalid/x' }),
    },
    { method: 'DELETE', path: `/hooks/${randomUUID()}` },
  ] as const;
  return all[index % all.length]!;
}

describe('Request rate limit', () => {
  check(
    `${PER_WINDOW} requests in a window over all endpoints are served, the next refused until the window passes`,
    {
      verifies: [
        'RATE-LIMIT-100-PER-MIN',
        'RATE-LIMIT-ENFORCED',
        'RATE-LIMIT-ALL-ENDPOINTS',
        'RATE-LIMIT-RESPONSE-SHAPE',
        'RATE-LIMIT-WINDOW-BEHAVIOUR',
      ],
      needs: { embedded: true },
      requests: 0,
      ownServer: true,
    },
    async (t) => {
      // The limiter's clock stands still during the burst, so a fixed window cannot start anew in it.
      const server = await startOwnReference({ perWindow: PER_WINDOW, windowMs: WINDOW_MS });
      const own = createAddressClient({ baseUrl: server.baseUrl, connections: 32 });
      t.onCleanup(async () => {
        await own.close();
        await server.close();
      });
      const send = async (index: number): Promise<Answer> => {
        const { method, path, body } = endpointRequest(index);
        const answer = await own.send({
          method,
          path,
          headers: { authorization: `Bearer ${server.tokens.all}` },
          ...(body === undefined ? {} : { body }),
        });
        return answer === 'unreachable' ? t.fail(`no local address reaches ${server.baseUrl}`) : answer;
      };

      // The whole burst at one instant of the limiter's clock, in parallel batches.
      const answers: Answer[] = [];
      for (let start = 0; start < PER_WINDOW; start += 25) {
        answers.push(
          ...(await Promise.all(Array.from({ length: Math.min(25, PER_WINDOW - start) }, (_, i) => send(start + i)))),
        );
      }
      const early = refused(answers);
      t.ensure(
        early === 0,
        `${early} of ${PER_WINDOW} requests within one window were refused for rate (first refused: ` +
          `#${answers.findIndex((a) => a.status === 429) + 1}); the limit is ${PER_WINDOW} per window`,
      );

      // Sliding or fixed is not said; either way the next request at the same instant is the excess.
      const extra = await send(PER_WINDOW);
      const shape =
        `status ${extra.status}, body ${extra.body.slice(0, 160)}, Retry-After ` +
        `${extra.headers['retry-after'] ?? '(none)'}, RateLimit-Limit ` +
        `${extra.headers['ratelimit-limit'] ?? '(none)'}, RateLimit-Remaining ` +
        `${extra.headers['ratelimit-remaining'] ?? '(none)'}, RateLimit-Reset ` +
        `${extra.headers['ratelimit-reset'] ?? '(none)'}`;
      t.observe('RATE-LIMIT-RESPONSE-SHAPE', `request ${PER_WINDOW + 1} in the window: ${shape}`);
      t.ensure(
        extra.status === 429,
        `${PER_WINDOW + 1} requests within one ${WINDOW_MS / 1000} s window (spread over every endpoint) were ` +
          `all served, the last with ${extra.status}: the limit must refuse the excess, counting every endpoint`,
      );

      // A whole window (and a second) after the last request: a fixed window is over too.
      await server.advanceClock(WINDOW_MS + 1_000);
      const later = await send(0);
      t.observe(
        'RATE-LIMIT-WINDOW-BEHAVIOUR',
        `${(WINDOW_MS + 1_000) / 1000} s after the burst (on the limiter's clock, moved by the check) a ` +
          `request was ${later.status === 429 ? 'still refused' : `served (${later.status})`}; Retry-After had ` +
          `said ${extra.headers['retry-after'] ?? 'nothing'}`,
      );
      t.ensure(
        later.status !== 429,
        `a request after the window had passed was still refused (${later.status}): the limit must free up ` +
          `once the window has passed`,
      );
    },
  );
});
