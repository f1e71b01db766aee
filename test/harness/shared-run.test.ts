/**
 * One run per process (harness/run/lifecycle.ts): `occ run` starts it before vitest, and
 * vitest's global set-up must take that run, not start a second reference server beside it.
 * A dry run against the embedded target starts no server, so these runs are cheap and send nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestProject } from 'vitest/node';
import setup from '../../harness/run/global-setup.ts';
import { acquireRun, releaseRun } from '../../harness/run/lifecycle.ts';

const variables = ['API_BASE_URL', 'AUTH_URL', 'CONTROL_URL', 'OCC_DRY_RUN', 'OCC_HOOK_JOURNAL', 'OCC_CONTROL_JOURNAL'] as const;
let saved: Partial<Record<(typeof variables)[number], string>> = {};
let journals = '';

beforeEach(() => {
  saved = Object.fromEntries(variables.map((name) => [name, process.env[name]]));
  for (const name of variables) delete process.env[name];
  process.env.OCC_DRY_RUN = '1';
  journals = mkdtempSync(join(tmpdir(), 'occ-shared-run-'));
  process.env.OCC_HOOK_JOURNAL = join(journals, 'hooks.jsonl');
  process.env.OCC_CONTROL_JOURNAL = join(journals, 'states.jsonl');
});

afterEach(() => {
  for (const name of variables) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  rmSync(journals, { recursive: true, force: true });
});

/** The part of a vitest project the global set-up uses: what it is given. */
function fakeProject(): { project: TestProject; provided: Map<string, unknown> } {
  const provided = new Map<string, unknown>();
  return { project: { provide: (key: string, value: unknown) => provided.set(key, value) } as unknown as TestProject, provided };
}

describe('the run of a process', () => {
  it('is started once: a second user gets the same run, and only the last release ends it', async () => {
    const first = await acquireRun();
    const second = await acquireRun();
    expect(second).toBe(first);
    expect(first.users).toBe(2);
    await releaseRun(second);
    const third = await acquireRun();
    expect(third).toBe(first);
    await releaseRun(third);
    await releaseRun(first);
    const next = await acquireRun();
    expect(next).not.toBe(first);
    await releaseRun(next);
  });

  it('started before vitest (as occ run does), is the one the global set-up provides, and outlives its teardown', async () => {
    const started = await acquireRun();
    const { project, provided } = fakeProject();
    const teardown = await setup(project);
    expect(provided.get('target')).toBe(started.target);
    expect(started.projects.has(project)).toBe(true);
    await teardown();
    expect(started.projects.has(project)).toBe(false);
    expect(started.users).toBe(1);
    expect(await acquireRun()).toBe(started);
    await releaseRun(started);
    await releaseRun(started);
  });
});
