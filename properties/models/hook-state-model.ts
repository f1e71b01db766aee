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
 * One delivery to an active hook whose receiver fails the first `failing` attempts (5xx) and
 * acknowledges the next: how many attempts arrive and what the hook becomes. The delivery is
 * retried until it is acknowledged, unless the failures reach the limit first, which disables
 * the hook and ends the retries.
 */
export function deliveryTransition(hook: Readonly<ModelHook>, failing: number): { attempts: number; next: ModelHook } {
  if (hook.state !== 'active') return { attempts: 0, next: { ...hook } };
  const toLimit = AUTO_DISABLE_AFTER - hook.failures;
  if (failing >= toLimit) return { attempts: toLimit, next: { state: 'disabled', failures: AUTO_DISABLE_AFTER } };
  return { attempts: failing + 1, next: { state: 'active', failures: 0 } };
}

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id is UUID-shaped (any version, any case): those must not be sent as "non-UUID". */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
