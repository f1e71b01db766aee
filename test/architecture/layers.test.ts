/**
 * The layers of the suite point only down, and no module imports itself back through others:
 *
 *   contract/, requirements/        the ground floor: openapi.json, the catalogue, the validators
 *   operators/                      the near-miss operators: pure functions of the contract alone
 *   reference/                      the embedded reference server, built on the contract alone
 *   harness/                        what checks a target, built on the contract; never on reference/
 *   suites/, properties/            the checks, built on the harness and the operators
 *   load/                           the k6 probes and their runner, built on the harness
 *   control-check/                  `occ control-check`, built on the harness
 *   cli/                            the parts of `occ run` and what the commands share
 *   verify/, self-proof/            `occ verify` and `occ self-proof`, built on the harness and cli/
 *   commands/                       the composition roots: one file per `occ` subcommand, which
 *                                   alone start the reference and hand it down by calls
 *
 * No exemption: nothing but commands/ imports reference/ (the project's tests and benchmarks
 * aside, which drive it), and nothing but commands/ imports commands/.
 * Every relative import counts, type-only and dynamic ones included (ts.preProcessFile).
 */
import { readFileSync } from 'node:fs';
import { globSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const SOURCES = [
  ...['commands', 'cli', 'control-check', 'self-proof', 'verify'],
  ...['contract', 'harness', 'operators', 'reference', 'requirements', 'load', 'suites', 'properties'],
  ...['packaging', 'bench'],
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

/** The imports of files outside `allowed` that reach a path under `to`: "a -> b". Pure. */
export function importersOf(
  graph: ReadonlyMap<string, readonly string[]>,
  to: string,
  allowed: readonly string[],
): string[] {
  const inside = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  return [...graph]
    .filter(([file]) => !allowed.some((prefix) => inside(file, prefix)))
    .flatMap(([file, targets]) =>
      targets.filter((target) => inside(target, to)).map((target) => `${file} -> ${target}`),
    );
}

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

  it('builds the reference on the contract alone, never on harness/, load/, suites/, properties/ or commands/', () => {
    expect(importsOutside(graph, 'reference', ['reference', 'contract', 'requirements', ...DOCUMENTS])).toEqual([]);
  });

  it('keeps the harness on the contract alone, below the reference it checks and everything that uses it', () => {
    expect(importsOutside(graph, 'harness', ['harness', 'contract', 'requirements', ...DOCUMENTS])).toEqual([]);
  });

  it('builds the checks on the harness and the operators alone: no check imports reference/ or load/', () => {
    const checks = ['harness', 'operators', 'contract', 'requirements', ...DOCUMENTS];
    expect(importsOutside(graph, 'suites', ['suites', ...checks])).toEqual([]);
    expect(importsOutside(graph, 'properties', ['properties', ...checks])).toEqual([]);
  });

  it('builds the k6 probes, control-check, cli/, verify/ and self-proof/ on the layers below them', () => {
    const below = ['harness', 'contract', 'requirements', ...DOCUMENTS];
    expect(importsOutside(graph, 'load', ['load', ...below])).toEqual([]);
    expect(importsOutside(graph, 'control-check', ['control-check', ...below])).toEqual([]);
    expect(importsOutside(graph, 'cli', ['cli', 'control-check', 'load/lib', ...below])).toEqual([]);
    expect(importsOutside(graph, 'verify', ['verify', 'cli', ...below])).toEqual([]);
    expect(importsOutside(graph, 'self-proof', ['self-proof', 'cli', ...below])).toEqual([]);
  });

  it('leaves the reference to the composition roots: nothing but commands/ (and the benchmarks) imports it', () => {
    expect(importersOf(graph, 'reference', ['reference', 'commands', 'bench'])).toEqual([]);
  });

  it('keeps the composition roots on top: nothing but commands/ imports commands/', () => {
    expect(importersOf(graph, 'commands', ['commands'])).toEqual([]);
  });

  it('finds what it forbids (the rules are not vacuous)', () => {
    const bad = new Map([
      ['harness/a.ts', ['reference/b.ts']],
      ['reference/b.ts', ['harness/a.ts']],
    ]);
    expect(cycles(bad)).toEqual([['harness/a.ts', 'reference/b.ts', 'harness/a.ts']]);
    expect(importsOutside(bad, 'harness', ['harness', 'contract'])).toEqual(['harness/a.ts -> reference/b.ts']);
    const suite = new Map([['suites/rate-limit.suite.ts', ['reference/variants.ts', 'harness/c.ts']]]);
    expect(importersOf(suite, 'reference', ['reference', 'commands'])).toEqual([
      'suites/rate-limit.suite.ts -> reference/variants.ts',
    ]);
  });
});
