import { describe, expect, it } from 'vitest';
import { createContract } from '../../../contract/validator.ts';
import { suiteCacheDirectory } from '../../../harness/config/settings.ts';
import {
  ALONE_STREAK_GRACE_MS,
  claimsOf,
  conflicts,
  enterGate,
  Gate,
  requestClaim,
} from '../../../harness/scheduling/gate.ts';
import { startRunChannel, type RunChannel } from '../../../harness/run/channel.ts';
import { channelClient, type ChannelClient } from '../../../harness/run/channel-client.ts';
import { frame } from '../../../harness/run/channel-wire.ts';
import { connect } from 'node:net';

const afterTheStreakGrace = () => new Promise((resolve) => setTimeout(resolve, ALONE_STREAK_GRACE_MS + 10));

/** Whether a promise has settled by the time queued microtasks and timers of 0 ms ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 5));
  return done;
}

describe('what a check claims', () => {
  it('runs alone when it moves the clock or makes the balance snapshot fail', () => {
    expect(claimsOf(['clock', 'clock-advanced', 'event-emitted'])).toEqual(['check', 'alone', 'webhooks']);
    expect(claimsOf(['balance-upstream-failing'])).toEqual(['check', 'alone']);
  });

  it('holds webhooks, as every originating check does, when it makes origination fail; it does not run alone', () => {
    expect(claimsOf(['originate-failing'])).toEqual(['check', 'webhooks']);
    expect(claimsOf(['engine-not-configured'])).toEqual(['check', 'webhooks']);
    expect(claimsOf(['engine-not-configured', 'event-emitted'])).toEqual(['check', 'webhooks']);
  });

  it('claims only check without a state that reaches other checks', () => {
    expect(claimsOf(['hook-attempts', 'deliveries-idle', 'clock'])).toEqual(['check']);
    expect(claimsOf()).toEqual(['check']);
    // A check with a server of its own (the rate-limit check) claims nothing, whatever it declares.
    expect(claimsOf(['event-emitted'], true)).toEqual([]);
  });

  it('claims the state whose teardown revokes tokens by label; a revoked token is one token-issued issued', () => {
    expect(claimsOf(['token-issued', 'token-revoked'])).toEqual(['check', 'state:token-issued', 'state:token-issued']);
    expect(claimsOf(['account-suspended'])).toEqual(['check', 'state:account-suspended']);
  });

  it('alone conflicts with everything, webhooks and a state with themselves, plain checks with nothing else', () => {
    expect(conflicts('alone', 'check')).toBe(true);
    expect(conflicts('check', 'alone')).toBe(true);
    expect(conflicts('webhooks', 'webhooks')).toBe(true);
    expect(conflicts('webhooks', 'check')).toBe(false);
    expect(conflicts('state:account-suspended', 'state:account-suspended')).toBe(true);
    expect(conflicts('state:account-suspended', 'state:token-issued')).toBe(false);
    expect(conflicts('check', 'check')).toBe(false);
  });
});

describe('what a request claims before it is sent', () => {
  const contract = createContract({ cacheDirectory: suiteCacheDirectory(process.env) });
  const breaks = (schema: 'CallCreate' | 'HookCreate', value: unknown) =>
    contract.checkSchema(schema, value).length > 0;
  const claimOf = (
    path: string,
    body: { json?: unknown; body?: string; form?: Record<string, string> },
    method = 'POST',
  ) => requestClaim({ method, path, ...body }, breaks);
  const target = 'https://receiver.example.com/hook';

  it('claims webhooks for a POST /hooks body that may subscribe, as JSON or as text', () => {
    expect(claimOf('/hooks', { json: { event: 'call.ended', target_url: target } })).toBe('webhooks');
    expect(claimOf('/hooks', { body: JSON.stringify({ event: 'dnc.added', target_url: target }) })).toBe('webhooks');
    expect(claimOf('/hooks', { form: { event: 'call.ended', target_url: target } })).toBe('webhooks');
  });

  it('claims nothing for a POST /hooks body that breaks HookCreate or is not JSON, nor for any other request', () => {
    expect(claimOf('/hooks', { json: { event: 'call.started', target_url: target } })).toBeUndefined();
    expect(
      claimOf('/hooks', { json: { event: 'call.ended', target_url: 'http://receiver.example.com/hook' } }),
    ).toBeUndefined();
    expect(claimOf('/hooks', { body: '{"event": "call.ended",' })).toBeUndefined();
    expect(claimOf('/hooks', {})).toBeUndefined();
    expect(claimOf('/hooks', {}, 'GET')).toBeUndefined();
    expect(claimOf('/hooks/3f0c', { json: { event: 'call.ended', target_url: target } })).toBeUndefined();
  });

  it("claims nothing if a check never reads the run's receiver it subscribes; webhooks for any other target", () => {
    const receiver = 'https://127.0.0.1:4443';
    const subscribe = (url: string) =>
      requestClaim(
        { method: 'POST', path: '/hooks', json: { event: 'call.ended', target_url: url } },
        breaks,
        receiver,
      );
    expect(subscribe(`${receiver}/property/hooks/1a2b`)).toBeUndefined();
    expect(subscribe('https://127.0.0.1:4444/property/hooks/1a2b')).toBe('webhooks');
    expect(subscribe(`${receiver}.example.com/x`)).toBe('webhooks');
    expect(subscribe(target)).toBe('webhooks');
    // Originating is never unwatched.
    expect(
      requestClaim(
        { method: 'POST', path: '/calls', json: { aiAgentId: '1001', toNumber: '+14155550100' } },
        breaks,
        receiver,
      ),
    ).toBe('webhooks');
  });

  it('claims webhooks for a POST /calls body that could dial, even one that breaks CallCreate', () => {
    expect(claimOf('/calls', { json: { aiAgentId: '1001', toNumber: '+14155550100' } })).toBe('webhooks');
    // Broken only in fromNumber, or nested one level down: a lenient target could still dial.
    expect(claimOf('/calls', { json: { aiAgentId: '1001', toNumber: '+14155550100', fromNumber: 'x' } })).toBe(
      'webhooks',
    );
    expect(claimOf('/calls', { body: JSON.stringify({ call: { aiAgentId: '1001', toNumber: '+14155550100' } }) })).toBe(
      'webhooks',
    );
  });

  it('claims nothing for a POST /calls body that breaks CallCreate beyond any lenient reading, or is not JSON', () => {
    expect(claimOf('/calls', { json: { aiAgentId: '1001', toNumber: 'not-a-phone-number' } })).toBeUndefined();
    expect(claimOf('/calls', { json: { aiAgentId: 'abc', toNumber: '+14155550100' } })).toBeUndefined();
    expect(claimOf('/calls', { json: { toNumber: '+14155550100' } })).toBeUndefined();
    expect(claimOf('/calls', { body: 'not json' })).toBeUndefined();
  });
});

describe('the gate', () => {
  it('lets plain checks run side by side, and a check that runs alone only once they ended', async () => {
    const gate = new Gate(() => 0);
    await gate.enter('a', 'a.suite.ts', ['check']);
    await gate.enter('b', 'b.suite.ts', ['check']);
    const alone = gate.enter('c', 'c.suite.ts', ['check', 'alone']);
    expect(await settled(alone)).toBe(false);
    // A later plain check does not overtake the one waiting to run alone.
    const later = gate.enter('d', 'd.suite.ts', ['check']);
    gate.leave('a');
    expect(await settled(alone)).toBe(false);
    gate.leave('b');
    expect(await settled(alone)).toBe(true);
    expect(await settled(later)).toBe(false);
    gate.leave('c');
    // Held a moment longer for a next check of c's file (none comes here).
    await afterTheStreakGrace();
    expect(await settled(later)).toBe(true);
  });

  it('lets the next check of a file whose check ran alone go first, so its solo checks run back to back', async () => {
    const gate = new Gate(() => 0);
    await gate.enter('delivery-1', 'delivery.suite.ts', ['check', 'alone']);
    const property = gate.enter('property', 'p.property.ts', ['check', 'webhooks']);
    gate.leave('delivery-1');
    expect(await settled(property)).toBe(false);
    expect(await settled(gate.enter('delivery-2', 'delivery.suite.ts', ['check', 'alone']))).toBe(true);
    gate.leave('delivery-2');
    // The file's next check is a plain one: it runs, and the held check beside it.
    expect(await settled(gate.enter('delivery-3', 'delivery.suite.ts', ['check']))).toBe(true);
    expect(await settled(property)).toBe(true);
    expect(gate.runningNow().sort()).toEqual(['delivery-3', 'property']);
  });

  it('holds nobody past the grace when the file has no next check, or its file ended', async () => {
    const gate = new Gate(() => 0);
    await gate.enter('last', 'delivery.suite.ts', ['check', 'alone']);
    const waiting = gate.enter('other', 'o.suite.ts', ['check']);
    gate.leave('last');
    expect(await settled(waiting)).toBe(false);
    await afterTheStreakGrace();
    expect(await settled(waiting)).toBe(true);
    gate.leave('other');

    await gate.enter('final', 'delivery.suite.ts', ['check', 'alone']);
    const next = gate.enter('next', 'n.suite.ts', ['check']);
    gate.leave('final');
    gate.fileEnded('delivery.suite.ts');
    expect(await settled(next)).toBe(true);
  });

  it('lets a check claiming nothing (its own server) run beside one that runs alone, either way round', async () => {
    const gate = new Gate(() => 0);
    await gate.enter('alone', 'a.suite.ts', ['check', 'alone']);
    expect(await settled(gate.enter('own', 'rate-limit.suite.ts', claimsOf([], true)))).toBe(true);
    gate.leave('alone');
    expect(await settled(gate.enter('alone-2', 'a.suite.ts', ['check', 'alone']))).toBe(true);
    expect(gate.runningNow().sort()).toEqual(['alone-2', 'own']);
  });

  it('runs a check that makes origination fail beside a plain check, never while another may originate', async () => {
    const gate = new Gate(() => 0);
    await gate.enter('cdr-property', 'cdrs.property.ts', claimsOf());
    expect(await settled(gate.enter('originate-fails', 'calls.suite.ts', claimsOf(['originate-failing'])))).toBe(true);
    // A check about to send POST /calls (check.ts claims webhooks first) waits for the switch to be off.
    await gate.enter('originator', 'webhooks.suite.ts', claimsOf());
    const originating = gate.claim('originator', 'webhooks');
    expect(await settled(originating)).toBe(false);
    gate.leave('originate-fails');
    expect(await settled(originating)).toBe(true);
  });

  it('never lets two checks hold webhooks: a running check that subscribes waits for the one that does', async () => {
    const gate = new Gate(() => 0);
    await gate.enter('emitter', 'w.suite.ts', ['check', 'webhooks']);
    await gate.enter('prop', 'p.property.ts', ['check']);
    const subscribing = gate.claim('prop', 'webhooks');
    expect(await settled(subscribing)).toBe(false);
    // The holder's own further claim is granted at once.
    expect(await settled(gate.claim('emitter', 'webhooks'))).toBe(true);
    gate.leave('emitter');
    expect(await settled(subscribing)).toBe(true);
    expect(gate.runningNow()).toEqual(['prop']);
  });

  it("keeps an originating check's webhooks claim after it left, until every call in progress ended", async () => {
    let calls = 1;
    const gate = new Gate(() => calls);
    await gate.enter('caller', 'calls.suite.ts', ['check']);
    await gate.claim('caller', 'webhooks');
    gate.originates('caller');
    gate.leave('caller');
    await gate.enter('other', 'x.suite.ts', ['check']);
    const subscribing = gate.claim('other', 'webhooks');
    expect(await settled(subscribing)).toBe(false);
    calls = 0;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await settled(subscribing)).toBe(true);
  });

  it("keeps a project's file order: open files first, judge files after the project's other files", async () => {
    const gate = new Gate(() => 0);
    gate.setFiles([
      { project: 'conformance', file: '/s/watch.open.suite.ts' },
      { project: 'conformance', file: '/s/a.suite.ts' },
      { project: 'conformance', file: '/s/watch.judge.suite.ts' },
      { project: 'properties', file: '/p/x.property.ts' },
    ]);
    const judge = gate.enter('j', '/s/watch.judge.suite.ts', ['check']);
    const normal = gate.enter('n', '/s/a.suite.ts', ['check']);
    // Another project has no open file to wait for; a check held back by the order holds back nobody.
    expect(await settled(gate.enter('p', '/p/x.property.ts', ['check']))).toBe(true);
    expect(await settled(normal)).toBe(false);
    await gate.enter('o', '/s/watch.open.suite.ts', ['check']);
    gate.leave('o');
    gate.fileEnded('/s/watch.open.suite.ts');
    expect(await settled(normal)).toBe(true);
    expect(await settled(judge)).toBe(false);
    gate.leave('n');
    gate.fileEnded('/s/a.suite.ts');
    expect(await settled(judge)).toBe(true);
  });
});

/**
 * Runs `body` with `gate` served by a run channel (its address is what a run context
 * carries) and a worker's client of it, then closes it.
 */
