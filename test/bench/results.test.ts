/**
 * recordResult keeps bench/RESULTS.md one table: the row of a command is replaced, a new command
 * adds a row, and the file still parses as a Markdown table with the same columns. It works on a
 * temporary copy of the real file, so the figures in the repository are never touched.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RESULTS_FILE, parseRow, recordResult, thisMachine } from '../../bench/results.ts';

/** The table of a RESULTS.md: header, separator and rows, each row's cells, and what is around it. */
function table(markdown: string): { header: string[]; rows: string[][]; before: string; after: string } {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith('| goal |'));
  expect(start, 'the table header').toBeGreaterThan(-1);
  expect(lines[start + 1]).toMatch(/^\|(---\|)+$/);
  let end = start + 2;
  while (end < lines.length && lines[end]!.startsWith('|')) end += 1;
  const header = parseRow(lines[start]!);
  const rows = lines.slice(start + 2, end).map(parseRow);
  for (const row of rows)
    expect(row, `a row of ${header.length} cells: ${row.join(' | ')}`).toHaveLength(header.length);
  return { header, rows, before: lines.slice(0, start).join('\n'), after: lines.slice(end).join('\n') };
}

const dirs: string[] = [];
function copy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'occ-results-'));
  dirs.push(dir);
  const file = join(dir, 'RESULTS.md');
  copyFileSync(RESULTS_FILE, file);
  return file;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('recordResult', () => {
  it("the repository's RESULTS.md is one table of goal, command, figure and machine, one row per command", () => {
    const { header, rows } = table(readFileSync(RESULTS_FILE, 'utf8'));
    expect(header).toEqual(['goal', 'command', 'figure', 'machine']);
    const commands = rows.map((row) => row[1]);
    expect(new Set(commands).size).toBe(commands.length);
    for (const command of commands) expect(command).toMatch(/^`[^`]+`$/);
  });

  it('replaces the row of a command already in the table, and nothing else', () => {
    const file = copy();
    const before = table(readFileSync(file, 'utf8'));
    const index = before.rows.findIndex((row) => row[1] === '`npm run bench:reference`');
    expect(index).toBeGreaterThan(-1);

    recordResult(
      {
        goal: 'reference server: ≥ 15,000 req/s',
        command: 'npm run bench:reference',
        figure: 'met: 70,000 req/s, p99 1 ms',
      },
      file,
      '2 cores, 24 GiB',
    );

    const after = table(readFileSync(file, 'utf8'));
    expect(after.header).toEqual(before.header);
    expect(after.rows).toHaveLength(before.rows.length);
    expect(after.rows[index]).toEqual([
      'reference server: ≥ 15,000 req/s',
      '`npm run bench:reference`',
      'met: 70,000 req/s, p99 1 ms',
      '2 cores, 24 GiB',
    ]);
    expect(after.rows.filter((_, i) => i !== index)).toEqual(before.rows.filter((_, i) => i !== index));
    expect(after.before).toBe(before.before);
    expect(after.after).toBe(before.after);
  });

  it('adds a row for a new command at the end, escaping pipes and joining lines, with this machine by default', () => {
    const file = copy();
    const before = table(readFileSync(file, 'utf8'));

    recordResult(
      { goal: 'a new goal | with a pipe', command: 'npm run bench:new -- --a|b', figure: 'two\nlines' },
      file,
    );

    const after = table(readFileSync(file, 'utf8'));
    expect(after.rows).toHaveLength(before.rows.length + 1);
    expect(after.rows.slice(0, -1)).toEqual(before.rows);
    expect(after.rows.at(-1)).toEqual([
      'a new goal | with a pipe',
      '`npm run bench:new -- --a|b`',
      'two lines',
      thisMachine(),
    ]);
    expect(after.after).toBe(before.after);

    // The same command again replaces its row instead of adding another.
    recordResult({ goal: 'a new goal', command: 'npm run bench:new -- --a|b', figure: 'one line' }, file, 'elsewhere');
    const again = table(readFileSync(file, 'utf8'));
    expect(again.rows).toHaveLength(before.rows.length + 1);
    expect(again.rows.at(-1)).toEqual(['a new goal', '`npm run bench:new -- --a|b`', 'one line', 'elsewhere']);
  });

  it('refuses a file without the table, and leaves it as it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'occ-results-'));
    dirs.push(dir);
    const file = join(dir, 'RESULTS.md');
    const text = '# Benchmark results\n\n| what | how |\n|---|---|\n| a | b |\n';
    writeFileSync(file, text);
    expect(() => recordResult({ goal: 'g', command: 'c', figure: 'f' }, file)).toThrow(/no table starting/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});
