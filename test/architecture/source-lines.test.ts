/**
 * What a formatter cannot enforce on its own: no source line runs past 120 characters (Biome lays
 * code out at 120 columns, but leaves long strings and comments whole), and no comment or user
 * document carries a measurement diary (a date or a clock time: figures live in bench/RESULTS.md,
 * history in git). Generated files are exempt.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const GENERATED = new Set(['contract/openapi-types.ts']);
/** This file names the patterns it looks for. */
const SELF = 'test/architecture/source-lines.test.ts';
const tracked = execFileSync('git', ['ls-files', '-z', '*.ts'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file !== '' && !GENERATED.has(file));

/** `file:line` of every line matching `test` in the tracked TypeScript files. */
function linesWhere(test: (line: string) => boolean): string[] {
  return tracked.flatMap((file) =>
    readFileSync(resolve(root, file), 'utf8')
      .split('\n')
      .flatMap((line, index) => (test(line) ? [`${file}:${index + 1}`] : [])),
  );
}

/**
 * What a diary writes: a clock time with its zone (at 11:29 UTC), a day with what happened on it
 * (2026-11-23, afternoon; 2026-11-23 at …), or a session's issue number. A date as data (an
 * example expiry, a leap day the properties probe) is not one.
 */
const DIARY = /\bat \d{1,2}:\d\d (?:UTC|CET|GMT)\b|\b20\d\d-\d\d-\d\d(?:,| at )|\bissue \d+\b/i;
const COMMENT = /^\s*(?:\/\/|\/\*|\*)/;

describe('source lines', () => {
  it('are at most 120 characters', () => {
    expect(tracked.length).toBeGreaterThan(100);
    expect(linesWhere((line) => line.length > 120)).toEqual([]);
  });

  it('carry no dated comment', () => {
    const dated = linesWhere((line) => COMMENT.test(line) && DIARY.test(line));
    expect(dated.filter((where) => !where.startsWith(`${SELF}:`))).toEqual([]);
  });

  it("the README carries no dated line but the waiver example's expiry", () => {
    const dated = readFileSync(resolve(root, 'README.md'), 'utf8')
      .split('\n')
      .filter((line) => DIARY.test(line) && !/"expires":/.test(line));
    expect(dated).toEqual([]);
  });

  it('the checks are not vacuous', () => {
    expect(DIARY.test('// measured at 11:29 UTC')).toBe(true);
    expect(DIARY.test(' * 2026-11-23, afternoon')).toBe(true);
    expect(DIARY.test('// fixed in issue 11')).toBe(true);
    expect(DIARY.test(' * "expires": "2026-12-31" } ] }')).toBe(false);
  });
});
