/**
 * The k6 probes ship as TypeScript (k6 strips types itself), but a module they import from outside
 * `load/` (the suite's redactor, harness/http/redact.ts) ships only as the JavaScript the build emits:
 * the package holds no TypeScript for Node to strip outside `dist/load/`. So in the copied probes, a
 * relative import that leaves `load/` names the emitted `.js`, which k6 loads as plain ES module code. Pure.
 */
import { dirname, join, normalize, relative } from 'node:path';

const RELATIVE_IMPORT = /(\bfrom\s+|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\.ts\2/g;

/**
 * `source` of the k6 file at `file` (a path relative to the package's dist root, under `load/`) with
 * every relative `.ts` import that resolves outside `load/` rewritten to `.js`; `outside` lists the
 * modules it now imports as `.js` (dist-relative), which the build must have emitted.
 */
export function rewriteK6Imports(file: string, source: string): { code: string; outside: string[] } {
  const outside: string[] = [];
  const code = source.replace(RELATIVE_IMPORT, (whole, keyword: string, quote: string, path: string) => {
    const target = normalize(join(dirname(file), `${path}.ts`));
    if (!relative('load', target).startsWith('..')) return whole;
    outside.push(target.replace(/\.ts$/, '.js'));
    return `${keyword}${quote}${path}.js${quote}`;
  });
  return { code, outside };
}
