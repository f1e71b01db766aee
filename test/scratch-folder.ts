/**
 * Global set-up of npm test's projects (vitest.config.ts): every temporary folder the tests and the
 * processes they start make goes into one folder of this run (os.tmpdir() reads TMPDIR, which the
 * workers and every child inherit), removed when the run ends. A CI machine keeps nothing of a run,
 * and no test can meet a folder another run left.
 *
 * The three projects share one folder: the first set-up makes it, the last teardown removes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const shared = Symbol.for('occ.test-scratch-folder');
type Holder = { [shared]?: { folder: string; users: number; previous: string | undefined } };

export default function scratchFolder(): () => void {
  const holder = globalThis as Holder;
  if (holder[shared] === undefined) {
    const folder = mkdtempSync(join(tmpdir(), 'occ-npm-test-'));
    holder[shared] = { folder, users: 0, previous: process.env.TMPDIR };
    process.env.TMPDIR = folder;
  }
  const scratch = holder[shared];
  scratch.users += 1;
  return () => {
    scratch.users -= 1;
    if (scratch.users > 0) return;
    if (scratch.previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = scratch.previous;
    rmSync(scratch.folder, { recursive: true, force: true });
    delete holder[shared];
  };
}
