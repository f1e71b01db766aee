/**
 * `npm pack`'s prepack step: emits the suite as JavaScript into dist/ and copies in the files the
 * emitted code reads at run time: the JSON it imports, the k6 probes (k6 runs TypeScript itself,
 * so they stay .ts), the k6 installer and its pinned Go module, and the protocol documents.
 * dist/ mirrors the repository's layout, so every path computed from a module's own location
 * (cli/package-root.ts) holds in both.
 *
 * Why emit at all: Node 24 refuses to strip types from .ts files under node_modules
 * (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING), so the installed package runs JavaScript.
 * Every file is erasable syntax (tsconfig.json's erasableSyntaxOnly), so emitting is stripping
 * types and rewriting relative `./x.ts` imports to `./x.js`: oxc's transform (rolldown/utils, the
 * transformer vitest already runs on these files) does both per file, in a small fraction of the time
 * TypeScript's emitter takes, and every `npm pack` runs this step (npm test packs once).
 * `npm run typecheck` is what checks the types.
 */
import { chmodSync, cpSync, existsSync, globSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'rolldown/utils';
import { rewriteK6Imports } from './k6-imports.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/**
 * The suite's modules: what the package runs (never the tests, benchmarks or packaging). Of the k6
 * side, the runner and the one library module Node code imports too (the probes' request counts).
 */
const sources = [
  ...['commands', 'cli', 'control-check', 'self-proof', 'verify'],
  ...['contract', 'harness', 'operators', 'reference', 'requirements', 'suites', 'properties'],
]
  .map((dir) => `${dir}/**/*.ts`)
  .concat(['load/run.ts', 'load/lib/probe-shape.ts', 'vitest.config.ts', 'vitest.run.config.ts'])
  .concat(['vitest.self-proof.config.ts'])
  // The runners' merge and the k6-operator manifest (occ load --runners, merge, k6-operator-manifest).
  .concat(['load/distributed/*.ts', 'load/lib/runners.ts', 'load/lib/junit.ts']);

/** Files read at run time that are not emitted. Optional ones may not exist yet. */
const assets: readonly { path: string; optional?: boolean }[] = [
  { path: 'load/rate-limit.ts' },
  { path: 'load/webhook-retry.ts' },
  { path: 'load/lib' },
  { path: 'load/install-k6.sh' },
  { path: 'load/k6-build' },
  // Imported as JSON modules by the emitted code; openapi.json byte for byte: evidence.zip names its SHA-256.
  { path: 'control-openapi.json', optional: true },
  { path: 'openapi.json' },
  { path: 'package.json' },
  // The documented variables: evidence.zip's configuration fingerprint lists which are set.
  { path: '.env.example' },
];

rmSync(dist, { recursive: true, force: true });
for (const file of globSync(sources, { cwd: root }).filter((path) => !path.endsWith('.d.ts'))) {
  const { code, errors } = transformSync(file, readFileSync(join(root, file), 'utf8'), {
    lang: 'ts',
    sourceType: 'module',
    target: 'es2024',
    typescript: { rewriteImportExtensions: 'rewrite' },
  });
  if (errors.length > 0) throw new Error(`packaging: ${file}: ${errors.map((error) => error.message).join('; ')}`);
  const out = join(dist, file.replace(/\.ts$/, '.js'));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, code);
}
for (const asset of assets) {
  const from = join(root, asset.path);
  if (!existsSync(from)) {
    if (asset.optional) continue;
    throw new Error(`packaging: ${asset.path} is missing`);
  }
  cpSync(from, join(dist, asset.path), { recursive: true });
}
// The probes' imports from outside load/ name the emitted JavaScript (./k6-imports.ts).
for (const file of globSync('load/**/*.ts', { cwd: dist })) {
  const { code, outside } = rewriteK6Imports(file, readFileSync(join(dist, file), 'utf8'));
  const missing = outside.filter((module) => !existsSync(join(dist, module)));
  if (missing.length > 0) throw new Error(`packaging: ${file} imports ${missing.join(', ')}, which is not emitted`);
  writeFileSync(join(dist, file), code);
}
chmodSync(join(dist, 'load/install-k6.sh'), 0o755);
process.stdout.write(`packaging: emitted the suite into ${dist}\n`);
