/**
 * Near-miss family "transitions" (NM-CONCURRENT-TRANSITION, NM-USE-AFTER-TRANSITION): derived
 * from the spec's state table, not written per endpoint.
 *
 * The table below is the spec's "States and transitions › Webhook subscription" table, row for
 * row (openapi.json carries no state table). The operators apply to every row moved by an API
 * operation that changes the state (from ≠ next, from an existing state):
 *
 *   concurrent double   the same request twice at the same moment: the first of them moves the
 *                       state, so exactly one gets the row's answer and the other the answer of
 *                       the row of the same operation from the next state;
 *   use after           the request again after the move: the next state's row answers, and a
 *                       state the spec says receives nothing (disabled) receives no delivery.
 */
import type { OperationKey } from '../contract/openapi.ts';

export interface Answer {
  readonly status: number;
  readonly error?: string;
}

export interface StateRow {
  readonly from: string;
  /** An API operation, or a cause that is not a request (delivery failures). */
  readonly movedBy: OperationKey | 'delivery failures';
  readonly condition: string;
  readonly next: string;
  readonly answer?: Answer;
}

/** The spec's state table of a webhook subscription. '(none)' is the state before creation. */
export const subscriptionStates: readonly StateRow[] = [
  { from: '(none)', movedBy: 'POST /hooks', condition: 'valid body', next: 'active', answer: { status: 200 } },
  {
    from: 'active',
    movedBy: 'DELETE /hooks/{id}',
    condition: 'hook exists and belongs to the account',
    next: 'disabled',
    answer: { status: 204 },
  },
  { from: 'active', movedBy: 'delivery failures', condition: '10 consecutive failures', next: 'disabled' },
  {
    from: 'disabled',
    movedBy: 'DELETE /hooks/{id}',
    condition: 'always',
    next: 'disabled',
    answer: { status: 404, error: 'not_found' },
  },
];

/** States to which the spec says nothing is delivered ("a disabled subscription gets nothing"). */
export const silentStates: readonly string[] = ['disabled'];

export interface TransitionProbe {
  readonly id: 'NM-CONCURRENT-TRANSITION' | 'NM-USE-AFTER-TRANSITION';
  readonly operation: OperationKey;
  readonly from: string;
  readonly next: string;
  /** The answer of the request that moves the state. */
  readonly mover: Answer;
  /** The answer of the same request in the next state. */
  readonly after: Answer;
  /** Whether the next state receives no delivery. */
  readonly silent: boolean;
}

/** Every probe of the family over `table`: two per state-changing row moved by an API operation. */
export function transitionProbes(table: readonly StateRow[] = subscriptionStates): TransitionProbe[] {
  return table.flatMap((row) => {
    if (row.movedBy === 'delivery failures' || row.from === '(none)' || row.from === row.next) return [];
    if (row.answer === undefined) return [];
    const operation = row.movedBy;
    const afterRow = table.find((r) => r.from === row.next && r.movedBy === operation && r.condition === 'always');
    if (afterRow?.answer === undefined) return [];
    const base = {
      operation,
      from: row.from,
      next: row.next,
      mover: row.answer,
      after: afterRow.answer,
      silent: silentStates.includes(row.next),
    };
    return [
      { id: 'NM-CONCURRENT-TRANSITION' as const, ...base },
      { id: 'NM-USE-AFTER-TRANSITION' as const, ...base },
    ];
  });
}

export interface Seen {
  readonly status: number | undefined;
  readonly error?: string | undefined;
}

const matches = (seen: Seen, answer: Answer) =>
  seen.status === answer.status && (answer.error === undefined || seen.error === answer.error);

const show = (a: Answer) => `${a.status}${a.error === undefined ? '' : ` ${a.error}`}`;
const shown = (s: Seen) => `${s.status ?? 'no answer'}${s.error === undefined ? '' : ` ${s.error}`}`;

/**
 * The verdict of a concurrent double: exactly one answer is the mover's, the other the next
 * state's (in either order: which one arrives first is the target's). undefined when it holds.
 */
export function judgeConcurrentDouble(probe: TransitionProbe, seen: readonly [Seen, Seen]): string | undefined {
  const [a, b] = seen;
  if ((matches(a, probe.mover) && matches(b, probe.after)) || (matches(b, probe.mover) && matches(a, probe.after)))
    return undefined;
  return (
    `two ${probe.operation} of one ${probe.from} subscription sent at once answered ${shown(a)} and ${shown(b)}: ` +
    `exactly one must move it to ${probe.next} (${show(probe.mover)}) and the other meet it ${probe.next} ` +
    `(${show(probe.after)})`
  );
}

/** The verdict of the same request after the move. undefined when it holds. */
export function judgeUseAfter(probe: TransitionProbe, seen: Seen): string | undefined {
  if (matches(seen, probe.after)) return undefined;
  return `${probe.operation} of a ${probe.next} subscription answered ${shown(seen)}, must be ${show(probe.after)}`;
}
