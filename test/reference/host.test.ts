/**
 * The reference answers what RFC 9112 §3.2 requires of a server: 400 to two Host lines or a Host
 * that is no uri-host [":" port]; a well-formed Host, IPv6 literal included, goes on to the route.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.ts';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({ rateLimit: false });
});
afterAll(async () => {
  await server?.close();
});

/** The status line of the answer to GET /v1/me with these Host lines, written raw. */
function statusWith(hostLines: string): Promise<string> {
  const { port, hostname } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.write(`GET /v1/me HTTP/1.1\r\n${hostLines}Connection: close\r\n\r\n`),
    );
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer.split('\r\n', 1)[0]!));
  });
}

describe('Host (RFC 9112 §3.2)', () => {
  it('refuses two Host lines and a Host that is no uri-host [":" port] with 400', async () => {
    expect(await statusWith('Host: a\r\nHost: b\r\n')).toBe('HTTP/1.1 400 Bad Request');
    expect(await statusWith('Host: a b/c\r\n')).toBe('HTTP/1.1 400 Bad Request');
  });

  it('takes a well-formed Host, a name or an IPv6 literal with a port, on to the route (401)', async () => {
    expect(await statusWith(`Host: ${new URL(server.baseUrl).host}\r\n`)).toBe('HTTP/1.1 401 Unauthorized');
    expect(await statusWith('Host: [::1]:80\r\n')).toBe('HTTP/1.1 401 Unauthorized');
  });
});
