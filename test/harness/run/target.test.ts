/**
 * A run is started once, by its composition root (harness/run/target.ts startRun): its context
 * carries the run channel's address and is provided to every project it is given, again whenever
 * it changes; vitest's global set-up (vitest run directly) starts one only for a project that
 * checks a target. A dry run against the embedded target starts no server, so these runs are
 * cheap and send nothing.
 */
import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { TestProject } from 'vitest/node';
import setup from '../../../commands/vitest-global-setup.ts';
import { ConfigError, loadConfig } from '../../../harness/config/config.ts';
import { suiteCacheDirectory } from '../../../harness/config/settings.ts';
import { channelClient } from '../../../harness/run/channel-client.ts';
import { type RunOptions, startRun } from '../../../harness/run/target.ts';

const options: RunOptions = {
  // A dry run starts no reference: a starter that is called is a bug.
  starters: { embedded: () => Promise.reject(new Error('a dry run started the embedded reference')) },
  config: loadConfig({}),
  cacheDirectory: suiteCacheDirectory({}),
  dryRun: true,
};

/** A project as vitest has it, as far as a run uses it: what it was provided. */
function fakeProject(name: string): { project: TestProject; provided: Map<string, unknown> } {
  const provided = new Map<string, unknown>();
  const project = {
    name,
    provide: (key: string, value: unknown) => provided.set(key, value),
  } as unknown as TestProject;
  return { project, provided };
}

describe('the run of a composition root', () => {
  it('is built once: its context names its channel, goes to its projects, and again when it changes', async () => {
    const run = await startRun({ ...options, seed: 4242 });
    try {
      expect(run.context).toMatchObject({
        seed: 4242,
        gated: false,
        shrink: true,
        target: { kind: 'embedded', dryRun: true },
      });
      expect(run.context.channel.path).toMatch(/occ-run-[0-9a-f]{24}/);
      const { project, provided } = fakeProject('target');
      run.provideTo(project);
      expect(provided.get('run')).toBe(run.context);
      run.setSeed(7);
      expect(provided.get('run')).toMatchObject({ seed: 7, channel: run.context.channel });
      // The channel answers the workers with the run's token, and no one else.
      await channelClient(run.context.channel).call('/hooks/record', {
        hookId: 'h1',
        tokenName: 'all',
        state: 'created',
      });
      expect(run.channel.hooks.outstanding()).toEqual([{ hookId: 'h1', tokenName: 'all', state: 'created' }]);
      const stranger = channelClient({ ...run.context.channel, token: 'not-the-run-token' });
      await expect(
        stranger.call('/hooks/record', { hookId: 'h2', tokenName: 'all', state: 'created' }),
      ).rejects.toThrow(/did not answer/);
      expect(run.channel.hooks.outstanding().map((entry) => entry.hookId)).toEqual(['h1']);
    } finally {
      // A dry run sweeps nothing: it created nothing on the target.
      expect(await run.end()).toBe(0);
    }
    await expect(channelClient(run.context.channel).call('/clock/readings', { url: 'x' })).rejects.toThrow();
  });

  it('started by the global set-up only for the projects that check a target, and ended by its teardown', async () => {
    const checking = fakeProject('conformance');
    const unit = fakeProject('unit');
    const root = { name: '', vitest: { projects: [checking.project, unit.project] } } as unknown as TestProject;
    const saved = { ...process.env };
    // A remote target that takes connections (the run's start checks that) and is never asked anything.
    const listening = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    try {
      // vitest started directly reads its own environment: nothing configured, a dry run of it would
      // still start the reference, so a remote target that is never asked anything stands in.
      process.env.API_BASE_URL = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/v1`;
      const teardown = await setup(root);
      const context = checking.provided.get('run') as { target: { kind: string }; channel: { url: string } };
      expect(context.target.kind).toBe('remote');
      expect(unit.provided.size).toBe(0);
      await teardown();
      await expect(fetch(`${context.channel.url}/watch/open`, { method: 'POST' })).rejects.toThrow();
    } finally {
      process.env = saved;
      await new Promise<void>((resolve) => listening.close(() => resolve()));
    }
  });

  it("starts nothing when no selected project checks a target (npm test's own projects)", async () => {
    const unit = fakeProject('unit');
    const root = { name: '', vitest: { projects: [unit.project] } } as unknown as TestProject;
    const teardown = await setup(root);
    expect(unit.provided.size).toBe(0);
    await teardown();
  });
});

describe('a remote run whose receiver cannot start', () => {
  it('stops with a configuration error naming RECEIVER_PORT when another process holds the port', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const config = loadConfig({
        API_BASE_URL: 'http://127.0.0.1:9/v1',
        WEBHOOK_PUBLIC_URL: `https://127.0.0.1:${port}`,
        RECEIVER_PORT: String(port),
      });
      const started = startRun({ ...options, config, dryRun: false });
      await expect(started).rejects.toBeInstanceOf(ConfigError);
      await expect(started).rejects.toThrow(
        `the webhook receiver could not start: port ${port} is already in use (another receiver or run?); ` +
          'set RECEIVER_PORT to a free port',
      );
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});
