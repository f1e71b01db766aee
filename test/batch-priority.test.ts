/**
 * The whole runs that are CPU-bound batches run at a lower priority than the files that measure
 * in real time (./batch-priority.ts, vitest.config.ts): this file is one of the batches (the
 * whole-runs project names it). k6-probes.test.ts checks the other side, a timed file's priority.
 */
import { spawnSync } from 'node:child_process';
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { BATCH_NICENESS } from './batch-priority.ts';

describe('a whole-runs file', () => {
  it('runs BATCH_NICENESS nice levels below vitest\'s own process, and so does every process it starts', () => {
    const expected = Math.min(19, getPriority(process.ppid) + BATCH_NICENESS);
    expect(getPriority()).toBe(expected);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(require("node:os").getPriority()))'], { encoding: 'utf8' });
    expect(Number(child.stdout)).toBe(expected);
  });
});
