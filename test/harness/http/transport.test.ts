/**
 * harness/http/transport.ts: which failures are the network's, which requests may be sent again,
 * and the retry loop every transport of a run shares.
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors } from '../../../harness/http/undici.ts';
import { rawExchange } from '../../../harness/http/raw.ts';
import { ensureReachable } from '../../../harness/http/reachable.ts';
import {
  isSafeMethod,
  mayRetry,
  TransportFailure,
  transportKindOf,
  withTransportRetries,
} from '../../../harness/http/transport.ts';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
const noSleep = async () => {};

describe('transportKindOf', () => {
  it("names the network's failures by code, by undici's error classes and through a cause chain", () => {
    expect(transportKindOf(coded('ECONNREFUSED'))).toBe('refused');
    expect(transportKindOf(coded('ECONNRESET'))).toBe('reset');
    expect(transportKindOf(new errors.SocketError('other side closed'))).toBe('reset');
    expect(transportKindOf(new errors.HeadersTimeoutError())).toBe('stalled');
    expect(transportKindOf(new errors.BodyTimeoutError())).toBe('cut');
    expect(transportKindOf(new errors.ConnectTimeoutError())).toBe('connect-timeout');
    expect(transportKindOf(new Error('fetch failed', { cause: coded('EPIPE') }))).toBe('reset');
    expect(transportKindOf(new TransportFailure('cut', 'x'))).toBe('cut');
  });

  it('leaves every other error alone: a failed assertion, a bug, a local address that is not configured', () => {
    expect(transportKindOf(new Error('expected 204, got 404'))).toBeUndefined();
    expect(transportKindOf(new TypeError('x is undefined'))).toBeUndefined();
    expect(transportKindOf(coded('EADDRNOTAVAIL'))).toBeUndefined();
    expect(transportKindOf(undefined)).toBeUndefined();
  });
});

describe('mayRetry (RFC 9110 §9.2.1)', () => {
  it('sends a safe method again after any failure, any other only when nothing reached the target', () => {
    expect(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'get'].every(isSafeMethod)).toBe(true);
    expect(['POST', 'PUT', 'DELETE', 'PATCH'].some(isSafeMethod)).toBe(false);
    expect(mayRetry(true, 'reset', 1)).toBe(true);
    expect(mayRetry(true, 'cut', 2)).toBe(true);
    expect(mayRetry(true, 'cut', 3)).toBe(false);
    expect(mayRetry(false, 'reset', 1)).toBe(false);
    expect(mayRetry(false, 'stalled', 1)).toBe(false);
    expect(mayRetry(false, 'cut', 1)).toBe(false);
    expect(mayRetry(false, 'refused', 1)).toBe(true);
    expect(mayRetry(false, 'connect-timeout', 2)).toBe(true);
  });
});

describe('withTransportRetries', () => {
  it('sends again until an answer comes, counting each retry', async () => {
    let calls = 0;
    const kinds: string[] = [];
    const answer = await withTransportRetries(
      async () => {
        calls += 1;
        if (calls < 3) throw coded('ECONNRESET');
        return 'answer';
      },
      { repeatable: true, sleep: noSleep, onRetry: (kind) => kinds.push(kind) },
    );
    expect([answer, calls, kinds]).toEqual(['answer', 3, ['reset', 'reset']]);
  });

  it('throws a TransportFailure naming the cause once retrying may not go on', async () => {
    let calls = 0;
    const failing = withTransportRetries(
      async () => {
        calls += 1;
        throw coded('ECONNRESET', 'read ECONNRESET');
      },
      { repeatable: false, sleep: noSleep },
    );
    await expect(failing).rejects.toBeInstanceOf(TransportFailure);
    await expect(failing).rejects.toThrow(
      /^connection reset or closed before a complete response \(read ECONNRESET\)$/,
    );
    expect(calls).toBe(1);
  });

  it('rethrows any other error at once, as it is', async () => {
    let calls = 0;
    const failing = withTransportRetries(
      async () => {
        calls += 1;
        throw new RangeError('a bug');
      },
      { repeatable: true, sleep: noSleep },
    );
    await expect(failing).rejects.toThrow(RangeError);
    expect(calls).toBe(1);
  });
});

/** A server that answers each connection with what the test set for it. */
let server: Server;
let port: number;
let answer: (socket: import('node:net').Socket) => void = (socket) => socket.end();

beforeAll(async () => {
  server = createServer((socket) => socket.once('data', () => answer(socket)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the raw socket and the start-up read follow the same discipline', () => {
  it('a raw answer closed inside its header section is a cut, not an answer to judge', async () => {
    answer = (socket) => socket.end('HTTP/1.1 204 No Con');
    const raw = rawExchange({ method: 'DELETE', url: `http://127.0.0.1:${port}/v1/hooks/x` });
    await expect(raw).rejects.toMatchObject({ name: 'TransportFailure', kind: 'cut' });
  });

  it('a raw answer reset by the peer is a reset', async () => {
    answer = (socket) => socket.resetAndDestroy();
    const raw = rawExchange({ method: 'DELETE', url: `http://127.0.0.1:${port}/v1/hooks/x` });
    await expect(raw).rejects.toMatchObject({ name: 'TransportFailure', kind: 'reset' });
  });

  it('a target that takes connections is reachable; one that refuses them is not, naming the variable', async () => {
    const patience = { retries: 2, delayMs: () => 0, timeoutMs: 2_000 };
    await expect(ensureReachable(`http://127.0.0.1:${port}/v1`, 'API_BASE_URL', patience)).resolves.toBeUndefined();
    await expect(ensureReachable('http://127.0.0.1:1/v1', 'API_BASE_URL', patience)).rejects.toThrow(
      /^API_BASE_URL: connection refused \(.*ECONNREFUSED.*\) \(3 attempts\); is the target up\?$/,
    );
  });
});
