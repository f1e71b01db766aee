/**
 * One run per process (harness/run/lifecycle.ts): its users share it, and vitest's global set-up
 * (vitest run directly) starts one only for a project that checks a target, taking a run started
 * first rather than starting a second reference server beside it.
 * A dry run against the embedded target starts no server, so these runs are cheap and send nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestProject } from 'vitest/node';
import setup from '../../cli/vitest-global-setup.ts';
import { loadConfig } from '../../harness/config/config.ts';
import { acquireRun, releaseRun, type RunOptions } from '../../harness/run/lifecycle.ts';
import { suiteCacheDirectory } from '../../harness/config/settings.ts';

let journals = '';
let options: RunOptions;

beforeEach(() => {
  journals = mkdtempSync(join(tmpdir(), 'occ-shared-run-'));
  options = {
    // A dry run starts no reference: a starter that is called is a bug.
    startEmbedded: () => Promise.reject(new Error('a dry run started the embedded reference')),
    config: loadConfig({}),
    cacheDirectory: suiteCacheDirectory({}),
    dryRun: true,
    hookJournal: join(journals, 'hooks.jsonl'),
    controlJournal: join(journals, 'states.jsonl'),
  };
});

afterEach(() => {
  rmSync(journals, { recursive: true, force: true });
});

/** The part of vitest the global set-up uses: the root project, and the selected projects it provides to. */
function fakeVitest(names: readonly string[]): {
  root: TestProject;
  project: TestProject | undefined;
  provided: Map<string, unknown>;
} {
  const provided = new Map<string, unknown>();
  const projects = names.map(
    (name) => ({ name, provide: (key: string, value: unknown) => provided.set(key, value) }) as unknown as TestProject,
  );
  return { root: { name: '', vitest: { projects } } as unknown as TestProject, project: projects[0], provided };
}

describe('the run of a process', () => {
  it('is started once: a second user gets the same run, and only the last release ends it', async () => {
    const first = await acquireRun(options);
    const second = await acquireRun(options);
    expect(second).toBe(first);
    expect(first.users).toBe(2);
    await releaseRun(second);
    const third = await acquireRun(options);
    expect(third).toBe(first);
    await releaseRun(third);
    await releaseRun(first);
    const next = await acquireRun(options);
    expect(next).not.toBe(first);
    await releaseRun(next);
  });

  it('started before vitest (as occ run does), is what the global set-up provides; outlives its teardown', async () => {
    const started = await acquireRun(options);
    expect(started.context.target).toMatchObject({
      kind: 'embedded',
      dryRun: true,
      hookJournal: options.hookJournal,
      controlJournal: options.controlJournal,
    });
    const { root, project, provided } = fakeVitest(['conformance']);
    const teardown = await setup(root);
    expect(provided.get('run')).toBe(started.context);
    expect(started.projects.has(project!)).toBe(true);
    await teardown();
    expect(started.projects.has(project!)).toBe(false);
    expect(started.users).toBe(1);
    expect(await acquireRun(options)).toBe(started);
    await releaseRun(started);
    await releaseRun(started);
  });

  it("starts nothing when no selected project checks a target (npm test's own projects)", async () => {
    const { root, provided } = fakeVitest(['unit', 'whole-runs']);
    const teardown = await setup(root);
    expect(provided.size).toBe(0);
    await teardown();
    const run = await acquireRun(options);
    expect(run.users).toBe(1);
    await releaseRun(run);
  });
});
