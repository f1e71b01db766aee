/**
 * The reference server as a run starts it: the run's embedded target, and a check's own
 * reference (the rate-limit checks, through the run channel); a k6 probe's is commands/load.ts's.
 * The composition root decides how the reference runs and injects these starters, so nothing
 * below commands/ imports reference/. The reference loads only when one of them starts a server.
 */
import type { OwnReference, StartOwnReference } from '../harness/run/channel.ts';
import type { ReferenceStarters, StartEmbeddedTarget } from '../harness/run/target.ts';

/**
 * An originated call lasts this long (the reference's default is 300 ms). An originating check
 * holds the gate's `webhooks` claim until its call has ended, so the length is paid once per such
 * check; no check reads a duration from it (a CDR rounds it to 0 s either way).
 */
const CALL_DURATION_MS = 100;

/**
 * The delivery timeout, in the dispatcher's running time: the receiver shares this process, so a
 * paused process delays the answer and the deadline alike. But the same event loop also serves the
 * run's API requests from every worker, and on a busy host (CPU-bound neighbours, a CI runner) a
 * loopback TLS handshake and answer can take a few hundred ms of it: an answer the target sees
 * too late is a failure to it, and a check that planned a 200 would see a retry it did not expect.
 * 1 s keeps such an answer in time under two CPU-bound neighbours on two cores; the checks that
 * judge deliveries read the target's own record of each attempt where it offers one, so a host
 * slower still makes a check not verifiable, never failed. The one check that leaves an attempt
 * unanswered waits this long once, on the run's critical path.
 */
const DELIVERY_TIMEOUT_MS = 1_000;

const reference = () => Promise.all([import('../reference/server.ts'), import('../reference/variants.ts')]);

/** Starts a fresh reference server: no rate limit, the given faults and variants (`all`: every one). */
export const startEmbeddedReference: StartEmbeddedTarget = async ({ faults, variants, trustedCaPem }) => {
  const [{ startReferenceServer }, { expandVariantIds }] = await reference();
  return startReferenceServer({
    rateLimit: false,
    trustedCaPem: [...trustedCaPem],
    faults: [...faults],
    variants: expandVariantIds(variants),
    deliveryTimeoutMs: DELIVERY_TIMEOUT_MS,
    callDurationMs: CALL_DURATION_MS,
  });
};

/**
 * A check's own reference: the spec's limit per window on the clock the check moves, with the
 * run's faults and variants (the shared reference runs with its limit off: the other checks would trip it).
 */
export const startOwnReference: StartOwnReference = async ({ rateLimit, host, faults, variants }) => {
  const [{ startReferenceServer }, { expandVariantIds }] = await reference();
  const server = await startReferenceServer({
    ...(host === undefined ? {} : { host }),
    rateLimit: { ...rateLimit },
    faults: [...faults],
    variants: expandVariantIds(variants),
  });
  return {
    baseUrl: server.baseUrl,
    tokens: { all: server.fixtures.tokens.all, none: server.fixtures.tokens.none },
    close: () => server.close(),
  } satisfies OwnReference;
};

/** The starters of a run (commands/run.ts, the self-proof's runner, vitest's global set-up). */
export const referenceStarters: ReferenceStarters = { embedded: startEmbeddedReference, own: startOwnReference };
