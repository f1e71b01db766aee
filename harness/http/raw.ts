/**
 * One HTTP/1.1 request over a socket of its own, read byte for byte until the server closes it
 * (`Connection: close`): what came on the wire, which a client library does not show (undici ends
 * a 204 at its header section and drops what follows). For framing verdicts only; every other
 * request goes through ./client.ts, and this one too: `ApiClient.sendRaw` sends it through the
 * run's throttle and the transport discipline (./transport.ts).
 *
 * The network's failures are TransportFailures: refused, reset, no answer in time, and an answer
 * closed before its header section ended (a cut, not an answer to judge).
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { wireAnswers } from '../../contract/standards/wire-answers.ts';
import { describeTransport, detailOf, TransportFailure, transportKindOf } from './transport.ts';

export interface RawRequest {
  readonly method: string;
  /** The full URL. */
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly timeoutMs?: number;
  /** The request line's version (default "1.1"). */
  readonly version?: '1.0' | '1.1';
  /** The request-target in absolute-form (RFC 9112 §3.2.2: the whole URL) instead of origin-form. */
  readonly absoluteForm?: boolean;
  /** The Host field lines sent, in order (default: one, the URL's authority; [] sends none). */
  readonly hosts?: readonly string[];
  /**
   * RFC 9112 §9.6: once a whole answer came and the server has not closed the connection within
   * this many ms, the same request is written on it again, so a connection kept open shows by a
   * second answer (answers counted by contract/standards/wire-answers.ts).
   */
  readonly askAgainAfterMs?: number;
}

/** The bytes of the answer, up to 1 MiB, or an Error naming why none came. */
export function rawExchange(request: RawRequest): Promise<Buffer> {
  const url = new URL(request.url);
  const https = url.protocol === 'https:';
  const port = Number(url.port || (https ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const hosts = request.hosts ?? [url.host];
  const head =
    `${request.method} ${request.absoluteForm ? url.origin : ''}${url.pathname}${url.search} ` +
    `HTTP/${request.version ?? '1.1'}\r\n` +
    hosts.map((host) => `host: ${host}\r\n`).join('') +
    'connection: close\r\n' +
    Object.entries(request.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    '\r\n';
  return new Promise((resolve, reject) => {
    const socket: Socket = https ? tlsConnect({ host, port, servername: host }) : netConnect({ host, port });
    const chunks: Buffer[] = [];
    let size = 0;
    const timeoutMs = request.timeoutMs ?? 10_000;
    socket.setTimeout(timeoutMs, () =>
      socket.destroy(
        new TransportFailure('stalled', describeTransport('stalled', 'the raw socket went quiet', timeoutMs)),
      ),
    );
    socket.once(https ? 'secureConnect' : 'connect', () => socket.write(head));
    let asked = false;
    let again: NodeJS.Timeout | undefined;
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 1 << 20) chunks.push(chunk);
      else socket.destroy();
      // Read for answers only while one is awaited: the first (then the grace starts), or the second.
      if (request.askAgainAfterMs === undefined || (again !== undefined && !asked)) return;
      const finals = wireAnswers(Buffer.concat(chunks), request.method, false).finals.length;
      // The second answer is the evidence; the connection it came on may stay open, so it is ended here.
      if (asked && finals >= 2) socket.destroy();
      if (asked || finals === 0) return;
      again = setTimeout(() => {
        asked = true;
        if (!socket.destroyed) socket.write(head);
      }, request.askAgainAfterMs);
    });
    socket.once('close', () => clearTimeout(again));
    socket.once('error', (error) => {
      const kind = transportKindOf(error);
      reject(kind === undefined ? error : new TransportFailure(kind, describeTransport(kind, detailOf(error))));
    });
    socket.once('close', (hadError) => {
      if (hadError) return;
      const bytes = Buffer.concat(chunks);
      if (bytes.includes('\r\n\r\n')) resolve(bytes);
      else
        reject(
          new TransportFailure(
            'cut',
            describeTransport('cut', `closed after ${bytes.length} bytes, in the header section`),
          ),
        );
    });
  });
}
