/**
 * Every file of the repository that the README, the docs, the examples and `bin/occ.js` name exists: a renamed
 * test or a moved script leaves no stale path behind for a newcomer to follow.
 */
import { existsSync, globSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './sources.ts';

const DOCUMENTS = ['README.md', 'docs/*.md', 'load/README.md', 'bench/RESULTS.md', 'bin/occ.js', 'examples/*.yml'];
const FOLDERS = [
  ...['bench', 'bin', 'cli', 'contract', 'docs', 'examples', 'harness', 'load', 'packaging', 'properties'],
  ...['reference', 'requirements', 'scripts', 'suites', 'test', 'tools'],
].join('|');
/** A path from the root to a file, not inside another one (`reports/latest/k6-rate-limit.json` names no test/ file). */
const PATH = new RegExp(`(?<![\\w./-])(?:${FOLDERS})/[\\w./-]*\\w\\.(?:ts|js|sh|yml|json|md)\\b`, 'g');

/** `document: path` of every path a document names that does not exist. */
export function stalePaths(document: string, text: string, exists: (path: string) => boolean): string[] {
  return [...new Set(text.match(PATH) ?? [])].filter((path) => !exists(path)).map((path) => `${document}: ${path}`);
}

describe('paths in the documentation', () => {
  it('name files that exist', () => {
    const documents = globSync(DOCUMENTS, { cwd: root });
    expect(documents.length).toBeGreaterThan(4);
    const stale = documents.flatMap((document) =>
      stalePaths(document, readFileSync(resolve(root, document), 'utf8'), (path) => existsSync(resolve(root, path))),
    );
    expect(stale).toEqual([]);
  });

  it('finds what it forbids (the rule is not vacuous)', () => {
    const text = 'see test/cli/gone.test.ts and reports/latest/k6-rate-limit.json, built by scripts/x.ts';
    expect(stalePaths('README.md', text, () => false)).toEqual([
      'README.md: test/cli/gone.test.ts',
      'README.md: scripts/x.ts',
    ]);
  });
});
