/**
 * Validators as code, made once and kept on disk (ajv's standalone code), so that a process
 * that validates (each test worker of a run, each fault runner of the self-proof) loads them in a
 * few milliseconds instead of compiling them: openapi.json's (validator.ts), whose compilation
 * every worker of every run would pay, and the OpenAPI 3.1 schema a served description is
 * checked against (openapi-description.ts).
 *
 * The file is named by a hash of everything its code is made from (the document, the pointers,
 * ajv's and ajv-formats' versions, the options), so an edited openapi.json or an upgrade makes a
 * new file and never loads a stale one. It caches code, never results. It lives in the user's own
 * cache folder (the one load/install-k6.sh keeps k6 in), not in a shared temporary folder, since
 * it is code this process runs. A file that is missing, unreadable or fails to load is made again;
 * a folder that cannot be written only costs the compile.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);

/** ajv's standalone code generator, required only to write a file (it is CommonJS). */
type StandaloneCode = (ajv: Ajv2020, refs: Record<string, string>) => string;
function standaloneCode(ajv: Ajv2020, refs: Record<string, string>): string {
  const standalone = require('ajv/dist/standalone/index.js') as { default?: StandaloneCode } & StandaloneCode;
  return (standalone.default ?? standalone)(ajv, refs);
}

export interface PrecompileOptions {
  /** What the file holds, the start of its name ("openapi-validators"). */
  readonly name: string;
  /** The schema document, added to ajv under `documentId`. */
  readonly document: object;
  readonly documentId: string;
  /** JSON pointers into the document ("#/components/schemas/Cdr"; "" for the whole), each one validator. */
  readonly pointers: readonly string[];
  /** A configured ajv (formats added); `source` keeps the generated code, which the file is made of. */
  readonly makeAjv: (source: boolean) => Ajv2020;
  /** The options makeAjv applies, as they count for the file's name. */
  readonly optionsKey: string;
  /** Where the file is kept; undefined: nowhere (compile in memory). */
  readonly directory: string | undefined;
}

function versionOf(packageName: string): string {
  return (require(`${packageName}/package.json`) as { version: string }).version;
}

/** The file's name: a hash of what its code is made from. Pure but for the installed versions it reads. */
export function precompiledFileName(
  options: Pick<PrecompileOptions, 'name' | 'document' | 'pointers' | 'optionsKey'>,
): string {
  const hash = createHash('sha256')
    .update(
      JSON.stringify([
        versionOf('ajv'),
        versionOf('ajv-formats'),
        options.optionsKey,
        options.pointers,
        options.document,
      ]),
    )
    .digest('hex')
    .slice(0, 24);
  return `${options.name}-${hash}.cjs`;
}

/**
 * Runs a standalone module's code and takes its validators (v0, v1, … in pointer order);
 * undefined when it does not give them all.
 */
function evaluate(code: string, count: number): ValidateFunction[] | undefined {
  const module = { exports: {} as Record<string, unknown> };
  new Function('require', 'module', 'exports', code)(require, module, module.exports);
  const validators = Array.from({ length: count }, (_, index) => module.exports[`v${index}`]);
  return validators.every((v) => typeof v === 'function') ? (validators as ValidateFunction[]) : undefined;
}

/** The validators of every pointer: loaded from the kept file, or compiled (and the file written). */
export function precompiledValidators(options: PrecompileOptions): Map<string, ValidateFunction> {
  const { pointers } = options;
  const file = options.directory === undefined ? undefined : join(options.directory, precompiledFileName(options));
  if (file !== undefined) {
    try {
      const loaded = evaluate(readFileSync(file, 'utf8'), pointers.length);
      if (loaded !== undefined) return new Map(pointers.map((pointer, index) => [pointer, loaded[index]!]));
    } catch {
      // Missing, unreadable or broken: made again below.
    }
  }
  const ajv = options.makeAjv(file !== undefined);
  ajv.addSchema(options.document, options.documentId);
  const refs = Object.fromEntries(pointers.map((pointer, index) => [`v${index}`, `${options.documentId}${pointer}`]));
  const compiled = new Map(
    pointers.map((pointer) => {
      const validate = ajv.getSchema(`${options.documentId}${pointer}`);
      if (validate === undefined) throw new Error(`${options.documentId}: no schema at ${pointer}`);
      return [pointer, validate];
    }),
  );
  if (file !== undefined) {
    try {
      mkdirSync(options.directory!, { recursive: true });
      // Written beside and renamed: a process reading at the same time sees the whole file or none.
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, standaloneCode(ajv, refs));
      renameSync(partial, file);
    } catch {
      // A folder that cannot be written: this process compiled, the next one compiles again.
    }
  }
  return compiled;
}
