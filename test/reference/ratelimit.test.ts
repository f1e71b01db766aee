/**
 * The /v1 rate limit: a sliding-window log per client IP on the real clock, 429 with the
 * assumed shape, RateLimit-* headers on every /v1 answer, control and OAuth routes exempt;
 * plus the limiter and the timestamp parser as units.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limits } from '../../contract/openapi.ts';
import { FixedWindowLimiter, SlidingWindowLimiter } from '../../reference/ratelimit.ts';
import { startReferenceServer } from '../../reference/server.ts';
import type { ReferenceServer } from '../../reference/server.ts';
import { parseDateTime } from '../../reference/timestamps.ts';
import { createSeededState } from '../../reference/seed.ts';
import { api, control, expectResponse, http } from './helpers.ts';

let server: ReferenceServer;
const PER = 5;
const WINDOW = 1500;

beforeAll(async () => {
  server = await startReferenceServer({ rateLimit: { perWindow: PER, windowMs: WINDOW } });
});
afterAll(() => server.close());

describe('rate limit over HTTP', () => {
  it('admits perWindow requests across endpoints, refuses more with 429 rate_limited, then recovers', async () => {
    const token = server.fixtures.tokens.all;
    const paths = ['/me', '/balance', '/agents', '/nope', '/openapi.json'];
    for (const [i, path] of paths.entries()) {
      const r = await api(server, 'GET', path, { token });
      expect(r.status, path).not.toBe(429);
      expect(r.headers['ratelimit-limit']).toBe(String(PER));
      expect(r.headers['ratelimit-remaining']).toBe(String(PER - i - 1));
      expect(Number(r.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    }
    const refused = await api(server, 'GET', '/me', { token });
    expectResponse('GET', '/me', refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    // Exempt: control and OAuth.
    expect((await control(server, 'GET', '/clock')).status).toBe(200);
    expect((await http('GET', `${server.authUrl}/.well-known/oauth-authorization-server`)).status).toBe(200);
    // Refusals don't count: after the window, the full quota is back.
    await new Promise((r) => setTimeout(r, WINDOW + 100));
    const again = await api(server, 'GET', '/me', { token });
    expect(again.status).toBe(200);
    expect(again.headers['ratelimit-remaining']).toBe(String(PER - 1));
  });

  it('reads the clock the caller gives it (rateLimit.now), not Date.now, when one is given', async () => {
    let clockMs = Date.now();
    const s = await startReferenceServer({ rateLimit: { perWindow: 2, windowMs: 60_000, now: () => clockMs } });
    try {
      const token = s.fixtures.tokens.all;
      expect((await api(s, 'GET', '/me', { token })).status).toBe(200);
      expect((await api(s, 'GET', '/me', { token })).status).toBe(200);
      const refused = await api(s, 'GET', '/me', { token });
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('60');
      clockMs += 59_000; // still inside the minute on the given clock, whatever real time passed
      expect((await api(s, 'GET', '/me', { token })).status).toBe(429);
      clockMs += 1_001;
      expect((await api(s, 'GET', '/me', { token })).status).toBe(200);
    } finally {
      await s.close();
    }
    await expect(
      startReferenceServer({ rateLimit: { perWindow: 2, windowMs: 60_000, now: 5 as unknown as () => number } }),
    ).rejects.toThrow(/rateLimit.now must be a function/);
  });

  it("the default is the spec's 100 per minute", async () => {
    const s = await startReferenceServer();
    try {
      const r = await api(s, 'GET', '/me', { token: s.fixtures.tokens.all });
      expect(r.headers['ratelimit-limit']).toBe(String(limits.requestsPerMinute));
    } finally {
      await s.close();
    }
  });
});

describe('SlidingWindowLimiter', () => {
  it('allows at most perWindow in any trailing window, not a fixed one', () => {
    const l = new SlidingWindowLimiter(3, 1000);
    expect([0, 100, 900].map((t) => l.check('a', t).allowed)).toEqual([true, true, true]);
    expect(l.check('a', 999).allowed).toBe(false);
    expect(l.check('a', 1000).allowed).toBe(true); // the entry at 0 left the window (0 + 1000 ≤ 1000)
    expect(l.check('a', 1050).allowed).toBe(false);
    expect(l.check('b', 1050).allowed).toBe(true);
    const d = l.check('a', 1050);
    expect(d.retryAfterSeconds).toBe(1);
    expect(d.remaining).toBe(0);
  });

  it('grows its ring buffer up to perWindow', () => {
    const l = new SlidingWindowLimiter(1000, 60_000);
    let allowed = 0;
    for (let i = 0; i < 1200; i++) if (l.check('x', i).allowed) allowed++;
    expect(allowed).toBe(1000);
  });
});

describe('parseDateTime', () => {
  it('reads RFC 3339 date-times with any offset', () => {
    expect(parseDateTime('2026-01-31T12:00:00Z')).toBe(Date.UTC(2026, 0, 31, 12));
    expect(parseDateTime('2026-01-31T14:00:00+02:00')).toBe(Date.UTC(2026, 0, 31, 12));
    expect(parseDateTime('2026-01-31T07:30:00.5-04:30')).toBe(Date.UTC(2026, 0, 31, 12, 0, 0, 500));
    expect(parseDateTime('2026-01-31t12:00:00.123456789z')).toBe(Date.UTC(2026, 0, 31, 12, 0, 0, 123));
    expect(parseDateTime('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
    expect(parseDateTime('2026-01-31T14:00:00 02:00')).toBe(Date.UTC(2026, 0, 31, 12));
  });

  it('refuses date-only, offset-less and out-of-range values', () => {
    for (const bad of [
      '2026-01-31',
      '2026-01-31T12:00:00',
      '2026-13-01T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:60:00Z',
      '2026-01-01T00:00:00+24:00',
      '20260131T120000Z',
      '2026-01-31T12:00:00,5Z',
      'now',
      '',
    ]) {
      expect(parseDateTime(bad), bad).toBeUndefined();
    }
  });
});

describe('seed', () => {
  it('is deterministic and holds more than 1,000 CDRs in a 31-day window', () => {
    const a = createSeededState(7, 1_800_000_000_000);
    const b = createSeededState(7, 1_800_000_000_000);
    expect(a.fixtureTokens).toEqual(b.fixtureTokens);
    expect(a.cdrs.get('main')!.map((r) => r.row)).toEqual(b.cdrs.get('main')!.map((r) => r.row));
    expect(createSeededState(8, 1_800_000_000_000).fixtureTokens.all).not.toBe(a.fixtureTokens.all);
    const rows = a.cdrs.get('main')!;
    expect(rows.length).toBeGreaterThanOrEqual(3000);
    expect(rows.filter((r) => r.startMs >= 1_800_000_000_000 - 31 * 86_400_000).length).toBeGreaterThan(1000);
    expect(rows.some((r) => r.row.did === null)).toBe(true);
  });
});

describe('the limiters refuse arguments that make no limit', () => {
  it.each([
    ['sliding', SlidingWindowLimiter],
    ['fixed', FixedWindowLimiter],
  ] as const)('the %s-window limiter wants a whole number ≥ 1 per a window > 0 ms', (_, Limiter) => {
    for (const perWindow of [0, -1, 1.5, Number.NaN])
      expect(() => new Limiter(perWindow, 1_000)).toThrow(/perWindow must be an integer ≥ 1/);
    for (const windowMs of [0, -5, Number.NaN])
      expect(() => new Limiter(100, windowMs)).toThrow(/windowMs must be > 0/);
    expect(new Limiter(100, 60_000)).toMatchObject({ limit: 100, windowMs: 60_000 });
  });
});
