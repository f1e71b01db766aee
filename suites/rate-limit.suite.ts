/**
 * The request-rate limit. The shared conformance reference runs with its limit off (the other
 * suites would trip it), so this check starts its own reference with the spec's 100 requests
 * per window, the window shortened to 1 s so the run stays fast, and the faults the run's
 * embedded reference has on (target.faults: OCC_REFERENCE_FAULTS, or the self-proof's fault of
 * this run). Its requests go through a client of its own: that server is not the target, and
 * nothing here is sent to a remote target (embedded only).
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { describe } from 'vitest';
import { limits } from '../harness/contract/openapi.ts';
import { check } from '../harness/suite/check.ts';
import { startReferenceServer } from '../reference/server.ts';
import { expandVariantIds } from '../reference/variants.ts';

/**
 * The window, 1 s so the run stays fast. The burst must fit well inside it, which a starved
 * machine may not manage: then the check starts over with a window twice as long (never red for
 * being slow), up to the last; the verdicts are the same whatever the window.
 */
const WINDOWS_MS = [1_000, 2_000, 4_000, 8_000] as const;
const PER_WINDOW = limits.requestsPerMinute;

/** Same reading of the variable as the global set-up. */
function variantsOfThisRun(): string[] {
  return expandVariantIds((process.env.OCC_REFERENCE_VARIANTS ?? '').split(',').map((id) => id.trim()).filter((id) => id !== ''));
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** One request per endpoint of the API, in turn: the limit must count them all together. */
function endpointRequest(index: number): { method: 'GET' | 'POST' | 'DELETE'; path: string; body?: string } {
  const all = [
    { method: 'GET', path: '/me' },
    { method: 'GET', path: '/balance' },
    { method: 'GET', path: '/cdrs?limit=1' },
    { method: 'GET', path: '/agents' },
    // Bodies a correct server refuses (400) after counting them: nothing is created or rung.
    { method: 'POST', path: '/calls', body: JSON.stringify({ aiAgentId: '1', toNumber: 'not-a-phone-number' }) },
    { method: 'POST', path: '/hooks', body: JSON.stringify({ event: 'not.an.event', target_url: 'http://example.invalid/x' }) },
    { method: 'DELETE', path: `/hooks/${randomUUID()}` },
  ] as const;
  return all[index % all.length]!;
}

/** The refusals among answers (429, the usual status; anything else is recorded as shape). */
export function refused(answers: readonly Pick<Answer, 'status'>[]): number {
  return answers.filter((a) => a.status === 429).length;
}

describe('Request rate limit', () => {
  check(`${PER_WINDOW} requests in one window, spread over every endpoint, are all served; the next is refused; after the window requests are served again`, {
    verifies: ['RATE-LIMIT-100-PER-MIN', 'RATE-LIMIT-ENFORCED', 'RATE-LIMIT-ALL-ENDPOINTS', 'RATE-LIMIT-RESPONSE-SHAPE', 'RATE-LIMIT-WINDOW-BEHAVIOUR'],
    // Room for every window of WINDOWS_MS on a starved machine.
    needs: { embedded: true }, requests: 0, timeoutMs: 60_000, ownServer: true,
  }, async (t) => {
    const started = async (windowMs: number) => {
      const server = await startReferenceServer({ rateLimit: { perWindow: PER_WINDOW, windowMs }, faults: [...(t.target.faults ?? [])], variants: variantsOfThisRun() });
      const agent = new Agent({ connections: 32 });
      let closed = false;
      const close = async () => {
        if (closed) return;
        closed = true;
        await agent.close();
        await server.close();
      };
      t.onCleanup(close);
      return { server, agent, close };
    };
    let WINDOW_MS: number = WINDOWS_MS[0];
    let { server, agent, close } = await started(WINDOW_MS);
    const send = async (index: number): Promise<Answer> => {
      const { method, path, body } = endpointRequest(index);
      const response = await request(`${server.baseUrl}${path}`, {
        method, dispatcher: agent, headersTimeout: 5_000, bodyTimeout: 5_000,
        headers: { authorization: `Bearer ${server.fixtures.tokens.all}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body }),
      });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      return { status: response.statusCode, headers, body: await response.body.text() };
    };

    // Sliding or fixed is not said: a fixed window aligned to the clock may start anew during the
    // burst and serve up to twice the limit in one window's time. So the excess must be refused
    // somewhere in the next PER_WINDOW + 1 requests, all sent within one window's time; the window
    // running out before either the refusal or the last of them proves nothing (a busy machine).
    const sendExcess = async (): Promise<{ extra: Answer; sentAfter: number; decided: boolean }> => {
      let extra = await send(PER_WINDOW);
      let sentAfter = 1;
      while (extra.status !== 429 && sentAfter <= PER_WINDOW && Date.now() - firstAt < WINDOW_MS) {
        extra = await send(PER_WINDOW + sentAfter);
        sentAfter += 1;
      }
      return { extra, sentAfter, decided: extra.status === 429 || sentAfter > PER_WINDOW };
    };

    let firstAt = 0;
    let answers: Answer[] = [];
    let burstMs = 0;
    let excess: Awaited<ReturnType<typeof sendExcess>> | undefined;
    for (const windowMs of WINDOWS_MS) {
      if (windowMs !== WINDOW_MS) {
        // Too slow for the last window: a fresh server (nothing counted yet) with a longer one.
        await close();
        WINDOW_MS = windowMs;
        ({ server, agent, close } = await started(WINDOW_MS));
      }
      firstAt = Date.now();
      answers = [];
      excess = undefined;
      // Batches in parallel: the whole burst must fit well inside one window.
      for (let start = 0; start < PER_WINDOW; start += 25) {
        answers.push(...(await Promise.all(Array.from({ length: Math.min(25, PER_WINDOW - start) }, (_, i) => send(start + i)))));
      }
      burstMs = Date.now() - firstAt;
      if (burstMs >= WINDOW_MS * 0.8) continue;
      if (refused(answers) > 0) break; // refused within the limit: the verdict below
      excess = await sendExcess();
      if (excess.decided) break;
    }
    t.ensure(burstMs < WINDOW_MS * 0.8, `the burst of ${PER_WINDOW} requests took ${burstMs} ms, too long to prove anything about a ${WINDOW_MS} ms window (machine overloaded?)`);
    const early = refused(answers);
    t.ensure(early === 0, `${early} of ${PER_WINDOW} requests within one window were refused for rate (first refused: #${answers.findIndex((a) => a.status === 429) + 1}); the limit is ${PER_WINDOW} per window`);
    const { extra, sentAfter, decided } = excess!;
    t.ensure(decided, `the ${PER_WINDOW + sentAfter} requests sent within the ${WINDOW_MS} ms window were all served before ${2 * PER_WINDOW + 1} could be sent in it: too slow to prove anything (machine overloaded?)`);

    const shape = `status ${extra.status}, body ${extra.body.slice(0, 160)}, Retry-After ${extra.headers['retry-after'] ?? '(none)'}, RateLimit-Limit ${extra.headers['ratelimit-limit'] ?? '(none)'}, RateLimit-Remaining ${extra.headers['ratelimit-remaining'] ?? '(none)'}, RateLimit-Reset ${extra.headers['ratelimit-reset'] ?? '(none)'}`;
    t.observe('RATE-LIMIT-RESPONSE-SHAPE', `request ${PER_WINDOW + sentAfter} in the window: ${shape}`);
    t.ensure(extra.status === 429, `${PER_WINDOW + sentAfter} requests within ${Date.now() - firstAt} ms (one ${WINDOW_MS} ms window; spread over every endpoint) were all served, the last with ${extra.status}: the limit must refuse the excess, counting every endpoint`);

    // A whole window after the LAST request: a fixed window that began during the burst is over too.
    const lastAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastAt + WINDOW_MS + 150 - Date.now())));
    const later = await send(0);
    t.observe('RATE-LIMIT-WINDOW-BEHAVIOUR', `${Date.now() - firstAt} ms after the burst began (window ${WINDOW_MS} ms) a request was ${later.status === 429 ? 'still refused' : `served (${later.status})`}; Retry-After had said ${extra.headers['retry-after'] ?? 'nothing'}`);
    t.ensure(later.status !== 429, `a request after the window had passed was still refused (${later.status}): the limit must free up once the window has passed`);
  });
});
