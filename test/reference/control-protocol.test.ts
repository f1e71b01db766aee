/**
 * The reference's implementation of the test-control protocol (control-openapi.json), driven
 * through the suite's own client: every state's values do what the document says, teardown
 * undoes it, and errors come back as the documented codes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { controlInspections, controlStates } from '../../contract/control.ts';
import {
  createControlClient,
  createControlTransport,
  type ControlTransport,
  type Values,
} from '../../harness/seams/control-client.ts';
import { StateJournal, sweepStates } from '../../harness/seams/control-journal.ts';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.ts';
import { api, http, postJson } from './helpers.ts';

let server: ReferenceServer;
let control: ControlTransport;

beforeAll(async () => {
  server = await startReferenceServer({ rateLimit: false, controlToken: 'ctl_test_token_123456' });
  control = createControlTransport({ url: server.controlUrl, token: 'ctl_test_token_123456' });
});
afterAll(async () => {
  await server.close();
});

const post = (path: string, body: unknown, token = 'ctl_test_token_123456') =>
  http('POST', `${server.controlUrl}${path}`, { token, body: JSON.stringify(body), contentType: 'application/json' });

describe('the test-control protocol of the reference server', () => {
  it('offers every state and inspection of protocol version 1', async () => {
    expect(await control.capabilities()).toEqual({ states: [...controlStates], inspections: [...controlInspections] });
  });

  it('refuses a missing or wrong control token with 401 and the client says which variable to fix', async () => {
    expect((await http('GET', `${server.controlUrl}/capabilities`)).status).toBe(401);
    expect(
      (await post('/states', { state: 'token-issued', params: { scopes: [] } }, 'wrong_token_wrong_token')).status,
    ).toBe(401);
    const wrong = createControlTransport({ url: server.controlUrl, token: 'wrong_token_wrong_token' });
    await expect(wrong.capabilities()).rejects.toThrow(/401: CONTROL_TOKEN is missing or wrong/);
  });

  it('answers the documented errors: unknown_state, unknown_inspection, invalid_params, invalid_request', async () => {
    expect((await post('/states', { state: 'account-on-fire' })).json).toMatchObject({ error: 'unknown_state' });
    expect((await post('/states', { state: 'clock-advanced', params: { ms: -1 } })).json).toMatchObject({
      error: 'invalid_params',
    });
    expect((await post('/states', { state: 'token-issued', action: 'undo' })).json).toMatchObject({
      error: 'invalid_request',
    });
    expect((await post('/inspections', { inspection: 'mood' })).json).toMatchObject({ error: 'unknown_inspection' });
    expect(
      (
        await http('POST', `${server.controlUrl}/states`, {
          token: 'ctl_test_token_123456',
          body: '{',
          contentType: 'application/json',
        })
      ).status,
    ).toBe(400);
    await expect(control.setup('event-emitted', { event: 'call.started' })).rejects.toThrow(
      /^control: setup of event-emitted failed: POST \/states answered 422 invalid_params/,
    );
  });

  it('account states: a token and agent of an account with only that condition; teardown revokes it', async () => {
    const cases = [
      ['account-without-trunk', 409, 'account_not_provisioned'],
      ['account-without-dialer', 409, 'dialer_required'],
      ['agent-not-provisioned', 409, 'ai_agent_not_provisioned'],
      ['originate-failing', 502, 'originate_failed'],
      ['engine-not-configured', 503, 'engine_not_configured'],
    ] as const;
    for (const [state, status, code] of cases) {
      const values = await control.setup(state, {});
      expect(values.agentId, state).toMatch(/^[0-9]+$/);
      const refused = await postJson(server, '/calls', values.token as string, {
        aiAgentId: values.agentId,
        toNumber: '+15555550123',
      });
      expect([refused.status, (refused.json as { error: string }).error], state).toEqual([status, code]);
      await control.teardown(state, {}, values);
      expect(
        (await api(server, 'GET', '/me', { token: values.token as string })).status,
        `${state}: token revoked at teardown`,
      ).toBe(401);
    }
    const suspended = await control.setup('account-suspended', {});
    expect((await api(server, 'GET', '/me', { token: suspended.token as string })).json).toMatchObject({
      error: 'suspended',
    });
    await control.teardown('account-suspended', {}, suspended);
  });

  it('balance-upstream-failing holds until teardown', async () => {
    const { token } = await control.setup('balance-upstream-failing', {});
    expect((await api(server, 'GET', '/balance', { token: token as string })).status).toBe(500);
    await control.teardown('balance-upstream-failing', {}, { token });
    expect((await api(server, 'GET', '/balance', { token: server.fixtures.tokens['read:balance'] })).status).toBe(200);
  });

  it('issues, inspects and revokes tokens; advances and reads the clock', async () => {
    const { token } = await control.setup('token-issued', { scopes: ['read:balance'] });
    expect(await control.inspect('token-last-used', { token })).toEqual({ lastUsedAt: null, revoked: false });
    expect((await api(server, 'GET', '/balance', { token: token as string })).status).toBe(200);
    expect((await control.inspect('token-last-used', { token }))?.lastUsedAt).toEqual(expect.any(String));
    await control.setup('token-revoked', { token });
    expect((await api(server, 'GET', '/balance', { token: token as string })).status).toBe(401);
    expect(await control.inspect('token-last-used', { token: 'no_such_token' })).toBeUndefined();
    const before = (await control.inspect('clock'))!.now as number;
    const { now } = await control.setup('clock-advanced', { ms: 60_000 });
    expect(now as number).toBeGreaterThanOrEqual(before + 60_000);
  });
});

describe("the suite side: a check's control client and the journal", () => {
  const scope = (
    declared: Parameters<typeof createControlClient>[0]['declared'],
    journal: StateJournal,
    offered = [...controlStates, ...controlInspections],
  ) => {
    const setups: Array<{ state: string; values: Values }> = [];
    const client = createControlClient({
      transport: control,
      offered: new Set(offered),
      declared,
      onSetup(state, params, values) {
        setups.push({ state, values });
        journal.setUp({ id: String(setups.length), state, params, values });
      },
      remember() {},
      fail(message) {
        throw new Error(message);
      },
    });
    return { client, setups };
  };

  it('refuses a capability the check did not declare, unless it asked offers() first', async () => {
    const { client } = scope(['event-emitted'], new StateJournal(), ['event-emitted', 'clock']);
    await expect(client.clock()).rejects.toThrow(/check bug: control clock used but not declared/);
    expect(client.offers('hook-attempts')).toBe(false);
    expect(client.offers('clock')).toBe(true);
    expect(await client.clock()).toEqual(expect.any(Number));
  });

  it('journals every setup, and the sweep tears down what a dead run left (revoking its token)', async () => {
    const journal = new StateJournal();
    const { client } = scope(['account-without-trunk', 'event-emitted'], journal);
    const { token } = await client.account('account-without-trunk');
    await client.emit('dnc.added');
    expect(journal.outstanding().map((e) => e.state)).toEqual(['event-emitted', 'account-without-trunk']);
    expect(await sweepStates(journal, control)).toEqual([]);
    expect(journal.outstanding()).toEqual([]);
    expect((await api(server, 'GET', '/me', { token })).status).toBe(401);
  });

  describe('settle: what a check waits before it counts the deliveries that arrived', () => {
    const settling = (offered: ReadonlyArray<(typeof controlInspections)[number]>, idle: boolean) => {
      const asked: string[] = [];
      const transport: ControlTransport = {
        ...control,
        inspect: async (name) => {
          asked.push(name);
          return { idle };
        },
      };
      const client = createControlClient({
        transport,
        offered: new Set(offered),
        declared: [],
        onSetup() {},
        remember() {},
        fail(message) {
          throw new Error(message);
        },
      });
      return { client, asked };
    };
    const settled = async (settle: Promise<void>): Promise<boolean> => {
      let done = false;
      void settle.then(() => {
        done = true;
      });
      await vi.advanceTimersByTimeAsync(0);
      return done;
    };

    it("waits for the target's deliveries to be idle where it offers deliveries-idle, not the wall time", async () => {
      vi.useFakeTimers();
      try {
        const { client, asked } = settling(['deliveries-idle'], true);
        expect(await settled(client.settle(60_000))).toBe(true);
        expect(asked).toEqual(['deliveries-idle']);
      } finally {
        vi.useRealTimers();
      }
    });

    it('waits the wall time where the target does not offer deliveries-idle, or gave up waiting', async () => {
      vi.useFakeTimers();
      try {
        for (const { offered, idle } of [
          { offered: [], idle: true },
          { offered: ['deliveries-idle'] as const, idle: false },
        ]) {
          const { client } = settling(offered, idle);
          const settle = client.settle(300);
          expect(await settled(settle)).toBe(false);
          await vi.advanceTimersByTimeAsync(300);
          await settle;
        }
      } finally {
        vi.useRealTimers();
      }
    });
  });
});
