/**
 * A race fault's store round trip (reference/routes/receiving.ts): it lasts while a request of its
 * route is received and not yet at its handler, so two requests a client sends at once overlap
 * however slowly the host reads the second; and it is bounded.
 */
import type { FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { receiving, ROUND_TRIP_MAX_MS, ROUND_TRIP_MS, storeRoundTrip } from '../../reference/routes/receiving.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('receiving', () => {
  it('counts a request from its head until its handler starts, or until it is answered', async () => {
    const { hooks, count } = receiving();
    const [a, b] = [{ id: 'a' }, { id: 'b' }] as unknown as FastifyRequest[];
    await hooks.onRequest(a!);
    await hooks.onRequest(b!);
    expect(count()).toBe(2);
    await hooks.preHandler(a!);
    expect(count()).toBe(1);
    // Refused before its handler (a body that does not parse): answered, no longer counted.
    await hooks.onResponse(b!);
    await hooks.onResponse(a!);
    expect(count()).toBe(0);
  });
});

/** Starts a round trip on fake timers; the getter says whether it has ended. */
function roundTrip(received: () => number): () => boolean {
  vi.useFakeTimers();
  let done = false;
  void storeRoundTrip(received).then(() => {
    done = true;
  });
  return () => done;
}

describe('storeRoundTrip', () => {
  it('lasts its fixed part, then until no request received meanwhile is on its way', async () => {
    let received = 1;
    const done = roundTrip(() => received);
    await vi.advanceTimersByTimeAsync(ROUND_TRIP_MS + 200);
    expect(done()).toBe(false);
    received = 0;
    await vi.advanceTimersByTimeAsync(10);
    expect(done()).toBe(true);
  });

  it('lasts only its fixed part when nothing else was received', async () => {
    const done = roundTrip(() => 0);
    await vi.advanceTimersByTimeAsync(ROUND_TRIP_MS - 1);
    expect(done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done()).toBe(true);
  });

  it('ends at its bound while a request never reaches its handler', async () => {
    const done = roundTrip(() => 1);
    await vi.advanceTimersByTimeAsync(ROUND_TRIP_MAX_MS + 10);
    expect(done()).toBe(true);
  });
});
