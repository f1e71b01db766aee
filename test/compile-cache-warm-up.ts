/**
 * Global set-up of the `whole-runs` project (vitest.config.ts): one short embedded `occ run`
 * before any test file starts, so that Node's compile cache (NODE_COMPILE_CACHE, vitest.config.ts)
 * holds the code of vitest, vite, fastify, undici, the reference server and the suite before the
 * dozens of runs, runners and reference processes of npm test compile it.
 *
 * Why: Node writes a process's compile-cache entries when the process exits, and most of those
 * processes start in npm test's first seconds, so on a fresh clone (every CI run) each of them
 * compiled everything cold; with this run first, the whole of npm test spends fewer CPU-seconds
 * than without it (`npm run bench:npm-test` with an empty NODE_COMPILE_CACHE, alternating). It
 * costs one short run when the cache is already warm.
 *
 * It warms a cache and verifies nothing, so its outcome is not judged (the tests judge runs); it
 * runs in an empty folder, so no developer's .env can point it at a remote target, and it is
 * bounded in time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runOcc } from './commands/occ-process.ts';

const WARM_UP_LIMIT_MS = 60_000;

export default async function warmCompileCache(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'occ-warm-up-'));
  try {
    await runOcc(
      ['run', '--no-properties', '--only', 'ME-200-SHAPE', '--reports-dir', folder],
      {},
      folder,
      WARM_UP_LIMIT_MS,
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
