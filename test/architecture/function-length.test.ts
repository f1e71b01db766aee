/**
 * No function of the suite runs over 120 lines, but a suite's `describe` block (a list of checks
 * that reads like the spec) and what it holds. Nested functions count on their own, and within
 * their enclosing function's lines too. The functions longer today are listed with their length:
 * none may grow, each leaves the list once it is split, and the list only shrinks.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { isTestFile, nodesOf, parse, trackedFiles } from './sources.ts';

const LIMIT = 120;

/** `file name` → its length today. Shrink it; never grow it, never add to it (empty: every function fits). */
const LONGER_TODAY: Readonly<Record<string, number>> = {};

/** The files whose `describe` blocks are exempt: the checks and the properties. */
const CHECK_FILES = /^(suites|properties)\//;

/** A function's name as the list writes it: its own, its variable's or property's, or its enclosing one's. */
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  const own = node.name?.getText(source);
  if (own !== undefined) return own;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  let outer: ts.Node | undefined = parent;
  while (outer !== undefined && !(ts.isFunctionLike(outer) && (outer as ts.SignatureDeclaration).name !== undefined))
    outer = outer.parent;
  const enclosing = (outer as ts.SignatureDeclaration | undefined)?.name?.getText(source);
  return enclosing === undefined ? '(anonymous)' : `${enclosing} (anonymous)`;
}

const isDescribeCall = (node: ts.Node, source: ts.SourceFile): boolean =>
  ts.isCallExpression(node) && /^describe\b/.test(node.expression.getText(source));

/** Every function over the limit in `file`, outside a check file's `describe` blocks, with its length. */
export function longFunctions(file: string): Array<[string, number]> {
  const source = parse(file);
  const found: Array<[string, number]> = [];
  for (const node of nodesOf(source)) {
    if (!ts.isFunctionLike(node) || !('body' in node) || node.body === undefined) continue;
    if (CHECK_FILES.test(file)) {
      let up: ts.Node | undefined = node.parent;
      while (up !== undefined && !isDescribeCall(up, source)) up = up.parent;
      if (up !== undefined) continue;
    }
    const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
    const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
    if (last - first + 1 > LIMIT) found.push([`${file} ${nameOf(node, source)}`, last - first + 1]);
  }
  return found;
}

describe('function length', () => {
  const long = new Map(
    trackedFiles.filter((file) => !isTestFile(file) && /\.ts$/.test(file)).flatMap((file) => longFunctions(file)),
  );

  it(`no function of the suite is over ${LIMIT} lines but those listed, and none of those grew`, () => {
    const grown = [...long]
      .filter(([name, lines]) => lines > (LONGER_TODAY[name] ?? LIMIT))
      .map(([name, lines]) => `${name}: ${lines} lines (${LONGER_TODAY[name] ?? LIMIT} allowed)`);
    expect(grown).toEqual([]);
  });

  it('lists only functions still over the limit (split one: take it off the list)', () => {
    expect(Object.keys(LONGER_TODAY).filter((name) => !long.has(name))).toEqual([]);
  });

  it('measures what it means to (the rule is not vacuous)', () => {
    expect(longFunctions('test/architecture/function-length.fixture.ts')).toEqual([
      ['test/architecture/function-length.fixture.ts tooLong', LIMIT + 1],
    ]);
  });
});
