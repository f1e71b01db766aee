/**
 * The reference server's implementation of the test-control protocol (control-openapi.json):
 * every state and inspection, under /_control, behind `Authorization: Bearer <control token>`.
 * The suite drives the embedded reference through it exactly as it drives a vendor's staging
 * build. The reference's own fault switches and reset are NOT part of it (./control.ts,
 * /_reference): a vendor never implements faults.
 *
 * Account states return a fresh token of one of the seeded special accounts (suspended,
 * noTrunk, noDialer) or of main, labelled with the state; teardown revokes the tokens a state
 * issued and turns its switch off. The switches are global: the suite runs checks one at a time.
 * The conformant variants marked control (./variants.ts) make the other choice at each **either**
 * of the document; each is implemented here at its point (grep for its id).
 *
 * Its own faults (./control-faults.ts, off unless switched on at start) break one rule of the
 * protocol each, so that `occ control-check` is proven to name it.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CONTROL_PROTOCOL,
  controlInspections,
  controlStates,
  isControlInspection,
  isControlState,
  type ControlInspection,
  type ControlState,
} from '../contract/control.ts';
import { eventTypes, scopes as allScopes } from '../contract/openapi.ts';
import type { EventType } from '../contract/openapi.ts';
import type { ControlFaultId } from './control-faults.ts';
import type { VariantId } from './variants.ts';
import { isJsonContentType, isPlainObject } from './http.ts';
import { accountNames } from './seed.ts';
import type { AccountName } from './seed.ts';
import type { ReferenceStore, Switches } from './store.ts';

type Params = Record<string, unknown>;

/** A failure the protocol names: status and error code. */
class ProtocolError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const invalid = (message: string): never => {
  throw new ProtocolError(422, 'invalid_params', message);
};

function readBody(request: FastifyRequest): Params {
  const raw = typeof request.body === 'string' ? request.body : '';
  const type = request.headers['content-type'];
  if (type !== undefined && !isJsonContentType(type))
    throw new ProtocolError(400, 'invalid_request', 'the body must be JSON (content-type application/json)');
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ProtocolError(400, 'invalid_request', 'the body is not JSON');
  }
  if (!isPlainObject(value)) throw new ProtocolError(400, 'invalid_request', 'the body must be a JSON object');
  return value;
}

function paramsOf(body: Params, nullIsEmpty: boolean): Params {
  if (body.params === undefined || (body.params === null && nullIsEmpty)) return {};
  if (!isPlainObject(body.params)) throw new ProtocolError(400, 'invalid_request', 'params must be an object');
  return body.params;
}

function stringParam(params: Params, name: string): string {
  const value = params[name];
  return typeof value === 'string' && value !== '' ? value : invalid(`params.${name} must be a non-empty string`);
}

/** The account whose condition a state stands for, the scopes of its token, its switch, its agent. */
const accountStates: Partial<
  Record<ControlState, { account: AccountName; agent?: 'provisioned' | 'unprovisioned'; switch?: keyof Switches }>
> = {
  'account-suspended': { account: 'suspended' },
  'account-without-trunk': { account: 'noTrunk', agent: 'provisioned' },
  'account-without-dialer': { account: 'noDialer', agent: 'provisioned' },
  'agent-not-provisioned': { account: 'main', agent: 'unprovisioned' },
  'balance-upstream-failing': { account: 'main', switch: 'balanceUpstreamFails' },
  'originate-failing': { account: 'main', agent: 'provisioned', switch: 'originateFails' },
  'engine-not-configured': { account: 'main', agent: 'provisioned', switch: 'engineNotConfigured' },
};

/** The largest advance every target accepts (48 hours); control-strict-params refuses more. */
const MAX_ADVANCE_MS = 172_800_000;
/** How long deliveries-idle (and clock-advanced under control-advance-waits) waits at most. */
const IDLE_LIMIT_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `work` at most `ms`; whether it ended in time (a failure of it counts as ended). */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const ended = work.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([ended, gaveUp]);
  } finally {
    clearTimeout(timer);
  }
}

/** The fields event-emitted may set for `kind`, with the type of each: the target's own defaults. */
function fieldProblem(store: ReferenceStore, kind: EventType, fields: Params): string | undefined {
  const defaults = store.buildPayload(kind, {});
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'eventId' || name === 'event' || name === 'occurredAt')
      return `params.fields.${name} is the target's to set`;
    if (!(name in defaults)) return `params.fields.${name} is not a field of ${kind}`;
    const wanted = typeof defaults[name];
    const integer = name === 'durationSec';
    if (typeof value !== wanted || (integer && !Number.isInteger(value)))
      return `params.fields.${name} must be ${integer ? 'an integer' : `a ${wanted}`}`;
  }
  return undefined;
}

