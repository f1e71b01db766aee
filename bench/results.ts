/**
 * bench/RESULTS.md holds one table of the current figures: goal, command, figure, machine. Each
 * benchmark calls recordResult where it prints its summary figure, and the row whose command is
 * the same is rewritten (a command not in the table yet gets a new row at its end). History is
 * git's: the file only ever says what the last run of each command measured, and on what machine.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

export interface ResultRow {
  /**
   * What is measured and the figure it must reach, e.g. "full `npm run conformance`, embedded: ≤ 5 s wall,
   * median of 5".
   */
  readonly goal: string;
  /** The command that measures it, as a user types it: the row's key. */
  readonly command: string;
  /** The current figure, e.g. "met: median 4.43 s (3.89–4.67 s over 5 runs)". */
  readonly figure: string;
}

export const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

const HEADER = '| goal | command | figure | machine |';
const SEPARATOR = '|---|---|---|---|';

/** This machine as the table names it: cores and memory, e.g. "2 cores, 24 GiB". */
export function thisMachine(): string {
  return `${availableParallelism()} cores, ${Math.round(totalmem() / 2 ** 30)} GiB`;
}

/** A cell's text: one line, its pipes escaped (GFM: `\\|`, inside code spans too). */
const cell = (text: string): string =>
  text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();

/** The cells of a Markdown table row, split on the pipes that are not escaped (`\\|` is a pipe inside a cell). */
export function parseRow(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  const cells: string[] = [];
  let current = '';
  for (let i = 0; i < inner.length; i += 1) {
    const c = inner[i]!;
    if (c === '\\' && inner[i + 1] === '|') {
      current += '|';
      i += 1;
    } else if (c === '|') {
      cells.push(current.trim());
      current = '';
    } else {
      current += c;
    }
  }
  cells.push(current.trim());
  return cells;
}

/** A command cell is the command in backticks; the key compares what is inside them. */
const commandKey = (text: string): string =>
  text
    .trim()
    .replace(/^`(.*)`$/s, '$1')
    .trim();

/**
 * The file's text with the row of `row.command` replaced (or added). The table is the block of
 * lines that starts at the header; everything around it is kept as it is. Pure.
 */
export function withResult(markdown: string, row: ResultRow, machine: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === HEADER);
  if (start === -1 || lines[start + 1]?.trim() !== SEPARATOR)
    throw new Error(`bench/RESULTS.md has no table starting "${HEADER}"`);
  let end = start + 2;
  while (end < lines.length && lines[end]!.trim().startsWith('|')) end += 1;
  const rendered = `| ${cell(row.goal)} | \`${cell(row.command)}\` | ${cell(row.figure)} | ${cell(machine)} |`;
  const at = lines
    .slice(start + 2, end)
    .findIndex((line) => commandKey(parseRow(line)[1] ?? '') === row.command.trim());
  if (at === -1) lines.splice(end, 0, rendered);
  else lines[start + 2 + at] = rendered;
  return lines.join('\n');
}

/** Rewrites the row of `row.command` in bench/RESULTS.md (or `file`) and says so on stdout. */
export function recordResult(row: ResultRow, file = RESULTS_FILE, machine = thisMachine()): void {
  writeFileSync(file, withResult(readFileSync(file, 'utf8'), row, machine));
  process.stdout.write(`recorded in ${file}: ${row.command}\n`);
}
