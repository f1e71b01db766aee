/**
 * `occ load <rate-limit|webhook-retry>`, `occ load merge <dir>`, `occ load k6-operator-manifest`:
 * one k6 probe (load/run.ts), given the reference it starts when no target is configured.
 * Also the entry `occ run --with-load` starts per probe (cli/run-load.ts).
 */
import { main, type LoadReference } from '../load/run.ts';
import { unknownFaultIds } from '../reference/faults.ts';
import { unknownVariantIds } from '../reference/variants.ts';

/** The reference of a k6 probe: loopback, on an ephemeral port; loaded only when a probe starts it. */
const loadReference: LoadReference = {
  unknownFaultIds,
  unknownVariantIds,
  async start(options) {
    const [{ startReferenceServer }, { expandVariantIds }] = await Promise.all([
      import('../reference/server.ts'),
      import('../reference/variants.ts'),
    ]);
    const server = await startReferenceServer({
      host: '127.0.0.1',
      port: 0,
      faults: [...options.faults],
      variants: expandVariantIds(options.variants),
      rateLimit: options.rateLimit === false ? false : { ...options.rateLimit },
      ...(options.clockScale === undefined ? {} : { clockScale: options.clockScale }),
      ...(options.deliveryTimeoutMs === undefined ? {} : { deliveryTimeoutMs: options.deliveryTimeoutMs }),
      ...(options.trustedCaPem === undefined ? {} : { trustedCaPem: [...options.trustedCaPem] }),
    });
    return {
      baseUrl: server.baseUrl,
      referenceUrl: server.referenceUrl,
      tokens: server.fixtures.tokens,
      close: () => server.close(),
    };
  },
};

/** Exits the process with the probe's verdict: k6's keep-alive sockets must not hold it back. */
export async function load(args: readonly string[]): Promise<never> {
  process.exit(await main(args, loadReference));
}

if (import.meta.main) await load(process.argv.slice(2));
