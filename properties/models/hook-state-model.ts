/**
 * The spec's webhook subscription state table as a pure model (States and transitions ›
 * Webhook subscription; DELETE /hooks/{id}; Events › Delivery rules):
 *
 *   (none)   POST /hooks, valid body          → active    (200, secret once)
 *   active   DELETE /hooks/{id}               → disabled  (204, no body)
 *   active   10 consecutive delivery failures → disabled  (auto-disabled)
 *   disabled DELETE /hooks/{id}               → disabled  (404 not_found)
 *
 * plus the answers that involve no subscription: an unknown UUID → 404 not_found, an id that is
 * not a UUID → 400 invalid_input. Any 2xx acknowledges a delivery and, being a success, ends a
 * run of consecutive failures.
 */

export type HookState = 'active' | 'disabled';

export const AUTO_DISABLE_AFTER = 10;

export interface ModelHook {
  state: HookState;
  /** Consecutive failed delivery attempts so far. */
  failures: number;
}

export interface Expected {
  readonly status: number;
  readonly code?: string;
}

/** DELETE of a hook of ours in `state`: the answer and the state after it. */
export function deleteTransition(state: HookState): { expected: Expected; next: HookState } {
  return state === 'active'
    ? { expected: { status: 204 }, next: 'disabled' }
    : { expected: { status: 404, code: 'not_found' }, next: 'disabled' };
}

export const DELETE_UNKNOWN: Expected = { status: 404, code: 'not_found' };
export const DELETE_NON_UUID: Expected = { status: 400, code: 'invalid_input' };

/**
 * One delivery attempt that reached an active hook, of any event: an acknowledgement ends a run of
 * failures, a failure extends it and the limit disables the hook. A disabled hook stays disabled.
 */
export function attemptTransition(hook: Readonly<ModelHook>, acknowledged: boolean): ModelHook {
  if (hook.state !== 'active') return { ...hook };
  if (acknowledged) return { state: 'active', failures: 0 };
  const failures = hook.failures + 1;
  return { state: failures >= AUTO_DISABLE_AFTER ? 'disabled' : 'active', failures };
}

/** One attempt as the target recorded it (control inspection hook-attempts), in the target's time order. */
export interface RecordedAttempt {
  readonly eventId: string;
  /** A 2xx answer reached the target; a timeout, a broken connection or another status is a failure. */
  readonly acknowledged: boolean;
}

export interface Replay {
  /** The hook after the attempts. */
  readonly next: ModelHook;
  /** Attempts of the watched events that the target made. */
  readonly attempts: number;
  /** What the target did that the state table forbids, if anything. */
  readonly problem?: string;
}

/**
 * Folds the attempts the target recorded for a hook, of any event, through the model, and judges
 * the delivery of the watched events (`ours`): it is retried until acknowledged or until the hook
 * is disabled, and not after either. Reading the target's own outcomes, not the receiver's plan,
 * keeps the verdict true when an answer reached the target too late for its delivery timeout (a
 * busy host, a slow network): that attempt is a failure for the target, as the spec counts a timeout.
 */
export function replayAttempts(
  hook: Readonly<ModelHook>,
  attempts: readonly RecordedAttempt[],
  ours: readonly string[],
): Replay {
  let state: ModelHook = { ...hook };
  let count = 0;
  let ended: 'acknowledged' | 'disabled' | undefined;
  let problem: string | undefined;
  for (const attempt of attempts) {
    const mine = ours.includes(attempt.eventId);
    if (mine && ended !== undefined && problem === undefined)
      problem = `attempt ${count + 1} of the delivery came after it was ${ended}`;
    state = attemptTransition(state, attempt.acknowledged);
    if (!mine) {
      if (state.state === 'disabled' && ended === undefined) ended = 'disabled';
      continue;
    }
    count += 1;
    if (ended === undefined && attempt.acknowledged) ended = 'acknowledged';
    else if (ended === undefined && state.state === 'disabled') ended = 'disabled';
  }
  if (count === 0 && hook.state === 'active' && problem === undefined)
    problem = 'the event was never attempted, though the subscription was active';
  else if (ended === undefined && problem === undefined)
    problem =
      `the delivery stopped after ${count} attempt(s) with the subscription active and ${state.failures} ` +
      `consecutive failure(s): retried until acknowledged, disabled only at ${AUTO_DISABLE_AFTER}`;
  return problem === undefined ? { next: state, attempts: count } : { next: state, attempts: count, problem };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id is UUID-shaped (any version, any case): those must not be sent as "non-UUID". */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