async function withGateServer(
  gate: Gate,
  body: (server: RunChannel, client: ChannelClient) => Promise<void>,
): Promise<void> {
  const server = await startRunChannel({ gate });
  try {
    await body(server, channelClient(server.address));
  } finally {
    await server.close();
  }
}

describe('the gate over the run channel', () => {
  it("makes a worker wait its turn, and refuses a request without the run's token", async () => {
    const gate = new Gate(() => 0);
    await withGateServer(gate, async (server, client) => {
      const first = await enterGate(client, 'a.suite.ts', ['check', 'alone']);
      const second = enterGate(client, 'b.suite.ts', ['check']);
      expect(await settled(second)).toBe(false);
      await first.leave();
      const pass = await second;
      expect(gate.runningNow()).toHaveLength(1);
      await pass.leave();
      expect(gate.runningNow()).toEqual([]);
      const stranger = channelClient({ ...server.address, token: 'not-the-run-token' });
      await expect(stranger.call('/gate/enter', { id: 'x', file: 'c.suite.ts', claims: [] })).rejects.toThrow(
        /did not answer/,
      );
      expect(gate.runningNow()).toEqual([]);
    });
  });

  it('lets a wait the worker gave up (its signal, or its connection gone) leave the queue', async () => {
    const gate = new Gate(() => 0);
    await withGateServer(gate, async (server, client) => {
      const first = await enterGate(client, 'a.suite.ts', ['check', 'alone']);
      const givenUp = new AbortController();
      // The bare call, without enterGate's own leave on failure: the cancel alone must withdraw it.
      const cancelled = client.call('/gate/enter', { id: 'b', file: 'b.suite.ts', claims: ['check'] }, givenUp.signal);
      const outcome = cancelled.then(
        () => 'entered',
        (error: Error) => error.message,
      );
      // A worker that goes away while it waits: its connection ends with its call unanswered.
      const gone = connect(server.address.path);
      gone.write(frame({ token: server.address.token }));
      gone.write(frame({ id: 1, path: '/gate/enter', body: { id: 'gone', file: 'c.suite.ts', claims: ['check'] } }));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await settled(outcome)).toBe(false);
      givenUp.abort(new Error('the check timed out'));
      expect(await outcome).toBe('the check timed out');
      gone.destroy();
      await new Promise((resolve) => gone.once('close', resolve));
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Neither waits any more: when the first leaves (and its file's grace is over), nobody is let in.
      await first.leave();
      await afterTheStreakGrace();
      expect(gate.runningNow()).toEqual([]);
    });
  });

  it('asks the gate once for a claim the check holds, and once more to mark it an originator', async () => {
    const asked: string[] = [];
    const gate = new (class extends Gate {
      override claim(id: string, claim: Parameters<Gate['claim']>[1]): Promise<void> {
        asked.push(claim);
        return super.claim(id, claim);
      }
      override originates(id: string): void {
        asked.push('originates');
        super.originates(id);
      }
    })(() => 0);
    await withGateServer(gate, async (_server, client) => {
      const subscriber = await enterGate(client, 'a.suite.ts', ['check']);
      for (let i = 0; i < 3; i += 1) await subscriber.claim('webhooks'); // three POST /hooks
      expect(asked).toEqual(['webhooks']);
      await subscriber.claim('webhooks', true); // then a POST /calls: the gate must learn it originates
      await subscriber.claim('webhooks', true);
      expect(asked).toEqual(['webhooks', 'webhooks', 'originates']);
      // Still enforced: another check's subscription waits until this one left.
      const other = await enterGate(client, 'b.suite.ts', ['check']);
      const waiting = other.claim('webhooks');
      expect(await settled(waiting)).toBe(false);
      await subscriber.leave();
      await waiting;
      await other.leave();
      // A claim held from the start (an emitting check) is never asked for.
      asked.length = 0;
      const emitter = await enterGate(client, 'c.suite.ts', ['check', 'webhooks']);
      await emitter.claim('webhooks');
      expect(asked).toEqual([]);
      await emitter.leave();
    });
  });

  it('lets every check through at once when the run has no gate (remote targets, vitest run directly)', async () => {
    const a = await enterGate(undefined, 'a.suite.ts', ['check', 'alone']);
    const b = await enterGate(undefined, 'b.suite.ts', ['check', 'alone']);
    await a.leave();
    await b.leave();
  });
});
