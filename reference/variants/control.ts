/**
 * Conformant variants of the test-control endpoint (../control-protocol.ts, ../control-states.ts,
 * ../control-inspections.ts): the other choice at an **either** (or MAY) of control-openapi.json.
 * ../variants.ts describes each.
 */
import { randomBytes } from 'node:crypto';
import { controlInspections } from '../control-inspections.ts';
import { controlProtocol } from '../control-protocol.ts';
import { controlStates, stateLabel } from '../control-states.ts';
import { variantsAt } from '../points.ts';
import type { AccountName } from '../seed.ts';
import type { ReferenceStore } from '../store.ts';

/** The accounts made so far, per store (their names count on across resets). */
const made = new WeakMap<ReferenceStore, number>();

/** A new account with the flags of `template` and two agents, one provisioned and one not, as a portal would make. */
function makeAccount(store: ReferenceStore, template: AccountName): AccountName {
  const like = store.state.accounts.get(template)!;
  const count = (made.get(store) ?? 0) + 1;
  made.set(store, count);
  const name = `made${count}` as AccountName;
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
}

export default [
  ...variantsAt(controlProtocol, { 'control-lenient-requests': { lenient: () => true } }),
  // Registered inner first: an account made per setup is made like the account the other overrides choose.
  ...variantsAt(controlStates, {
    'control-strict-params': { strict: () => true },
    'control-account-states-apart': {
      account: (chosen, next) => (chosen.state.switch !== undefined ? 'other' : next(chosen)),
      switchAlone: (state) => state.switch !== undefined,
    },
    'control-account-made-per-setup': { account: (chosen, next) => makeAccount(chosen.store, next(chosen)) },
    'control-account-tokens-kept': { keepsTokens: () => true },
    'control-event-sets': {
      emit: ({ store, account, kind, fields }) => {
        const { eventIds } = store.emitSet(account, kind, fields);
        return { eventId: eventIds[0], eventIds };
      },
    },
    // Real activity: another event of the same kind and account, just before the requested one.
    'control-foreign-events': {
      emit: (emission, next) => {
        emission.store.emit(emission.account, emission.kind, {});
        return next(emission);
      },
    },
    'control-revoke-issued-only': { revocable: (token) => token.label === stateLabel('token-issued') },
    'control-advance-defers-nested': { advanceBy: (ms) => Math.ceil(ms) },
    'control-advance-waits': { waitsForDeliveries: () => true },
    'control-token-forget': {
      undo: (undoing, next) => {
        const undo = next(undoing);
        return undo === 'revoke' && undoing.state === 'token-issued' ? 'forget' : undo;
      },
    },
    'control-teardown-named-only': {
      undo: (undoing, next) => (undoing.token.token === undoing.named ? next(undoing) : 'keep'),
    },
  }),
  ...variantsAt(controlInspections, {
    'control-strict-params': { strict: () => true },
    'control-attempt-event-ids': {
      clock: (now) => ({ now }),
      attempt: (attempt, next) => ({ ...next(attempt), eventId: attempt.eventId }),
      hook: (view, next) => {
        const answered = next(view);
        const { disabledReason, ...rest } = answered;
        return disabledReason === null ? rest : answered;
      },
    },
    'control-idle-counts-calls': { waitsForCalls: () => true },
  }),
];
