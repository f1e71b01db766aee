/**
 * The project's tracked TypeScript and JavaScript files, parsed, for the architecture tests that
 * read the code's shape (what a regular expression over the text would miss in a comment or a
 * string, the syntax tree does not). Generated files are left out.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';

export const root = resolve(import.meta.dirname, '../..');
const GENERATED = new Set(['contract/openapi-types.ts']);

/** Every tracked .ts and .js file by path from the root, generated ones excepted. */
export const trackedFiles: readonly string[] = execFileSync('git', ['ls-files', '-z', '*.ts', '*.js'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\0')
  .filter((file) => file !== '' && !GENERATED.has(file));

/** Whether `file` is a test of the project's own (test/), not part of the suite. */
export const isTestFile = (file: string): boolean => file.startsWith('test/');

const parsed = new Map<string, ts.SourceFile>();

/** A file's syntax tree, parsed once per test file. */
export function parse(file: string): ts.SourceFile {
  let source = parsed.get(file);
  if (source === undefined) {
    source = ts.createSourceFile(file, readFileSync(resolve(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    parsed.set(file, source);
  }
  return source;
}

/** Every node of a file, depth first, with its ancestors' chain available through `parent`. */
export function nodesOf(file: ts.SourceFile): ts.Node[] {
  const nodes: ts.Node[] = [];
  const visit = (node: ts.Node): void => {
    nodes.push(node);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return nodes;
}

/** `file:line` of a node. */
export function where(file: ts.SourceFile, node: ts.Node): string {
  return `${file.fileName}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
}
