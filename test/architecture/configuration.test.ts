/**
 * Configuration is read in one place and handed down: no module reads `process.env` but the
 * configuration module (harness/config/), the standalone programs' own entry points and the
 * project's tests and benchmarks; and no module passes values through `globalThis` but the few
 * named below, each with the reason it cannot yet do otherwise (docs/architecture.md, "Configuration").
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { documentedVariables } from '../../harness/config/documented.ts';
import { isTestFile, nodesOf, parse, root, trackedFiles, where } from './sources.ts';

/**
 * Where `process.env` may be read: the configuration module; the standalone programs, which read
 * their own flags and variables (`occ reference`, `occ receiver`); the benchmarks, each a program a
 * developer runs by hand with its own BENCH_* variables. Tests are exempt (they set up the
 * environments of the programs they start).
 */
const ENVIRONMENT_READERS = ['harness/config/', 'reference/cli.ts', 'harness/webhooks/receiver-cli.ts', 'bench/'];

/**
 * The `globalThis` channels left, each named with why it is one. Shrink it; never grow it.
 */
export const GLOBAL_CHANNELS: Readonly<Record<string, string>> = {
  'test/scratch-folder.ts': "npm test's scratch folder, shared by the global set-ups of its three projects",
  'bench/receiver.ts': "V8's `gc` function under --expose-gc: a global of the runtime, not a channel of ours",
  'test/load/lib/summary.test.ts': "stands in for k6's `__ENV` global around a probe's module under test",
};

/** `file:line` of every read of process.env: `process.env`, `process['env']`, `{ env } = process`, `import { env }`. */
function environmentReads(file: string): string[] {
  const source = parse(file);
  const isProcess = (node: ts.Node) => ts.isIdentifier(node) && node.text === 'process';
  return nodesOf(source)
    .filter(
      (node) =>
        (ts.isPropertyAccessExpression(node) && isProcess(node.expression) && node.name.text === 'env') ||
        (ts.isElementAccessExpression(node) &&
          isProcess(node.expression) &&
          ts.isStringLiteral(node.argumentExpression) &&
          node.argumentExpression.text === 'env') ||
        (ts.isVariableDeclaration(node) &&
          node.initializer !== undefined &&
          isProcess(node.initializer) &&
          ts.isObjectBindingPattern(node.name) &&
          node.name.elements.some((e) => (e.propertyName ?? e.name).getText(source) === 'env')) ||
        (ts.isImportDeclaration(node) &&
          ts.isStringLiteral(node.moduleSpecifier) &&
          /^(node:)?process$/.test(node.moduleSpecifier.text) &&
          /\benv\b/.test(node.importClause?.getText(source) ?? '')),
    )
    .map((node) => where(source, node));
}

function usesGlobalThis(file: string): boolean {
  return nodesOf(parse(file)).some((node) => ts.isIdentifier(node) && node.text === 'globalThis');
}

describe('configuration', () => {
  it('is read from process.env only by the configuration module and the standalone entry points', () => {
    const reads = trackedFiles
      .filter((file) => !isTestFile(file) && !ENVIRONMENT_READERS.some((allowed) => file.startsWith(allowed)))
      .flatMap(environmentReads);
    expect(reads).toEqual([]);
  });

  it('documents in .env.example every variable the configuration module names', () => {
    const documented = new Set(documentedVariables(readFileSync(resolve(root, '.env.example'), 'utf8')));
    const named = trackedFiles
      .filter((file) => file.startsWith('harness/config/'))
      .flatMap((file) =>
        nodesOf(parse(file)).flatMap((node) =>
          (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
          /^[A-Z][A-Z0-9]*_[A-Z0-9_]+$/.test(node.text)
            ? [node.text]
            : ts.isPropertyAccessExpression(node) &&
                ts.isIdentifier(node.expression) &&
                node.expression.text === 'env' &&
                /^[A-Z][A-Z0-9_]+$/.test(node.name.text)
              ? [node.name.text]
              : [],
        ),
      );
    // XDG_CACHE_HOME and the like are the machine's, read as the cache folder's fallback, not the suite's.
    const machine = new Set(['XDG_CACHE_HOME']);
    expect(named).toEqual(expect.arrayContaining(['API_BASE_URL', 'OCC_CACHE_DIR', 'LOAD_RUNNERS', 'WAIVERS_FILE']));
    expect([...new Set(named)].filter((name) => !documented.has(name) && !machine.has(name)).sort()).toEqual([]);
  });

  it('passes nothing through globalThis but the named channels', () => {
    const users = trackedFiles.filter(usesGlobalThis).sort();
    expect(users).toEqual(Object.keys(GLOBAL_CHANNELS).sort());
  });

  it('finds what it forbids (the rules are not vacuous)', () => {
    expect(environmentReads('harness/config/environment.ts').length).toBeGreaterThan(0);
    expect(environmentReads('reference/cli.ts').length).toBeGreaterThan(0);
    expect(usesGlobalThis('test/scratch-folder.ts')).toBe(true);
  });
});
