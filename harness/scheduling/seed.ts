/**
 * The run's seed, which both the properties (harness/checks/property.ts) and the rotated
 * near-miss probes (./rotation.ts) follow: the CLI's --seed, or PROPERTY_SEED (read by
 * harness/config/settings.ts), in the run context (harness/run/context.ts). A module of its own
 * so the probes' files do not load fast-check.
 */
export const SEED_VARIABLE = 'PROPERTY_SEED';

/**
 * A seed as `occ run --seed` and PROPERTY_SEED take it: a whole number below 2^31; undefined when
 * the text is not one (the caller names the flag or variable in its error). The one rule of both. Pure.
 */
export function parseSeed(text: string): number | undefined {
  return /^\d+$/.test(text) && Number(text) < 2 ** 31 ? Number(text) : undefined;
}

/** A property's seed when the run has none: from the clock. */
export function clockSeed(nowMs: number): number {
  return nowMs % 2 ** 31;
}
