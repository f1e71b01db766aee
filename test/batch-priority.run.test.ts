/**
 * The whole runs that are CPU-bound batches run at a lower priority than the files that measure
 * in real time (./batch-priority.ts, vitest.config.ts): this file is one of the batches (its name,
 * *.run.test.ts, puts it in the whole-runs project). k6-probes.timed.test.ts checks the other side,
 * a timed file's priority.
 * It must not import the setup file: importing it lowers the priority, with or without the project.
 */
import { spawnSync } from 'node:child_process';
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';

describe('a whole-runs file', () => {
  it("runs at a lower priority than vitest's own process, and so does every process it starts", () => {
    const own = getPriority();
    expect(own).toBeGreaterThan(getPriority(process.ppid));
    const child = spawnSync(
      process.execPath,
      ['-e', 'process.stdout.write(String(require("node:os").getPriority()))'],
      { encoding: 'utf8' },
    );
    expect(Number(child.stdout)).toBe(own);
  });
});
