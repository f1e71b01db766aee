/**
 * harness/http/raw.ts reads what came on the wire: the bytes after a 204's header section, a body
 * sent despite Content-Length: 0, a chunked body (which a client library would hide or reframe).
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireAnswers } from '../../../contract/standards/wire-answers.ts';
import { rawExchange } from '../../../harness/http/raw.ts';
import { framingProblems, parseRaw } from '../../../operators/framing.ts';

const answers: Record<string, string> = {
  '/no-content': 'HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n',
  '/no-content-with-body': 'HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n{"status":"disabled"}',
  '/zero-length-with-body': 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n{}',
  '/chunked-204': 'HTTP/1.1 204 No Content\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
};

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((socket) => {
    socket.once('data', (chunk) => {
      const path = /^\w+ (\S+) HTTP/.exec(chunk.toString('latin1'))?.[1] ?? '';
      socket.end(answers[path] ?? 'HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const read = async (path: string) => parseRaw(await rawExchange({ method: 'DELETE', url: `${base}${path}` }))!;

describe('rawExchange', () => {
  it('sends the request line and headers as given and reads a clean 204', async () => {
    const raw = await read('/no-content');
    expect(raw.status).toBe(204);
    expect(framingProblems(raw)).toEqual([]);
  });

  it('reads the bytes after a 204, a body despite Content-Length: 0, and a chunked 204', async () => {
    expect(framingProblems(await read('/no-content-with-body'))[0]).toMatch(/21 body bytes/);
    expect(framingProblems(await read('/zero-length-with-body'))[0]).toMatch(/Content-Length: 0 but 2 bytes/);
    expect(framingProblems(await read('/chunked-204'))[0]).toMatch(/204 answer carried \d+ body bytes/);
  });

  it('sends the version and the Host lines asked for', async () => {
    const heads: string[] = [];
    const echo = createServer((socket) =>
      socket.once('data', (chunk) => {
        heads.push(chunk.toString('latin1'));
        socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
      }),
    );
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/x`;
    try {
      await rawExchange({ method: 'GET', url, version: '1.0', hosts: ['a', 'b'] });
      await rawExchange({ method: 'GET', url, hosts: [] });
    } finally {
      echo.close();
    }
    expect(heads[0]).toMatch(/^GET \/x HTTP\/1\.0\r\nhost: a\r\nhost: b\r\n/);
    expect(heads[1]).toMatch(/^GET \/x HTTP\/1\.1\r\nconnection: close\r\n/);
  });

  it('asks again on a connection left open after a whole answer, and ends at the second answer', async () => {
    const open = createServer((socket) =>
      socket.on('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}')),
    );
    await new Promise<void>((resolve) => open.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(open.address() as AddressInfo).port}/x`;
    try {
      const bytes = await rawExchange({ method: 'GET', url, askAgainAfterMs: 50, timeoutMs: 5_000 });
      expect(wireAnswers(bytes, 'GET', true).finals).toHaveLength(2);
      // A server that closes after the answer is never asked again.
      expect(
        wireAnswers(
          await rawExchange({ method: 'DELETE', url: `${base}/no-content`, askAgainAfterMs: 50 }),
          'DELETE',
          true,
        ).finals,
      ).toHaveLength(1);
    } finally {
      open.close();
    }
  });

  it('rejects when nothing listens', async () => {
    await expect(rawExchange({ method: 'GET', url: 'http://127.0.0.1:1/x', timeoutMs: 2_000 })).rejects.toThrow();
  });
});
