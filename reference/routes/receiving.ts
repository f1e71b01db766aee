/**
 * The requests of one route received and not yet at their handler: what a fault that models a race
 * (a read, a store's round trip, a write back) overlaps with. A request counts from the moment its
 * head arrives (onRequest) until its handler starts (preHandler) or it is answered (onResponse).
 *
 * Two requests a client sends at once overlap on a real server because both arrive before the
 * first one's write. A round trip of fixed length models that only while the host reads the second
 * request within it; a starved host may not (its event loop takes turns of tens of milliseconds),
 * and the fault would then not be there to catch. So a fault's round trip also lasts as long as a
 * request already received is still on its way to the handler (storeRoundTrip).
 */
import type { FastifyRequest } from 'fastify';

export interface Receiving {
  /** Route options that keep the count. */
  readonly hooks: {
    onRequest(request: FastifyRequest): Promise<void>;
    preHandler(request: FastifyRequest): Promise<void>;
    onResponse(request: FastifyRequest): Promise<void>;
  };
  /** Requests received and not yet at their handler. */
  count(): number;
}

export function receiving(): Receiving {
  const waiting = new Set<FastifyRequest>();
  return {
    hooks: {
      onRequest: async (request) => {
        waiting.add(request);
      },
      preHandler: async (request) => {
        waiting.delete(request);
      },
      onResponse: async (request) => {
        waiting.delete(request);
      },
    },
    count: () => waiting.size,
  };
}

/** A store's round trip in a fault: the fixed part. */
export const ROUND_TRIP_MS = 20;
/** The longest a round trip waits for requests received meanwhile to reach their handler. */
export const ROUND_TRIP_MAX_MS = 2_000;

/**
 * A store's round trip, as a fault that races models it: ROUND_TRIP_MS, and then as long as a
 * request of the route received meanwhile has not reached its handler (at most ROUND_TRIP_MAX_MS).
 */
export async function storeRoundTrip(received: () => number): Promise<void> {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await sleep(ROUND_TRIP_MS);
  // After a pause of the whole process the loop runs its timers before it reads the sockets: let it
  // read what arrived meanwhile (its onRequest) before asking what was received.
  await new Promise((resolve) => setImmediate(resolve));
  for (let waited = ROUND_TRIP_MS; received() > 0 && waited < ROUND_TRIP_MAX_MS; waited += 5) await sleep(5);
}
