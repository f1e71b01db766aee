/**
 * A loopback port for a server that another process starts later (a receiver on RECEIVER_PORT, a
 * webhook URL named before its server listens). A port from `listen(0)` is the wrong choice: once
 * the probe closes it, the next `listen(0)` anywhere on the machine may be handed the same port
 * before its intended owner binds it. Ports below the machine's ephemeral range are never handed
 * out by the OS, so only another explicit choice like this one can take them.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest port chosen: clear of the well-known and most registered services' ports. */
const LOWEST = 20_000;
/** Where Linux's default ephemeral range starts, and where every common OS's range is above. */
const DEFAULT_EPHEMERAL_START = 32_768;
const ATTEMPTS = 50;

/** The first port of the range the OS hands out (Linux: ip_local_port_range), from that file's text. */
export function ephemeralStart(rangeText: string | undefined): number {
  const first = Number(rangeText?.trim().split(/\s+/)[0]);
  return Number.isInteger(first) && first > 0 ? first : DEFAULT_EPHEMERAL_START;
}

function readRange(): string | undefined {
  try {
    return readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
  } catch {
    return undefined;
  }
}

function listensOn(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** A port on `host` that is free now and outside the OS's ephemeral range (a listen(0) port if it has none). */
export async function freeLoopbackPort(host = '127.0.0.1'): Promise<number> {
  const end = Math.min(ephemeralStart(readRange()), DEFAULT_EPHEMERAL_START);
  for (let attempt = 0; end - LOWEST >= 1000 && attempt < ATTEMPTS; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if (await listensOn(port, host)) return port;
  }
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error(`no port on ${host}`)),
      );
    });
  });
}
