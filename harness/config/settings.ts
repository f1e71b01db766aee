/**
 * The settings of how the suite itself runs, beside the target's configuration (./config.ts):
 * the seed, the waiver file, the load probes' watch and runners, the embedded reference's fault
 * and variant switches, the workers of an embedded run, the cache folder and whether a CI system
 * runs it. Read and validated once, like the configuration, by whoever starts a run
 * (./environment.ts reads the process's environment); everything else is handed the values.
 * Every variable read here is documented in .env.example. Pure over an env record.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseSeed, SEED_VARIABLE } from '../scheduling/seed.ts';
import { ConfigError, type Env, idList, read } from './rules.ts';

export interface RunSettings {
  /** PROPERTY_SEED: the run's seed when `occ run --seed` does not give one; undefined: a new one. */
  readonly propertySeed: number | undefined;
  /** WAIVERS_FILE: known failures (`occ run --waivers` overrides it). */
  readonly waiversFile: string | undefined;
  /** TIME_BUDGET_S: seconds the k6 webhook-retry probe watches a remote target in real time. */
  readonly timeBudgetS: number;
  /** LOAD_RUNNERS: cooperating k6 runners of the rate-limit probe (`occ load --runners` overrides it). */
  readonly loadRunners: number | undefined;
  /**
   * OCC_EMBEDDED_WORKERS: workers of a run against the embedded reference (1 runs one check at a
   * time); undefined: not set, embeddedWorkerCount decides.
   */
  readonly embeddedWorkers: number | undefined;
  /** OCC_REFERENCE_FAULTS: fault switches the embedded reference starts with. */
  readonly referenceFaults: readonly string[];
  /** OCC_REFERENCE_VARIANTS: conformant variants of the embedded reference, as written (`all` included). */
  readonly referenceVariants: readonly string[];
  /** OCC_CACHE_DIR, else $XDG_CACHE_HOME or ~/.cache: where compiled validators are kept. */
  readonly cacheDirectory: string;
  /** CI is set: progress is printed as plain lines. */
  readonly ci: boolean;
}

export const settingDefaults = {
  // Long enough for a few retries at a backoff starting in the tens of seconds; the 24 h horizon can't be waited out.
  timeBudgetS: 600,
  // One per core of the machine this is measured on; each more loads the whole suite again.
  embeddedWorkers: 2,
} as const;

/**
 * Workers of a run against the embedded reference: OCC_EMBEDDED_WORKERS when set; otherwise two
 * for the whole suite, whose files run in parallel behind the check gate, and one for a run
 * narrowed with --only. A narrowed run is a few checks, and a second worker would only boot and
 * import the suite's files again. Pure.
 */
export function embeddedWorkerCount(setting: number | undefined, only: readonly string[]): number {
  return setting ?? (only.length > 0 ? 1 : settingDefaults.embeddedWorkers);
}

/** The suite's cache folder: OCC_CACHE_DIR, else $XDG_CACHE_HOME or ~/.cache, as load/install-k6.sh reads it. Pure. */
export function suiteCacheDirectory(env: Env): string {
  const base =
    env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return env.OCC_CACHE_DIR !== undefined && env.OCC_CACHE_DIR !== ''
    ? env.OCC_CACHE_DIR
    : join(base, 'outbound-calling-conformance');
}

function propertySeed(env: Env): number | undefined {
  const raw = read(env, SEED_VARIABLE);
  if (raw === undefined) return undefined;
  const seed = parseSeed(raw);
  if (seed === undefined)
    throw new ConfigError(
      SEED_VARIABLE,
      '',
      `${SEED_VARIABLE}=${raw} is not a seed: a whole number below 2^31 (e.g. ${SEED_VARIABLE}=123456789)`,
    );
  return seed;
}

function wholeNumber(env: Env, variable: string, range: { min: number; max: number }, hint: string) {
  const raw = read(env, variable);
  if (raw === undefined) return undefined;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < range.min || Number(raw) > range.max)
    throw new ConfigError(variable, `must be a whole number from ${range.min} to ${range.max} (got "${raw}")${hint}`);
  return Number(raw);
}

export function loadRunSettings(env: Env): RunSettings {
  return {
    propertySeed: propertySeed(env),
    waiversFile: read(env, 'WAIVERS_FILE'),
    timeBudgetS:
      wholeNumber(env, 'TIME_BUDGET_S', { min: 1, max: Number.MAX_SAFE_INTEGER }, '') ?? settingDefaults.timeBudgetS,
    loadRunners: wholeNumber(env, 'LOAD_RUNNERS', { min: 1, max: 64 }, ''),
    embeddedWorkers: wholeNumber(env, 'OCC_EMBEDDED_WORKERS', { min: 1, max: 99 }, '; 1 runs one check at a time'),
    referenceFaults: idList(env.OCC_REFERENCE_FAULTS),
    referenceVariants: idList(env.OCC_REFERENCE_VARIANTS),
    cacheDirectory: suiteCacheDirectory(env),
    ci: env.CI !== undefined,
  };
}
