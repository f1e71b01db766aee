/**
 * Tests mirror the source: a test sits in test/ under the folder of what it tests, so that the
 * tests of a part are found where the part is. Every folder of test/ is a folder of the project
 * (test/harness/report for harness/report/, test/commands for commands/, …). Two exceptions: this
 * folder, whose tests read the whole tree, and test/ itself, which holds the set-up npm test gives
 * every test file (its scratch folder, the whole runs' priority, the compile cache's warm-up).
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTestFile, root, trackedFiles } from './sources.ts';

/** test/ folders that mirror nothing by design. */
const OWN_FOLDERS = new Set(['test', 'test/architecture']);

/** The folders of test/ with no folder of the same path in the project. Pure but for the file system. */
export function unmirrored(testFiles: readonly string[], isFolder: (path: string) => boolean): string[] {
  const folders = new Set(testFiles.map((file) => dirname(file)));
  return [...folders].filter((folder) => !OWN_FOLDERS.has(folder) && !isFolder(folder.slice('test/'.length))).sort();
}

const isFolder = (path: string) => existsSync(resolve(root, path)) && statSync(resolve(root, path)).isDirectory();

describe('test layout', () => {
  it('every folder of test/ is a folder of the project', () => {
    expect(unmirrored(trackedFiles.filter(isTestFile), isFolder)).toEqual([]);
  });

  it('names a folder with no counterpart', () => {
    const files = ['test/harness/run/a.test.ts', 'test/report/b.test.ts', 'test/architecture/c.test.ts', 'test/d.ts'];
    expect(unmirrored(files, (path) => path === 'harness/run')).toEqual(['test/report']);
  });
});
