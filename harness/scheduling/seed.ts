/**
 * The run's seed, which both the properties (property.ts) and the rotated near-miss probes
 * (rotation.ts) follow. A module of its own so the probes' files do not load fast-check.
 */
export const SEED_VARIABLE = 'PROPERTY_SEED';

/**
 * The seed of this run: PROPERTY_SEED when set (a whole number below 2^31, as the CLI's
 * --seed), otherwise the clock. Throws on a malformed value rather than silently running with
 * another seed than the one the user asked to replay.
 */
export function propertySeed(env: Readonly<Record<string, string | undefined>>, nowMs: number): number {
  const raw = env[SEED_VARIABLE]?.trim();
  if (raw === undefined || raw === '') return nowMs % 2 ** 31;
  // The same rule as `conformance --seed`: a whole number below 2^31.
  if (!/^[0-9]{1,10}$/.test(raw) || Number(raw) >= 2 ** 31) {
    throw new Error(`${SEED_VARIABLE}=${raw} is not a seed: a whole number below 2^31 (e.g. ${SEED_VARIABLE}=123456789)`);
  }
  return Number(raw);
}
