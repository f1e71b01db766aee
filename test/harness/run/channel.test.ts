/**
 * The run channel (harness/run/channel.ts): what a run's workers share lives in the process that
 * started the run and is reached by calls. The watch is opened once whoever asks first; the
 * journals, the clock readings and a check's own reference are kept there; a reset (a self-proof
 * runner's next fault) forgets the watch and the readings.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OwnReferenceAddress, type RunChannel, startRunChannel } from '../../../harness/run/channel.ts';
import { channelClient } from '../../../harness/run/channel-client.ts';

let channel: RunChannel | undefined;

afterEach(async () => {
  await channel?.close();
  channel = undefined;
});

describe('the run channel', () => {
  it('has the watch opened once: the first asker opens it, the others wait for its record', async () => {
    channel = await startRunChannel();
    const worker = channelClient(channel.address);
    const other = channelClient(channel.address);
    expect(await worker.call('/watch/open', {})).toEqual({ opener: true });
    const waiting = other.call('/watch/open', {});
    let answered = false;
    void waiting.then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    await worker.call('/watch/put', { record: { ok: true, watch: { callId: 'c1' } } });
    expect(await waiting).toEqual({ record: { ok: true, watch: { callId: 'c1' } } });
    expect(await other.call('/watch/open', {})).toEqual({ record: { ok: true, watch: { callId: 'c1' } } });
    await channel.reset();
    expect(await other.call('/watch/open', {})).toEqual({ opener: true });
  });

  it('keeps the journals in memory, and writes the hooks where the user reads them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'occ-channel-'));
    try {
      channel = await startRunChannel({ hookFile: join(dir, 'hooks.jsonl') });
      const worker = channelClient(channel.address);
      await worker.call('/states/setup', { id: 's1', state: 'account-suspended', params: {}, values: { token: 't' } });
      await worker.call('/states/setup', { id: 's2', state: 'event-emitted', params: { event: 'dnc.added' } });
      await worker.call('/states/teardown', { id: 's1' });
      expect(channel.states.outstanding().map((e) => e.id)).toEqual(['s2']);
      await worker.call('/hooks/record', { hookId: 'h1', tokenName: 'all', state: 'created' });
      await worker.call('/hooks/record', { hookId: 'h2', tokenName: 'write:hooks', state: 'created' });
      await worker.call('/hooks/record', { hookId: 'h1', tokenName: 'all', state: 'deleted' });
      expect(channel.hooks.outstanding().map((e) => e.hookId)).toEqual(['h2']);
      expect(readFileSync(join(dir, 'hooks.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves the clock readings of one target to every worker, until a reset', async () => {
    channel = await startRunChannel();
    const worker = channelClient(channel.address);
    const reading = { url: 'http://a', kind: 'clock', sent: 1, answered: 2, now: 3 };
    await worker.call('/clock/record', { reading });
    await worker.call('/clock/record', { reading: { ...reading, url: 'http://b' } });
    expect(await channelClient(channel.address).call('/clock/readings', { url: 'http://a' })).toEqual([reading]);
    await channel.reset();
    expect(await worker.call('/clock/readings', { url: 'http://a' })).toEqual([]);
  });

  it("starts a check's own reference with the injected starter, the run's switches and a clock it moves", async () => {
    let now: (() => number) | undefined;
    let closed = 0;
    channel = await startRunChannel({
      ownReference: {
        start: async (options) => {
          now = options.rateLimit.now;
          expect(options).toMatchObject({ faults: ['no-rate-limit'], variants: ['all'], host: '127.0.0.1' });
          return {
            baseUrl: 'http://own',
            tokens: { all: 'a', none: 'n' },
            close: async () => {
              closed += 1;
            },
          };
        },
        switches: () => ({ faults: ['no-rate-limit'], variants: ['all'] }),
      },
    });
    const worker = channelClient(channel.address);
    const own = await worker.call<OwnReferenceAddress>('/reference/start', {
      perWindow: 100,
      windowMs: 60_000,
      host: '127.0.0.1',
    });
    expect(own).toMatchObject({ baseUrl: 'http://own', tokens: { all: 'a', none: 'n' } });
    const before = now!();
    await worker.call('/reference/advance', { id: own.id, ms: 61_000 });
    expect(now!() - before).toBe(61_000);
    await worker.call('/reference/close', { id: own.id });
    expect(closed).toBe(1);
  });
});
