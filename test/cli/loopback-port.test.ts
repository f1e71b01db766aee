import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralStart, freeLoopbackPort } from '../../cli/loopback-port.ts';

function rangeText(): string | undefined {
  try {
    return readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
  } catch {
    return undefined;
  }
}

describe('freeLoopbackPort', () => {
  it("reads the first port of the OS's ephemeral range, and Linux's default when it cannot", () => {
    expect(ephemeralStart('32768\t60999\n')).toBe(32768);
    expect(ephemeralStart('1024 65535')).toBe(1024);
    expect(ephemeralStart(undefined)).toBe(32768);
    expect(ephemeralStart('garbage')).toBe(32768);
  });

  it('gives ports below the ephemeral range that a server can then listen on', async () => {
    const below = Math.min(ephemeralStart(rangeText()), 32768);
    const ports = await Promise.all(Array.from({ length: 5 }, () => freeLoopbackPort()));
    for (const port of ports) {
      if (below - 20_000 >= 1000) expect(port).toBeLessThan(below);
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
