/**
 * A loopback HTTP proxy in front of a target, for the CLI tests: it remembers every credential
 * the target hands out (access tokens, hook secrets), so a test can prove none of them reaches a
 * report, and it can change answers the way another vendor's server would.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { hostProblem } from '../../reference/wire.ts';

export interface ProxiedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface ProxyAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface RecordingProxy {
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  /** Every access_token, refresh_token and secret value the target answered with. */
  readonly handedOut: ReadonlySet<string>;
  close(): Promise<void>;
}

const credentialFields = ['access_token', 'refresh_token', 'secret'];

/** A server accepts the absolute-form too (RFC 9112 §3.2.2): the path and query it forwards. */
function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  const url = new URL(target);
  return url.pathname + url.search;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * fetch, or, for a method fetch refuses to send (TRACE: the near-miss surface probes), the same
 * request through undici's dispatcher, as a reverse proxy forwards any method.
 */
async function forward(url: string, init: { method: string; headers: Record<string, string>; body?: string }) {
  if (!/^(TRACE|TRACK|CONNECT)$/i.test(init.method)) return fetch(url, init);
  const answer = await request(url, { method: init.method as 'GET', headers: init.headers, body: init.body });
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) if (typeof value === 'string') headers.set(name, value);
  return new Response(await answer.body.text(), { status: answer.statusCode, headers });
}

/**
 * `alter` may answer instead of the target (return an answer) or rewrite the request before it
 * is forwarded (return a request).
 */
export async function startRecordingProxy(
  targetOrigin: string,
  alter: (request: ProxiedRequest) => ProxyAnswer | ProxiedRequest | undefined = () => undefined,
): Promise<RecordingProxy> {
  const handedOut = new Set<string>();
  let origin = '';
  const server = createServer((req, res) => {
    // A server in front is bound by RFC 9112 §3.2 as the target is: two Host lines or a bad one are its 400.
    const host = hostProblem(req.rawHeaders, req.httpVersion);
    if (host !== undefined) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`proxy: ${host}`);
      return;
    }
    void (async () => {
      const incoming: ProxiedRequest = {
        method: req.method ?? 'GET',
        path: originForm(req.url ?? '/'),
        headers: Object.fromEntries(
          Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])),
        ),
        body: await readBody(req),
      };
      const altered = alter(incoming);
      if (altered !== undefined && 'status' in altered) {
        res.writeHead(altered.status, altered.headers).end(altered.body);
        return;
      }
      const request = altered ?? incoming;
      const { host: _host, connection: _connection, 'content-length': _length, ...headers } = request.headers;
      const answer = await forward(`${targetOrigin}${request.path}`, {
        method: request.method,
        headers,
        ...(request.body === '' || request.method === 'GET' ? {} : { body: request.body }),
      });
      // As a reverse proxy with forwarded-host headers would: the target names the public origin
      // (the RFC 8414 metadata's issuer and token endpoint).
      const body = (await answer.text()).replaceAll(targetOrigin, origin);
      try {
        const json = JSON.parse(body) as Record<string, unknown>;
        for (const field of credentialFields) if (typeof json[field] === 'string') handedOut.add(json[field]);
      } catch {
        // not JSON: nothing handed out
      }
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(name))
          out[name] = value;
      });
      res.writeHead(answer.status, out).end(body);
    })().catch((error: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${(error as Error).message}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    handedOut,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
