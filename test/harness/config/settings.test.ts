/** The run's settings (harness/config/settings.ts): each variable read once, by one rule, with its default. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../harness/config/config.ts';
import {
  embeddedWorkerCount,
  loadRunSettings,
  settingDefaults,
  suiteCacheDirectory,
} from '../../../harness/config/settings.ts';

describe('loadRunSettings', () => {
  it('has a default for everything', () => {
    expect(loadRunSettings({})).toEqual({
      propertySeed: undefined,
      waiversFile: undefined,
      timeBudgetS: settingDefaults.timeBudgetS,
      loadRunners: undefined,
      embeddedWorkers: undefined,
      referenceFaults: [],
      referenceVariants: [],
      cacheDirectory: suiteCacheDirectory({}),
      ci: false,
    });
  });

  it('reads each variable', () => {
    expect(
      loadRunSettings({
        PROPERTY_SEED: ' 4242 ',
        WAIVERS_FILE: 'waivers.json',
        TIME_BUDGET_S: '60',
        LOAD_RUNNERS: '3',
        OCC_EMBEDDED_WORKERS: '1',
        OCC_REFERENCE_FAULTS: 'me-missing-field, no-rate-limit,',
        OCC_REFERENCE_VARIANTS: 'all',
        OCC_CACHE_DIR: '/c/occ',
        CI: '',
      }),
    ).toEqual({
      propertySeed: 4242,
      waiversFile: 'waivers.json',
      timeBudgetS: 60,
      loadRunners: 3,
      embeddedWorkers: 1,
      referenceFaults: ['me-missing-field', 'no-rate-limit'],
      referenceVariants: ['all'],
      cacheDirectory: '/c/occ',
      ci: true,
    });
  });

  it('refuses a malformed value with one line naming the variable', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PROPERTY_SEED: 'abc' }, /^PROPERTY_SEED=abc is not a seed: a whole number below 2\^31/],
      [{ PROPERTY_SEED: String(2 ** 31) }, /^PROPERTY_SEED=2147483648 is not a seed/],
      [{ TIME_BUDGET_S: '0' }, /^TIME_BUDGET_S: must be a whole number from 1/],
      [{ LOAD_RUNNERS: '65' }, /^LOAD_RUNNERS: must be a whole number from 1 to 64 \(got "65"\)$/],
      [{ OCC_EMBEDDED_WORKERS: 'two' }, /^OCC_EMBEDDED_WORKERS: .*; 1 runs one check at a time$/],
    ];
    for (const [env, message] of cases) {
      expect(() => loadRunSettings(env)).toThrow(ConfigError);
      expect(() => loadRunSettings(env)).toThrow(message);
    }
  });
});

describe('embeddedWorkerCount', () => {
  it('runs the whole suite on the default workers, a run narrowed with --only on one, unless the variable says', () => {
    expect(embeddedWorkerCount(undefined, [])).toBe(settingDefaults.embeddedWorkers);
    expect(embeddedWorkerCount(undefined, ['ME-200-SHAPE'])).toBe(1);
    expect(embeddedWorkerCount(3, ['ME-200-SHAPE'])).toBe(3);
    expect(embeddedWorkerCount(1, [])).toBe(1);
  });
});
