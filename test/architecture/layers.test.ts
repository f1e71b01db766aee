/**
 * The layers of the suite point only down, and no module imports itself back through others:
 *
 *   contract/, requirements/        the ground floor: openapi.json, the catalogue, the validators
 *   operators/                      the near-miss operators: pure functions of the contract alone
 *   reference/                      the embedded reference server, built on the contract alone
 *   harness/                        what checks a target, built on the contract; never on reference/
 *   load/, suites/, properties/     the k6 probes and the checks, built on the harness
 *   cli/                            the composition root: starts the reference, runs vitest
 *
 * Every relative import counts, type-only and dynamic ones included (ts.preProcessFile).
 */
import { readFileSync } from 'node:fs';
import { globSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const SOURCES = [
  'cli',
  'contract',
  'harness',
  'operators',
  'reference',
  'requirements',
  'load',
  'suites',
  'properties',
  'operators',
  'packaging',
  'bench',
]
  .map((dir) => `${dir}/**/*.ts`)
  .concat(['vitest.config.ts']);

/** The suite's modules and the modules (or JSON documents) each imports, by path from the root. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of globSync(SOURCES, {
    cwd: root,
    exclude: (path) => path.includes('node_modules') || path.includes('k6-build'),
  })) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    graph.set(
      file,
      importedFiles
        .map((i) => i.fileName)
        .filter((name) => name.startsWith('.'))
        .map((name) => relative(root, resolve(root, dirname(file), name))),
    );
  }
  return graph;
}

/** Every cycle, each once, as the path that closes it. Pure. */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (state.get(next) === undefined && graph.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (state.get(node) === undefined) visit(node);
  return found;
}

/** The imports of files under `from` that reach a path not under one of `allowed`: "a -> b". Pure. */
export function importsOutside(
  graph: ReadonlyMap<string, readonly string[]>,
  from: string,
  allowed: readonly string[],
): string[] {
  const inside = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  return [...graph]
    .filter(([file]) => inside(file, from))
    .flatMap(([file, targets]) =>
      targets
        .filter((target) => !allowed.some((prefix) => inside(target, prefix)))
        .map((target) => `${file} -> ${target}`),
    );
}

/** The contract's own documents at the root, which the ground floor reads. */
const DOCUMENTS = ['openapi.json', 'control-openapi.json', 'package.json'];

describe('the import graph', () => {
  const graph = importGraph();

  it("is read from the suite's sources", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('harness/checks/check.ts')).toContain('harness/run/session.ts');
  });

  it('has no cycle', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('the contract is the ground floor: contract/ and requirements/ import only each other and the documents', () => {
    const ground = ['contract', 'requirements', ...DOCUMENTS];
    expect(importsOutside(graph, 'contract', ground)).toEqual([]);
    expect(importsOutside(graph, 'requirements', ground)).toEqual([]);
  });

  it('keeps the near-miss operators pure, on the contract alone', () => {
    expect(importsOutside(graph, 'operators', ['operators', 'contract', ...DOCUMENTS])).toEqual([]);
  });

  it('builds the reference on the contract alone, never on harness/, load/, suites/, properties/ or cli/', () => {
    expect(importsOutside(graph, 'reference', ['reference', 'contract', 'requirements', ...DOCUMENTS])).toEqual([]);
  });

  it('derives the near-miss operators from the contract alone', () => {
    expect(importsOutside(graph, 'operators', ['operators', 'contract', ...DOCUMENTS])).toEqual([]);
  });

  it('keeps the harness on the contract alone, below the reference it checks and everything that uses it', () => {
    expect(importsOutside(graph, 'harness', ['harness', 'contract', 'requirements', ...DOCUMENTS])).toEqual([]);
  });

  it('leaves the composition root on top: nothing but cli/ (and the benchmarks that drive it) imports cli/', () => {
    for (const layer of ['load', 'suites', 'properties'])
      expect(
        importsOutside(graph, layer, [
          'contract',
          'requirements',
          'harness',
          'operators',
          'reference',
          'load',
          'suites',
          'properties',
          'operators',
          ...DOCUMENTS,
        ]),
      ).toEqual([]);
  });

  it('finds what it forbids (the rules are not vacuous)', () => {
    const bad = new Map([
      ['harness/a.ts', ['reference/b.ts']],
      ['reference/b.ts', ['harness/a.ts']],
    ]);
    expect(cycles(bad)).toEqual([['harness/a.ts', 'reference/b.ts', 'harness/a.ts']]);
    expect(importsOutside(bad, 'harness', ['harness', 'contract'])).toEqual(['harness/a.ts -> reference/b.ts']);
  });
});
