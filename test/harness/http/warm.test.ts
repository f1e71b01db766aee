/**
 * Requests sent together (client.sendTogether): each goes on a connection opened before any of them
 * was sent, so none waits for a connection of its own after the others left; warmed connections
 * no request took are closed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../harness/http/client.ts';
import { createWarmConnections } from '../../../harness/http/warm.ts';

interface Seen {
  /** Connections accepted, in order, with the requests each carried. */
  readonly connections: Array<{ requests: string[]; closed: boolean }>;
  /** How many connections were open when the first request arrived. */
  openAtFirstRequest: number | undefined;
}

let server: Server | undefined;

async function recordingServer(): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { connections: [], openAtFirstRequest: undefined };
  const of = new WeakMap<Socket, { requests: string[]; closed: boolean }>();
  server = createServer((request, response) => {
    seen.openAtFirstRequest ??= seen.connections.filter((c) => !c.closed).length;
    of.get(request.socket)!.requests.push(`${request.method} ${request.url}`);
    request.resume();
    request.on('end', () => response.end('{}'));
  });
  server.on('connection', (socket: Socket) => {
    const connection = { requests: [], closed: false };
    seen.connections.push(connection);
    of.set(socket, connection);
    socket.on('close', () => {
      connection.closed = true;
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

afterEach(async () => {
  const open = server;
  server = undefined;
  if (open === undefined) return;
  open.closeAllConnections();
  await new Promise((resolve) => open.close(resolve));
});

/**
 * A server in a thread of its own that counts requests; `both` is set (and notified) when two
 * arrived, so this thread can block on it and see what was on the wire without its event loop.
 */
async function countingServerThread(): Promise<{ url: string; both: Int32Array; worker: Worker }> {
  const both = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(
    `const { createServer } = require('node:http');
     const { parentPort, workerData: { both } } = require('node:worker_threads');
     let seen = 0;
     const server = createServer((request, response) => {
       seen += 1;
       if (seen === 2) { Atomics.store(both, 0, 1); Atomics.notify(both, 0); }
       request.resume();
       request.on('end', () => response.end('{}'));
     });
     server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
    { eval: true, workerData: { both } },
  );
  const port = await new Promise<number>((resolve) => worker.once('message', resolve));
  return { url: `http://127.0.0.1:${port}`, both, worker };
}

describe('warmed connections', () => {
  // With one idle connection in the pool, the first request leaves on it at once and the second
  // waits for a connection of its own, a turn of the event loop later. Warmed, both are on the wire
  // before the loop turns: this thread blocks right after sending, and the server still gets both.
  it('put two requests on the wire before the event loop turns, with an idle connection in the pool', async () => {
    const { url, both, worker } = await countingServerThread();
    const warm = createWarmConnections({ timeoutMs: 5_000 });
    const agent = new Agent({ connections: 8, connect: warm.connector });
    try {
      await (await agent.request({ origin: url, path: '/first', method: 'GET' })).body.text();
      Atomics.store(both, 0, 0);
      await warm.warm(new URL(url), 2);
      const sent = [1, 2].map(() => agent.request({ origin: url, path: '/hooks/a', method: 'DELETE' }));
      // A microtask queued after both dispatches runs after the warmed connections were handed over;
      // blocking in it keeps the event loop from polling (a hang guard of 10 s, not a speed limit).
      const outcome = await new Promise((resolve) => queueMicrotask(() => resolve(Atomics.wait(both, 0, 0, 10_000))));
      warm.drop();
      await Promise.all(sent.map(async (answer) => (await answer).body.text()));
      expect(outcome).not.toBe('timed-out');
    } finally {
      await agent.close();
      await worker.terminate();
    }
  });
});

describe('sendTogether', () => {
  it('sends each request on a connection that was open before the first one arrived', async () => {
    const { url, seen } = await recordingServer();
    const api = createApiClient({ baseUrl: url, timeoutMs: 5_000, requestsPerMinute: undefined });
    try {
      const request = { method: 'POST', path: '/hooks', json: { event: 'dnc.added' } };
      const answers = await api.sendTogether([request, request]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(seen.openAtFirstRequest).toBe(2);
      expect(seen.connections.map((c) => c.requests)).toEqual([['POST /v1/hooks'], ['POST /v1/hooks']]);
    } finally {
      await api.close();
    }
  });

  it('uses an idle connection of the pool beside a warmed one, and closes the warmed one left over', async () => {
    const { url, seen } = await recordingServer();
    const api = createApiClient({ baseUrl: url, timeoutMs: 5_000, requestsPerMinute: undefined });
    try {
      await api.send({ method: 'GET', path: '/me' });
      const answers = await api.sendTogether([
        { method: 'DELETE', path: '/hooks/a' },
        { method: 'DELETE', path: '/hooks/a' },
      ]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const carried = seen.connections.flatMap((c) => c.requests).sort();
      expect(carried).toEqual(['DELETE /v1/hooks/a', 'DELETE /v1/hooks/a', 'GET /v1/me']);
      // Three connections: the pool's idle one, two warmed; the warmed one no request took is closed.
      expect(seen.connections).toHaveLength(3);
      await expect.poll(() => seen.connections.filter((c) => c.requests.length === 0 && !c.closed)).toEqual([]);
    } finally {
      await api.close();
    }
  });

  it('answers a target that refuses connections with a transport error per request, not a throw', async () => {
    const api = createApiClient({ baseUrl: 'http://127.0.0.1:1/v1', timeoutMs: 2_000, requestsPerMinute: undefined });
    try {
      const answers = await api.sendTogether([
        { method: 'GET', path: '/me' },
        { method: 'GET', path: '/me' },
      ]);
      expect(answers.map((a) => a.transportError)).toEqual([
        expect.stringMatching(/connection refused/),
        expect.stringMatching(/connection refused/),
      ]);
    } finally {
      await api.close();
    }
  });
});
