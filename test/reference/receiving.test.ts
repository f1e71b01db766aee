/**
 * A race fault's store round trip (reference/routes/receiving.ts): it lasts while a request of its
 * route is received and not yet at its handler, so two requests a client sends at once overlap
 * however slowly the host reads the second; and it is bounded.
 */
import { connect, createServer, type AddressInfo } from 'node:net';
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

/**
 * Starts a round trip on fake timers (setImmediate stays real: the trip reads the sockets once, a
 * turn of the real loop, after its fixed part); the getter says whether it has ended.
 */
function roundTrip(received: () => number): () => boolean {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  let done = false;
  void storeRoundTrip(received).then(() => {
    done = true;
  });
  return () => done;
}

/** One turn of the real event loop, and the promise callbacks it lets run. */
const oneTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('storeRoundTrip', () => {
  it('lasts its fixed part, then until no request received meanwhile is on its way', async () => {
    let received = 1;
    const done = roundTrip(() => received);
    await vi.advanceTimersByTimeAsync(ROUND_TRIP_MS);
    await oneTurn();
    await vi.advanceTimersByTimeAsync(200);
    expect(done()).toBe(false);
    received = 0;
    await vi.advanceTimersByTimeAsync(10);
    await oneTurn();
    expect(done()).toBe(true);
  });

  it('reads what arrived while the whole process was paused before it asks what was received', async () => {
    // A starved host: the second request reaches the socket while the process is paused past the
    // fixed part; on resume the loop runs its timers before it reads the socket.
    const order: string[] = [];
    let received = 0;
    const server = createServer((socket) =>
      socket.once('data', () => {
        order.push('second request read');
        received += 1;
        setTimeout(() => {
          received -= 1;
        }, 30);
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // Both ends connected first: only the request's bytes arrive during the pause.
    const accepted = new Promise((resolve) => server.once('connection', resolve));
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await Promise.all([accepted, new Promise((resolve) => client.once('connect', resolve))]);
    try {
      const trip = storeRoundTrip(() => received).then(() => order.push('round trip ended'));
      client.write('POST /v1/hooks');
      const pausedUntil = Date.now() + ROUND_TRIP_MS * 3;
      while (Date.now() < pausedUntil); // the pause
      await trip;
      expect(order).toEqual(['second request read', 'round trip ended']);
    } finally {
      client.destroy();
      server.close();
    }
  });

  it('lasts only its fixed part when nothing else was received', async () => {
    const done = roundTrip(() => 0);
    await vi.advanceTimersByTimeAsync(ROUND_TRIP_MS - 1);
    await oneTurn();
    expect(done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await oneTurn();
    expect(done()).toBe(true);
  });

  it('ends at its bound while a request never reaches its handler', async () => {
    const done = roundTrip(() => 1);
    await vi.advanceTimersByTimeAsync(ROUND_TRIP_MS);
    await oneTurn();
    await vi.advanceTimersByTimeAsync(ROUND_TRIP_MAX_MS - ROUND_TRIP_MS - 10);
    expect(done()).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    expect(done()).toBe(true);
  });
});
