/**
 * The states of the test-control protocol (control-openapi.json) as the reference sets them up
 * and tears them down (./control-protocol.ts serves them).
 *
 * Account states return a fresh token of one of the seeded special accounts (suspended,
 * noTrunk, noDialer) or of main, labelled with the state; teardown revokes the tokens a state
 * issued and turns its switch off. The switches are global: the suite runs checks one at a time.
 * Where the document lets a target choose (its **either** and MAY), the reference's choice is a
 * point below; the conformant variants marked control (./variants.ts) take the other one
 * (./variants/control.ts), and the endpoint's own faults (./control-faults.ts) bend them too.
 */
import { eventTypes, scopes as allScopes } from '../contract/openapi.ts';
import type { EventType } from '../contract/openapi.ts';
import type { ControlState } from '../contract/control.ts';
import { isPlainObject } from './http.ts';
import { site, type Points } from './points.ts';
import { accountNames } from './seed.ts';
import type { AccountName, TokenRecord } from './seed.ts';
import type { ReferenceStore, Switches } from './store.ts';

export type Params = Record<string, unknown>;

/** A failure the protocol names: status and error code. */
export class ProtocolError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const invalid = (message: string): never => {
  throw new ProtocolError(422, 'invalid_params', message);
};

export function stringParam(params: Params, name: string): string {
  const value = params[name];
  return typeof value === 'string' && value !== '' ? value : invalid(`params.${name} must be a non-empty string`);
}

/** The account whose condition a state stands for, its agent, and its switch. */
export interface AccountState {
  readonly account: AccountName;
  readonly agent?: 'provisioned' | 'unprovisioned';
  readonly switch?: keyof Switches;
}

const accountStates: Partial<Record<ControlState, AccountState>> = {
  'account-suspended': { account: 'suspended' },
  'account-without-trunk': { account: 'noTrunk', agent: 'provisioned' },
  'account-without-dialer': { account: 'noDialer', agent: 'provisioned' },
  'agent-not-provisioned': { account: 'main', agent: 'unprovisioned' },
  'balance-upstream-failing': { account: 'main', switch: 'balanceUpstreamFails' },
  'originate-failing': { account: 'main', agent: 'provisioned', switch: 'originateFails' },
  'engine-not-configured': { account: 'main', agent: 'provisioned', switch: 'engineNotConfigured' },
};

/** The largest advance every target accepts (48 hours); a strict target refuses more. */
export const MAX_ADVANCE_MS = 172_800_000;

/** The label of the tokens a state issues. */
export const stateLabel = (state: ControlState): string => `state:${state}`;

/** An event-emitted setup: which store, account, kind and fields. */
export interface Emission {
  readonly store: ReferenceStore;
  readonly account: AccountName;
  readonly kind: EventType;
  readonly fields: Params;
}

export const controlStates = site('control states', {
  /** Params a state does not document are ignored (and an account name is honoured). */
  strict: (): boolean => false,
  /** The account an account state uses: the seeded one in that condition. */
  account: ({ state }: { store: ReferenceStore; state: AccountState }): AccountName => state.account,
  /** Whether a state's switch holds for its account alone: no, for every account. */
  switchAlone: (state: AccountState): boolean => false,
  /** Each setup of an account state gives a token of its own. */
  keepsTokens: (): boolean => false,
  /** The values an account state's setup answers: its token, and the agent it names. */
  accountValues: ({ values }: { state: ControlState; values: Params }): Params => values,
  /** event-emitted: the one event asked for, to the account's subscriptions of its kind. */
  emit: ({ store, account, kind, fields }: Emission): Params => store.emit(account, kind, fields),
  /** token-revoked takes any token of the target. */
  revocable: (token: TokenRecord): boolean => true,
  /** The ms clock-advanced moves the clock by: as given. */
  advanceBy: (ms: number): number => ms,
  /** clock-advanced answers once the time has moved, while the deliveries it fired are in flight. */
  waitsForDeliveries: (): boolean => false,
  /** What a teardown does with a token its state issued: revokes it. */
  undo: ({
    token,
  }: {
    state: ControlState;
    token: TokenRecord;
    named: string | undefined;
  }): 'revoke' | 'forget' | 'keep' => 'revoke',
  /** A teardown that fails (no target's does). */
  failsTeardown: (state: ControlState): ProtocolError | undefined => undefined,
});

/** Waits for `work` at most `ms`; whether it ended in time (a failure of it counts as ended). */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
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

/** How long clock-advanced waits for deliveries at most, when it waits. */
const IDLE_LIMIT_MS = 10_000;

/** What the setups and teardowns of one server share: its store, its points, the tokens kept. */
interface Machine {
  readonly store: ReferenceStore;
  readonly points: Points;
  /** The one token each account state gives, when tokens are kept. */
  readonly kept: Map<ControlState, string>;
}

function agentOf({ store }: Machine, account: AccountName, provisioned: boolean): string {
  for (const agent of store.state.agents.values()) {
    if (agent.account === account && (agent.sipUsername !== undefined) === provisioned) return agent.id;
  }
  throw new ProtocolError(
    500,
    'setup_failed',
    `the seeded ${account} account has no ${provisioned ? 'provisioned' : 'unprovisioned'} agent`,
  );
}

/** The live token `state` gave before, when tokens are kept. */
function keptToken({ store, kept }: Machine, state: ControlState): TokenRecord | undefined {
  const token = kept.get(state);
  const record = token === undefined ? undefined : store.state.tokens.get(token);
  return record?.revoked === false ? record : undefined;
}

