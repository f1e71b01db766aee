/**
 * The run's seed, which both the properties (harness/checks/property.ts) and the rotated
 * near-miss probes (./rotation.ts) follow: the CLI's --seed, or PROPERTY_SEED, in the run context
 * (harness/run/context.ts). A module of its own so the probes' files do not load fast-check.
 */
export const SEED_VARIABLE = 'PROPERTY_SEED';

/**
 * PROPERTY_SEED, for a run started without the CLI (vitest run directly, e.g. a property's replay
 * command): a whole number below 2^31, as the CLI's --seed; undefined when unset. Throws on a
 * malformed value rather than silently running with another seed than the one the user asked to replay.
 */
export function seedFromEnvironment(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const raw = env[SEED_VARIABLE]?.trim();
  if (raw === undefined || raw === '') return undefined;
  // The same rule as `conformance --seed`: a whole number below 2^31.
  if (!/^[0-9]{1,10}$/.test(raw) || Number(raw) >= 2 ** 31) {
    throw new Error(
      `${SEED_VARIABLE}=${raw} is not a seed: a whole number below 2^31 (e.g. ${SEED_VARIABLE}=123456789)`,
    );
  }
  return Number(raw);
}

/** A property's seed when the run has none: from the clock. */
export function clockSeed(nowMs: number): number {
  return nowMs % 2 ** 31;
}
