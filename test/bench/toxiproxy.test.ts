/**
 * bench/toxiproxy.ts does what it says, against the pinned server and a tiny node:http server, all
 * on loopback: a plain request passes through the proxy; each toxic the network-fault benchmark
 * relies on acts (reset_peer resets, limit_data cuts a body, latency delays: a lower bound only, so
 * a busy machine cannot fail it); stopping leaves no process behind. The server is never built
 * here (no network): a missing build fails with the command that makes it (.ci/run runs it).
 */
import { createServer, get, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackAddress, startToxiproxy, type ToxiproxyServer, toxiproxyBinary } from '../../bench/toxiproxy.ts';

const BIG = 200_000;

interface Fetched {
  readonly status?: number;
  readonly bytes: number;
  readonly error?: NodeJS.ErrnoException;
  readonly ms: number;
}

/** One GET on a fresh connection (Toxiproxy draws and applies toxics per connection); never rejects. */
function fetchThrough(port: number, path: string): Promise<Fetched> {
  const started = performance.now();
  return new Promise((resolve) => {
    let bytes = 0;
    let status: number | undefined;
    const done = (error?: NodeJS.ErrnoException) =>
      resolve({ bytes, ms: performance.now() - started, ...(status ? { status } : {}), ...(error ? { error } : {}) });
    const request = get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      status = response.statusCode;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.once('error', done);
      response.once('end', () => done(response.complete ? undefined : new Error('incomplete body')));
    });
    request.once('error', done);
  });
}

let upstream: Server;
let toxiproxy: ToxiproxyServer | undefined;
let port: number;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    const body = request.url === '/big' ? 'x'.repeat(BIG) : 'hello';
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(body.length) });
    response.end(body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const address = upstream.address() as { port: number };
  toxiproxy = await startToxiproxy(toxiproxyBinary({ build: false }));
  port = (await toxiproxy.createProxy('tiny', `127.0.0.1:${address.port}`)).port;
});

afterAll(async () => {
  await toxiproxy?.stop();
  await new Promise((resolve) => upstream?.close(resolve));
});

describe('Toxiproxy through bench/toxiproxy.ts', () => {
  it('passes a plain request through', async () => {
    const plain = await fetchThrough(port, '/small');
    expect(plain.error).toBeUndefined();
    expect([plain.status, plain.bytes]).toEqual([200, 'hello'.length]);
  });

  it('resets every connection with reset_peer at toxicity 1', async () => {
    const toxic = await toxiproxy!.addToxic('tiny', {
      type: 'reset_peer',
      stream: 'downstream',
      toxicity: 1,
      attributes: { timeout: 0 },
    });
    const reset = await fetchThrough(port, '/small');
    await toxiproxy!.removeToxic('tiny', toxic);
    expect(reset.error?.code, String(reset.error)).toBe('ECONNRESET');
    expect((await fetchThrough(port, '/small')).status).toBe(200);
  });

  it('cuts a body with limit_data', async () => {
    const toxic = await toxiproxy!.addToxic('tiny', {
      type: 'limit_data',
      stream: 'downstream',
      attributes: { bytes: 4096 },
    });
    const cut = await fetchThrough(port, '/big');
    await toxiproxy!.removeToxic('tiny', toxic);
    expect(cut.error, 'the cut body ends in an error').toBeDefined();
    expect(cut.bytes).toBeLessThan(BIG);
    expect((await fetchThrough(port, '/big')).bytes).toBe(BIG);
  });

  it('delays a response by at least the latency', async () => {
    const toxic = await toxiproxy!.addToxic('tiny', {
      type: 'latency',
      stream: 'downstream',
      attributes: { latency: 200 },
    });
    const slow = await fetchThrough(port, '/small');
    await toxiproxy!.removeToxic('tiny', toxic);
    expect(slow.status).toBe(200);
    expect(slow.ms).toBeGreaterThanOrEqual(200);
  });

  it('refuses an address off loopback', () => {
    expect(loopbackAddress('127.0.0.1:80')).toBe('127.0.0.1:80');
    expect(() => loopbackAddress('10.0.0.1:80')).toThrow(/not a loopback/);
    expect(() => loopbackAddress('localhost:80')).toThrow(/not a loopback/);
  });
});

describe('starting and stopping Toxiproxy', () => {
  it('ends its process and its proxies', async () => {
    const server = await startToxiproxy(toxiproxyBinary({ build: false }));
    const proxy = await server.createProxy('gone', '127.0.0.1:9');
    await server.stop();
    expect(() => process.kill(server.pid, 0)).toThrow();
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(proxy.port, '127.0.0.1');
      socket.once('connect', () => resolve('connected'));
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  it('says why a binary that cannot be started did not start, at once', async () => {
    await expect(startToxiproxy('/nonexistent/toxiproxy-server')).rejects.toThrow(/could not be started: .*ENOENT/);
  });

  it('is never built by a test: a missing build fails with the command that makes it', () => {
    const before = process.env.OCC_CACHE_DIR;
    process.env.OCC_CACHE_DIR = '/nonexistent/occ-cache';
    try {
      expect(() => toxiproxyBinary({ build: false })).toThrow(/run 'bash tools\/install-toxiproxy\.sh'/);
    } finally {
      if (before === undefined) delete process.env.OCC_CACHE_DIR;
      else process.env.OCC_CACHE_DIR = before;
    }
  });
});