function accountToken(machine: Machine, state: ControlState, account: AccountName): string {
  const reused = keptToken(machine, state);
  if (reused !== undefined) return reused.token;
  const minted = machine.store.mintToken(account, allScopes, 'api', stateLabel(state));
  if (machine.points.of(controlStates).keepsTokens()) machine.kept.set(state, minted);
  return minted;
}

function setupAccount(machine: Machine, state: ControlState, account: AccountState, params: Params): Params {
  const { store, points } = machine;
  const at = points.of(controlStates);
  const extra = Object.keys(params).filter((key) => key !== 'values');
  if (at.strict() && extra.length > 0) invalid(`${state} takes no params (got ${extra.join(', ')})`);
  const name = keptToken(machine, state)?.account ?? at.account({ store, state: account });
  if (account.switch !== undefined) {
    store.switches[account.switch] = true;
    if (at.switchAlone(account)) store.switchAccounts[account.switch] = name;
    else delete store.switchAccounts[account.switch];
  }
  const values: Params = { token: accountToken(machine, state, name) };
  if (account.agent !== undefined) values.agentId = agentOf(machine, name, account.agent === 'provisioned');
  return at.accountValues({ state, values });
}

function emitEvent({ store, points }: Machine, params: Params): Params {
  const at = points.of(controlStates);
  const event = params.event;
  if (typeof event !== 'string' || !eventTypes.includes(event as EventType))
    invalid(`params.event must be one of ${eventTypes.join(', ')}`);
  const fields = params.fields ?? {};
  if (!isPlainObject(fields)) invalid('params.fields must be an object');
  const name = params.account ?? 'main';
  // A strict target honours no account names of its own.
  if (params.account !== undefined && at.strict())
    invalid('params.account names no account of this target (omit it: the test account)');
  if (typeof name !== 'string' || !accountNames.includes(name as AccountName))
    invalid(`params.account must be one of ${accountNames.join(', ')}`);
  const kind = event as EventType;
  if (at.strict()) {
    const problem = fieldProblem(store, kind, fields as Params);
    if (problem !== undefined) invalid(problem);
  }
  return at.emit({ store, account: name as AccountName, kind, fields: fields as Params });
}

function issueToken({ store }: Machine, params: Params): Params {
  const wanted = params.scopes;
  if (!Array.isArray(wanted) || !wanted.every((s) => typeof s === 'string'))
    return invalid('params.scopes must be an array of scope names');
  const unknown = wanted.filter((s) => !allScopes.includes(s as string));
  if (unknown.length > 0) invalid(`unknown scope ${unknown.join(', ')}; one of ${allScopes.join(', ')}`);
  return { token: store.mintToken('main', wanted as string[], 'api', stateLabel('token-issued')) };
}

function revokeToken({ store, points }: Machine, params: Params): Params {
  const record = store.state.tokens.get(stringParam(params, 'token'));
  if (record === undefined) return invalid('params.token names no token of this target');
  if (!points.of(controlStates).revocable(record)) invalid('params.token is not a token token-issued gave');
  record.revoked = true;
  return {};
}

async function advanceClock({ store, points }: Machine, params: Params): Promise<Params> {
  const at = points.of(controlStates);
  const ms = params.ms;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) invalid('params.ms must be a finite number >= 0');
  if (at.strict() && (ms as number) > MAX_ADVANCE_MS) invalid(`params.ms must be at most ${MAX_ADVANCE_MS} (48 hours)`);
  try {
    store.clock.advance(at.advanceBy(ms as number));
  } catch {
    // A timer callback failed; time has still advanced.
  }
  const now = store.clock.now();
  if (at.waitsForDeliveries()) await within(store.dispatcher.idle(), IDLE_LIMIT_MS);
  return { now };
}

/** Undoes the tokens `state` issued: each revoked, forgotten or kept as the points say. */
function undoIssued({ store, points }: Machine, state: ControlState, values: unknown): void {
  const at = points.of(controlStates);
  const named = isPlainObject(values) && typeof values.token === 'string' ? values.token : undefined;
  for (const token of [...store.state.tokens.values()]) {
    if (token.label !== stateLabel(state)) continue;
    const undo = at.undo({ state, token, named });
    if (undo === 'forget') store.state.tokens.delete(token.token);
    else if (undo === 'revoke') token.revoked = true;
  }
}

function teardown(machine: Machine, state: ControlState, params: Params): Params {
  const { store, points } = machine;
  const at = points.of(controlStates);
  const failure = at.failsTeardown(state);
  if (failure !== undefined) throw failure;
  const account = accountStates[state];
  if (account?.switch !== undefined) {
    store.switches[account.switch] = false;
    delete store.switchAccounts[account.switch];
  }
  const keeps = account !== undefined && at.keepsTokens();
  if ((account !== undefined && !keeps) || state === 'token-issued') undoIssued(machine, state, params.values);
  return {}; // event-emitted, token-revoked, clock-advanced: nothing to undo
}

/** The setup and teardown of every state, over `store`. */
export function controlStateMachine(
  store: ReferenceStore,
  points: Points,
): {
  setup(state: ControlState, params: Params): Promise<Params>;
  teardown(state: ControlState, params: Params): Params;
} {
  const machine: Machine = { store, points, kept: new Map() };
  const setup = async (state: ControlState, params: Params): Promise<Params> => {
    const account = accountStates[state];
    if (account !== undefined) return setupAccount(machine, state, account, params);
    switch (state) {
      case 'event-emitted':
        return emitEvent(machine, params);
      case 'token-issued':
        return issueToken(machine, params);
      case 'token-revoked':
        return revokeToken(machine, params);
      case 'clock-advanced':
        return advanceClock(machine, params);
      default:
        throw new ProtocolError(500, 'setup_failed', `no setup for ${state}`);
    }
  };
  return { setup, teardown: (state, params) => teardown(machine, state, params) };
}
