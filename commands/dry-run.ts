/** `occ dry-run`: `occ run --dry-run`, every check and the requests it would send; nothing sent. */
import { run } from './run.ts';

export function dryRun(args: readonly string[]): Promise<number> {
  return run(['--dry-run', ...args]);
}
