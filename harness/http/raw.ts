/**
 * One HTTP/1.1 request over a socket of its own, read byte for byte until the server closes it
 * (`Connection: close`): what came on the wire, which a client library does not show (undici ends
 * a 204 at its header section and drops what follows). For framing verdicts only; every other
 * request goes through ./client.ts.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface RawRequest {
  readonly method: string;
  /** The full URL. */
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly timeoutMs?: number;
}

/** The bytes of the answer, up to 1 MiB, or an Error naming why none came. */
export function rawExchange(request: RawRequest): Promise<Buffer> {
  const url = new URL(request.url);
  const https = url.protocol === 'https:';
  const port = Number(url.port || (https ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const head =
    `${request.method} ${url.pathname}${url.search} HTTP/1.1\r\n` +
    `host: ${url.host}\r\nconnection: close\r\n` +
    Object.entries(request.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    '\r\n';
  return new Promise((resolve, reject) => {
    const socket: Socket = https ? tlsConnect({ host, port, servername: host }) : netConnect({ host, port });
    const chunks: Buffer[] = [];
    let size = 0;
    socket.setTimeout(request.timeoutMs ?? 10_000, () => socket.destroy(new Error('no answer in time')));
    socket.once(https ? 'secureConnect' : 'connect', () => socket.write(head));
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 1 << 20) chunks.push(chunk);
      else socket.destroy();
    });
    socket.once('error', reject);
    socket.once('close', () => resolve(Buffer.concat(chunks)));
  });
}
