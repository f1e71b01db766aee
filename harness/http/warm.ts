/**
 * Connections opened before requests that must leave at the same moment (the near misses' doubles:
 * one request twice at once, a race the target must settle on its own).
 *
 * undici opens a connection when a request needs one and writes the request once it is connected,
 * a turn of this thread's event loop later. Of two requests sent at once, the one that needs a new
 * connection then leaves after the other by however long the host takes to come back to this
 * thread: on a starved host, longer than a target's race window, and the double is no longer one.
 * Connections warmed here first are handed to the next requests that need one at once, so both
 * requests are written in the same turn. Sockets come from undici's own connector (its TLS,
 * timeouts and server name), and are the same connections a request would have opened.
 */
import type { Socket } from 'node:net';
import { buildConnector, type Connector } from './undici.ts';

export interface WarmConnections {
  /** The connector an undici Agent is built with: a warmed socket of the origin when there is one. */
  readonly connector: Connector;
  /** Opens `count` connections to `url`'s origin, each for the next request that needs one. */
  warm(url: URL, count: number): Promise<void>;
  /** Closes the warmed connections no request took. */
  drop(): void;
}

/** An origin as undici names it to a connector: the host without IPv6 brackets, an empty port for the default. */
const originOf = (protocol: string, hostname: string, port: string) =>
  `${protocol}//${hostname}:${port === '' ? (protocol === 'https:' ? '443' : '80') : port}`;

export function createWarmConnections(options: { readonly timeoutMs: number }): WarmConnections {
  const base = buildConnector({ timeout: options.timeoutMs });
  const warmed = new Map<string, Socket[]>();
  return {
    connector(connectOptions, callback) {
      const { protocol, hostname, port } = connectOptions;
      const stash = warmed.get(originOf(protocol, hostname, port));
      let socket = stash?.shift();
      while (socket?.destroyed) socket = stash?.shift();
      // undici expects the answer after its call returns (a connection's own resume is ignored while
      // it resumes): a microtask later, still before this turn of the event loop waits for I/O.
      if (socket !== undefined) queueMicrotask(() => callback(null, socket));
      else base(connectOptions, callback);
    },
    async warm(url, count) {
      const port = url.port;
      // undici names an IPv6 host without its brackets.
      const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
      // A connection that fails to open is left to the request, which opens its own and reports why.
      const attempts = await Promise.allSettled(
        Array.from(
          { length: count },
          () =>
            new Promise<Socket>((resolve, reject) =>
              base({ protocol: url.protocol, hostname, host: url.host, port }, (error, socket) =>
                error === null ? resolve(socket) : reject(error),
              ),
            ),
        ),
      );
      const opened = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
      const key = originOf(url.protocol, hostname, port);
      warmed.set(key, [...(warmed.get(key) ?? []), ...opened]);
    },
    drop() {
      for (const socket of [...warmed.values()].flat()) socket.destroy();
      warmed.clear();
    },
  };
}