export function registerControlProtocol(
  app: FastifyInstance,
  store: ReferenceStore,
  options: { token: string; faults?: ReadonlySet<ControlFaultId> },
): void {
  const expected = Buffer.from(`Bearer ${options.token}`);
  const fault = (id: ControlFaultId): boolean => options.faults?.has(id) === true;
  const variant = (id: VariantId): boolean => store.variants.has(id);
  /** control-account-tokens-kept: the one token each account state gives. */
  const kept = new Map<ControlState, string>();
  const authorised = (request: FastifyRequest): boolean => {
    if (fault('control-auth-open')) return true;
    const given = Buffer.from(request.headers.authorization ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  const label = (state: ControlState) => `state:${state}`;

  const agentOf = (account: AccountName, provisioned: boolean): string => {
    for (const agent of store.state.agents.values()) {
      if (agent.account === account && (agent.sipUsername !== undefined) === provisioned) return agent.id;
    }
    throw new ProtocolError(
      500,
      'setup_failed',
      `the seeded ${account} account has no ${provisioned ? 'provisioned' : 'unprovisioned'} agent`,
    );
  };

  /**
   * Undoes the tokens a state issued: every one (the reference), or only the one `values` names
   * (control-teardown-named-only, which without values leaves them); revoked, or forgotten
   * (token-issued under control-token-forget).
   */
  const undoIssued = (state: ControlState, values: unknown): void => {
    const named = isPlainObject(values) && typeof values.token === 'string' ? values.token : undefined;
    const forget = state === 'token-issued' && variant('control-token-forget');
    for (const record of [...store.state.tokens.values()]) {
      if (record.label !== label(state)) continue;
      if (variant('control-teardown-named-only') && record.token !== named) continue;
      if (forget) store.state.tokens.delete(record.token);
      else record.revoked = true;
    }
  };

  /**
   * control-account-made-per-setup: a new account with the flags of `template` and the agents the
   * state names (one provisioned, one not), as a portal would make one.
   */
  let made = 0;
  const makeAccount = (template: AccountName): AccountName => {
    const like = store.state.accounts.get(template)!;
    const name = `made${++made}` as AccountName;
    store.state.accounts.set(name, { ...like, name, customerId: `cus_made_${randomBytes(6).toString('hex')}` });
    store.state.cdrs.set(name, []);
    const ids = [...store.state.agents.keys()].map(Number);
    let next = Math.max(...ids) + 1;
    for (const provisioned of [true, false]) {
      const id = String(next++);
      store.state.agents.set(id, {
        id,
        account: name,
        label: provisioned ? 'Made AI' : 'Made AI (pending extension)',
        sipUsername: provisioned ? `${name}_${id}` : undefined,
        sipPassword: randomBytes(10).toString('hex'),
        createdAt: store.nowIso(),
      });
    }
    return name;
  };

  const accountToken = (state: ControlState, account: AccountName): string => {
    const token = kept.get(state);
    if (token !== undefined && store.state.tokens.get(token)?.revoked === false) return token;
    const minted = store.mintToken(account, allScopes, 'api', label(state));
    if (variant('control-account-tokens-kept')) kept.set(state, minted);
    return minted;
  };

  const setup = async (state: ControlState, params: Params): Promise<Params> => {
    const account = accountStates[state];
    if (account !== undefined) {
      const extra = Object.keys(params).filter((key) => key !== 'values');
      if (variant('control-strict-params') && extra.length > 0)
        invalid(`${state} takes no params (got ${extra.join(', ')})`);
      // control-account-states-apart: the failure states use another account, failing for it alone.
      const apart = account.switch !== undefined && variant('control-account-states-apart');
      const base: AccountName = apart ? 'other' : account.account;
      const reused = kept.get(state);
      const name =
        reused !== undefined && store.state.tokens.get(reused)?.revoked === false
          ? store.state.tokens.get(reused)!.account
          : variant('control-account-made-per-setup')
            ? makeAccount(base)
            : base;
      if (account.switch !== undefined) {
        store.switches[account.switch] = true;
        if (apart) store.switchAccounts[account.switch] = name;
        else delete store.switchAccounts[account.switch];
      }
      const values: Params = { token: accountToken(state, name) };
      if (account.agent !== undefined) values.agentId = agentOf(name, account.agent === 'provisioned');
      if (fault('control-setup-missing-field') && state === 'account-without-trunk') delete values.agentId;
      return values;
    }
    switch (state) {
      case 'event-emitted': {
        const event = params.event;
        if (typeof event !== 'string' || !eventTypes.includes(event as EventType))
          invalid(`params.event must be one of ${eventTypes.join(', ')}`);
        const fields = params.fields ?? {};
        if (!isPlainObject(fields)) invalid('params.fields must be an object');
        const name = params.account ?? 'main';
        // control-strict-params: a target that honours no account names of its own.
        if (params.account !== undefined && variant('control-strict-params'))
          invalid('params.account names no account of this target (omit it: the test account)');
        if (typeof name !== 'string' || !accountNames.includes(name as AccountName))
          invalid(`params.account must be one of ${accountNames.join(', ')}`);
        const account = name as AccountName;
        const kind = event as EventType;
        if (variant('control-strict-params')) {
          const problem = fieldProblem(store, kind, fields as Params);
          if (problem !== undefined) invalid(problem);
        }
        // Conformant variants (./variants.ts): real activity reaches the same subscriptions; a call's set.
        if (store.variants.has('control-foreign-events')) store.emit(account, kind, {});
        if (fault('control-event-ids-without-event-id')) {
          const { eventIds } = store.emitSet(account, kind, fields as Params);
          return { eventId: eventIds[0], eventIds: eventIds.slice(1) };
        }
        if (store.variants.has('control-event-sets')) {
          const { eventIds } = store.emitSet(account, kind, fields as Params);
          return { eventId: eventIds[0], eventIds };
        }
        return store.emit(account, kind, fields as Params);
      }
      case 'token-issued': {
        const wanted = params.scopes;
        if (!Array.isArray(wanted) || !wanted.every((s) => typeof s === 'string'))
          return invalid('params.scopes must be an array of scope names');
        const unknown = wanted.filter((s) => !allScopes.includes(s as string));
        if (unknown.length > 0) invalid(`unknown scope ${unknown.join(', ')}; one of ${allScopes.join(', ')}`);
        return { token: store.mintToken('main', wanted as string[], 'api', label(state)) };
      }
      case 'token-revoked': {
        const record = store.state.tokens.get(stringParam(params, 'token'));
        if (record === undefined) return invalid('params.token names no token of this target');
        if (variant('control-revoke-issued-only') && record.label !== label('token-issued'))
          invalid('params.token is not a token token-issued gave');
        record.revoked = true;
        return {};
      }
      case 'clock-advanced': {
        const ms = params.ms;
        if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) invalid('params.ms must be a finite number >= 0');
        if (variant('control-strict-params') && (ms as number) > MAX_ADVANCE_MS)
          invalid(`params.ms must be at most ${MAX_ADVANCE_MS} (48 hours)`);
        try {
          store.clock.advance(variant('control-advance-defers-nested') ? Math.ceil(ms as number) : (ms as number));
        } catch {
          // A timer callback failed; time has still advanced.
        }
        const now = store.clock.now();
        if (variant('control-advance-waits')) await within(store.dispatcher.idle(), IDLE_LIMIT_MS);
        return { now };
      }
      default:
        throw new ProtocolError(500, 'setup_failed', `no setup for ${state}`);
    }
  };

  const teardown = (state: ControlState, params: Params): Params => {
    if (fault('control-teardown-fails')) {
      throw new ProtocolError(500, 'teardown_failed', `the teardown of ${state} failed`);
    }
    const account = accountStates[state];
    if (account?.switch !== undefined) {
      store.switches[account.switch] = false;
      delete store.switchAccounts[account.switch];
    }
    const keeps = account !== undefined && variant('control-account-tokens-kept');
    if ((account !== undefined && !keeps) || state === 'token-issued') undoIssued(state, params.values);
    return {}; // event-emitted, token-revoked, clock-advanced: nothing to undo
  };

  const inspect = async (name: ControlInspection, params: Params): Promise<unknown> => {
    const noParams = name === 'clock' || name === 'deliveries-idle';
    if (noParams && variant('control-strict-params') && Object.keys(params).length > 0)
      invalid(`${name} takes no params (got ${Object.keys(params).join(', ')})`);
    switch (name) {
      case 'clock': {
        const now = store.clock.now();
        if (variant('control-attempt-event-ids')) return { now };
        return { now, iso: new Date(now).toISOString(), virtual: true };
      }
      case 'hook-attempts': {
        const hook = store.hooks.get(stringParam(params, 'hookId').toLowerCase());
        if (hook === undefined) throw new ProtocolError(404, 'not_found', 'no such hook');
        const deliveries = store.dispatcher.deliveries(hook.id).map((d) => ({
          eventId: String(d.payload.eventId),
          state: d.state,
          ...(d.nextAttemptAt === undefined ? {} : { nextAttemptAt: d.nextAttemptAt }),
          attempts: d.attempts.map((a) => ({
            attempt: a.attempt,
            at: a.at,
            outcome: a.outcome,
            ...(variant('control-attempt-event-ids') ? { eventId: String(d.payload.eventId) } : {}),
          })),
        }));
        const reason = hook.disabledReason ?? null;
        return {
          id: hook.id,
          status: hook.status,
          ...(reason === null && variant('control-attempt-event-ids') ? {} : { disabledReason: reason }),
          consecutiveFailures: hook.consecutiveFailures,
          deliveries,
        };
      }
      case 'deliveries-idle': {
        const started = Date.now();
        // control-idle-counts-calls: a call whose call.ended falls due within the 10 s is waited for.
        while (variant('control-idle-counts-calls')) {
          const left = IDLE_LIMIT_MS - (Date.now() - started);
          const next = store.realMsUntilNextCallEnd();
          if (next > left) break;
          await sleep(Math.max(5, Math.min(next + 5, left)));
        }
        let timer: ReturnType<typeof setTimeout> | undefined;
        const gaveUp = new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), Math.max(0, IDLE_LIMIT_MS - (Date.now() - started)));
        });
        const idle = await Promise.race([store.dispatcher.idle().then(() => true), gaveUp]);
        clearTimeout(timer);
        return { idle };
      }
      case 'token-last-used': {
        const record = store.state.tokens.get(stringParam(params, 'token'));
        if (record === undefined) throw new ProtocolError(404, 'not_found', 'no such token');
        return {
          lastUsedAt: record.lastUsedAt === undefined ? null : new Date(record.lastUsedAt).toISOString(),
          revoked: record.revoked,
        };
      }
      case 'call-record': {
        const call = store.calls.get(stringParam(params, 'callId'));
        if (call === undefined) throw new ProtocolError(404, 'not_found', 'no such call');
        return call;
      }
    }
  };

  const guarded =
    (handler: (request: FastifyRequest) => Promise<unknown> | unknown) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      if (!authorised(request))
        return reply
          .code(401)
          .send({ error: 'unauthorized', message: 'send Authorization: Bearer <the control token>' });
      try {
        return reply.send(await handler(request));
      } catch (error) {
        if (error instanceof ProtocolError)
          return reply.code(error.status).send({ error: error.code, message: error.message });
        return reply.code(500).send({ error: 'setup_failed', message: (error as Error).message });
      }
    };

  app.get(
    '/_control/capabilities',
    guarded(() => {
      const inspections = controlInspections.filter((i) => i !== 'clock' || !fault('control-clock-unlisted'));
      const states = fault('control-capabilities-shape') ? controlStates.join(',') : controlStates;
      return { protocol: CONTROL_PROTOCOL, states, inspections };
    }),
  );

  app.post(
    '/_control/states',
    guarded((request) => {
      const body = readBody(request);
      const { state, action = 'setup' } = body;
      if (typeof state !== 'string') throw new ProtocolError(400, 'invalid_request', 'state must be a string');
      if (action !== 'setup' && action !== 'teardown')
        throw new ProtocolError(400, 'invalid_request', 'action must be setup or teardown');
      const lies = fault('control-capabilities-lie') && state === 'originate-failing';
      if (!isControlState(state) || lies) {
        throw new ProtocolError(404, 'unknown_state', `this target offers no state ${state}`);
      }
      const params = paramsOf(body, variant('control-lenient-requests'));
      return action === 'setup' ? setup(state, params) : teardown(state, params);
    }),
  );

  app.post(
    '/_control/inspections',
    guarded((request) => {
      const body = readBody(request);
      const { inspection } = body;
      if (typeof inspection !== 'string')
        throw new ProtocolError(400, 'invalid_request', 'inspection must be a string');
      if (!isControlInspection(inspection))
        throw new ProtocolError(404, 'unknown_inspection', `this target offers no inspection ${inspection}`);
      return inspect(inspection, paramsOf(body, variant('control-lenient-requests')));
    }),
  );

  // control-lenient-requests: 401 before anything under the endpoint, 405 for a documented path
  // with another method (the reference's router answers 404 to both, without looking at a token).
  if (variant('control-lenient-requests')) {
    const documented: Record<string, string> = {
      '/_control/capabilities': 'GET',
      '/_control/states': 'POST',
      '/_control/inspections': 'POST',
    };
    app.all('/_control/*', async (request, reply) => {
      if (!authorised(request))
        return reply
          .code(401)
          .send({ error: 'unauthorized', message: 'send Authorization: Bearer <the control token>' });
      const path = request.url.split('?', 1)[0]!.replace(/\/+$/, '');
      const allowed = documented[path];
      if (allowed === undefined)
        return reply.code(404).send({ error: 'not_found', message: `no control path ${path}` });
      return reply
        .code(405)
        .header('allow', allowed)
        .send({ error: 'method_not_allowed', message: `${path} takes ${allowed} only` });
    });
  }
}
