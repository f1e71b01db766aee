/**
 * `npm pack`'s prepack step: emits the suite as JavaScript into dist/ (see packaging/tsconfig.json
 * for why) and copies in the files the emitted code reads at run time: the k6 probes (k6 runs
 * TypeScript itself, so they stay .ts), the k6 installer and its pinned Go module, and the
 * protocol documents. dist/ mirrors the repository's layout, so every path computed from a
 * module's own location (cli/package-root.ts) holds in both.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/** Files read at run time that the compiler does not emit. Optional ones may not exist yet. */
const assets: readonly { path: string; optional?: boolean }[] = [
  { path: 'load/rate-limit.ts' },
  { path: 'load/webhook-retry.ts' },
  { path: 'load/lib' },
  { path: 'load/install-k6.sh' },
  { path: 'load/k6-build' },
  { path: 'control-openapi.json', optional: true },
  // Byte for byte (the compiler re-emits JSON): evidence.zip names its SHA-256.
  { path: 'openapi.json' },
  // The documented variables: evidence.zip's configuration fingerprint lists which are set.
  { path: '.env.example' },
];

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'packaging/tsconfig.json')], { stdio: 'inherit' });
for (const asset of assets) {
  const from = join(root, asset.path);
  if (!existsSync(from)) {
    if (asset.optional) continue;
    throw new Error(`packaging: ${asset.path} is missing`);
  }
  cpSync(from, join(dist, asset.path), { recursive: true });
}
chmodSync(join(dist, 'load/install-k6.sh'), 0o755);
process.stdout.write(`packaging: emitted the suite into ${dist}\n`);
