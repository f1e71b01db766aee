/**
 * occ run's command line, parsed: each bad flag is a UsageError whose one line names the flag and
 * the fix (test/commands/conformance-cli.run.test.ts proves once that such an error reaches stderr
 * as that one line with exit code 2).
 */
import { describe, expect, it } from 'vitest';
import { parseOptions, UsageError } from '../../cli/run-options.ts';

function refusal(argv: string[]): string {
  try {
    parseOptions(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}

describe('occ run options', () => {
  it.each([
    [['--bogus'], /^Unknown option '--bogus'; run occ run --help for the options$/],
    [['--seed', 'abc'], /^--seed must be a whole number below 2\^31 \(got "abc"\)$/],
    [['--seed', '2147483648'], /^--seed must be a whole number below 2\^31/],
    [['--only', 'NOT-AN-ID'], /^--only: unknown requirement id NOT-AN-ID; the ids are in requirements\/catalogue\.ts$/],
    [['--only', 'ME-200-SHAPE,NOPE'], /^--only: unknown requirement id NOPE;/],
    [['--waivers', ' '], /^--waivers needs a file path$/],
    [['--time-budget', 'soon'], /--time-budget/],
    [['stray'], /Unexpected argument 'stray'/],
  ])('refuses %j with one line naming it', (argv, message) => {
    const text = refusal(argv);
    expect(text).toMatch(message);
    expect(text.split('\n')).toHaveLength(1);
  });

  it('reads every flag once into the options', () => {
    expect(
      parseOptions(['--only', ' ME-200-SHAPE , ', '--seed', '7', '--time-budget', '60', '--all-probes']),
    ).toMatchObject({
      only: ['ME-200-SHAPE'],
      seed: 7,
      timeBudgetS: 60,
      allProbes: true,
      properties: true,
      reportsDir: 'reports',
    });
    expect(parseOptions(['-h'])).toBe('help');
  });
});
