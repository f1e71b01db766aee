/**
 * Where the suite's own files are, wherever it runs from: a clone (TypeScript run by Node's type
 * stripping) or an installed npm package (the JavaScript `npm pack` emits into dist/, because Node
 * refuses to strip types under node_modules). Every path to a file of the suite goes through here,
 * never through the working directory, which is the user's.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The folder holding openapi.json, package.json's copy of the suite and cli/ (repo root, or dist/ in the package). */
export const packageRoot = resolve(here, '..');

/** `.ts` when running from source, `.js` when running the emitted package. */
export const sourceExtension = extname(fileURLToPath(import.meta.url));

/** An entry point of the suite by its path without extension, e.g. `commands/run`. */
export function entryPoint(pathWithoutExtension: string): string {
  return join(packageRoot, `${pathWithoutExtension}${sourceExtension}`);
}

/**
 * A vitest configuration of the suite (.ts, or .js when emitted): `run`, the one `occ run` uses
 * (vitest.run.config.ts), `self-proof`, its runners', each the project's own plus the `target` project.
 */
export function vitestConfigFile(kind: 'run' | 'self-proof'): string {
  const file = entryPoint(`vitest.${kind}.config`);
  if (!existsSync(file))
    throw new Error(`the suite's vitest configuration is missing (${file}); reinstall the package`);
  return file;
}

/**
 * The V8 compile cache the suite's own Node processes share (NODE_COMPILE_CACHE, unless the user
 * set one): runs, runners and reference servers compile the same modules. It caches code, not results.
 */
export const compileCacheDirectory = join(tmpdir(), 'occ-node-compile-cache');
