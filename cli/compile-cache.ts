/**
 * Imported first by commands/occ.ts, for its side effect: turns on Node's on-disk compile cache
 * in this process before a subcommand's modules load (vitest and vite, fastify, the reports, the
 * suite's own), a noticeable part of an `occ run` start-up. It works for what is imported after
 * it runs, which is why occ.ts imports its subcommands with import() (a module's static imports
 * are all compiled before any of them runs). The child processes (test workers, runners) get the
 * same directory through NODE_COMPILE_CACHE (vitest.config.ts, self-proof/catalogue.ts); one the
 * user set wins, and Node has then turned the cache on already. It caches code, never results.
 */
import { enableCompileCache } from 'node:module';
import { compileCacheChosen } from '../harness/config/machine.ts';
import { compileCacheDirectory } from './package-root.ts';

if (!compileCacheChosen()) enableCompileCache(compileCacheDirectory);
