/**
 * No test of the project's own skips itself on a condition (`it.skipIf`, `describe.runIf`,
 * `if (…) ctx.skip()`, `cond && it.skip(…)`): a test whose precondition is missing (a file, a
 * program, a variable) fails saying what is missing, or moves where the precondition holds. A
 * skip that must stay is listed here, by file and line text, with why.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { isTestFile, nodesOf, parse, trackedFiles, where } from './sources.ts';

/** `file: the skipping line, trimmed` → why it may skip. Keep it empty. */
const ALLOWED_SKIPS: Readonly<Record<string, string>> = {};

/** The rule's own example, which it must find. */
const FIXTURE = 'test/architecture/skips.fixture.ts';

/** Whether `node` runs only on a condition within its function: under an if, a ternary, `&&`, `||` or `??`. */
function conditional(node: ts.Node): boolean {
  for (let up = node.parent; up !== undefined && !ts.isFunctionLike(up); up = up.parent) {
    if (ts.isIfStatement(up) || ts.isConditionalExpression(up)) return true;
    if (
      ts.isBinaryExpression(up) &&
      [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(
        up.operatorToken.kind,
      )
    )
      return true;
  }
  return false;
}

/** Every conditional skip in `file`: `file:line` and the line's text. */
export function conditionalSkips(file: string): string[] {
  const source = parse(file);
  return nodesOf(source)
    .filter((node) => {
      if (!ts.isCallExpression(node)) return false;
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : ts.isIdentifier(callee)
          ? callee.text
          : '';
      if (name === 'skipIf' || name === 'runIf') return true;
      return name === 'skip' && conditional(node);
    })
    .map((node) => ({
      at: where(source, node),
      line: source.text.split('\n')[source.getLineAndCharacterOfPosition(node.getStart(source)).line]!.trim(),
    }))
    .filter(({ line }) => !(`${file}: ${line}` in ALLOWED_SKIPS))
    .map(({ at, line }) => `${at}: ${line}`);
}

describe('test skips', () => {
  it('no test file skips itself on a condition', () => {
    expect(
      trackedFiles.filter((f) => isTestFile(f) && f.endsWith('.ts') && f !== FIXTURE).flatMap(conditionalSkips),
    ).toEqual([]);
  });

  it('finds what it forbids (the rule is not vacuous)', () => {
    expect(conditionalSkips(FIXTURE)).toHaveLength(4);
  });
});
