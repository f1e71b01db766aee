/**
 * Near-miss family "counters and words of quantity" (NM-QUANTITY-*): the spec's words of quantity
 * ("at most", "exactly", "consecutive", "immediately", "minimum", "maximum"), each at every place
 * the spec uses it, probed where a slip hides:
 *
 *   a bound n ("at most", "maximum", "minimum", "exactly")  at n − 1, n and n + 1;
 *   "consecutive" n                                          n − 1 failures, a success, n − 1
 *                                                            failures: the count starts again,
 *                                                            so the state has not moved; and
 *                                                            n − 1, n (the bound itself); once
 *                                                            per kind of failure the delivery
 *                                                            rules name (`failureKinds`);
 *   "immediately"                                            on the very next request, no wait.
 *
 * The table lists the places of the spec (its Limits table, the state table, Authentication),
 * with the number from openapi.json x-limits where there is one; the probes come from the word.
 */
import { limits, openapi } from '../contract/openapi.ts';

export type QuantityWord = 'at most' | 'exactly' | 'consecutive' | 'immediately' | 'minimum' | 'maximum';

export interface QuantityPlace {
  /** Where the spec uses the word, and the sentence. */
  readonly place: string;
  readonly sentence: string;
  readonly word: QuantityWord;
  /** The number it bounds (none for "immediately"). */
  readonly n?: number;
}

/** The spec's places of a quantity word. */
export const quantityPlaces: readonly QuantityPlace[] = [
  {
    place: 'GET /cdrs limit',
    sentence: 'CDR rows per request: default 100, minimum 1, maximum 1000',
    word: 'maximum',
    n: limits.cdrLimitMax,
  },
  {
    place: 'GET /cdrs limit',
    sentence: 'CDR rows per request: default 100, minimum 1, maximum 1000',
    word: 'minimum',
    n: limits.cdrLimitMin,
  },
  {
    place: 'GET /cdrs window',
    sentence: 'CDR window length: at most 31 days',
    word: 'at most',
    n: limits.cdrWindowMaxDays,
  },
  {
    place: 'POST /hooks target_url',
    sentence: 'target_url length: at most 512 characters, https only',
    word: 'at most',
    n: limits.targetUrlMaxLength,
  },
  {
    place: 'POST /hooks event',
    sentence: 'Subscribes one target URL to exactly one event type',
    word: 'exactly',
    n: 1,
  },
  {
    place: 'webhook subscription',
    sentence: 'Auto-disable: endpoint disabled after 10 consecutive failures',
    word: 'consecutive',
    n: limits.webhookAutoDisableAfterConsecutiveFailures,
  },
  {
    place: 'bearer token',
    sentence: 'A token deleted in the portal is revoked immediately',
    word: 'immediately',
  },
];

/**
 * A kind of failure the delivery rules name (openapi.json `x-webhook-delivery`: "4xx response:
 * permanent failure, no retry"; "5xx response or timeout: retried …"): "consecutive failures"
 * counts each of them, so each is realised on its own. A permanent kind fails once per event (each
 * failure is a new event); a retried one fails again on every attempt of the same event.
 */
export interface FailureKind {
  /** The answer class the rule names, e.g. '4xx', '5xx'. */
  readonly answer: string;
  /** Also named by the same rule (e.g. 'timeout'). */
  readonly alsoNamed: readonly string[];
  readonly retried: boolean;
  /** The rule as the contract states it. */
  readonly rule: string;
  /** An answer status of the class a receiver gives (the class's first, or 410 Gone for 4xx). */
  readonly status: number;
}

/** A status of each class a receiver answers to fail a delivery (410 Gone: a receiver's "go away"). */
const STATUS_OF_CLASS: Readonly<Record<string, number>> = { '4xx': 410, '5xx': 503 };

/** The kinds of failure of the delivery rules: every rule naming a status class ("4xx: …", "5xx or timeout: …"). */
export function failureKinds(
  delivery: Readonly<Record<string, unknown>> = openapi['x-webhook-delivery'],
): FailureKind[] {
  const kinds: FailureKind[] = [];
  for (const value of Object.values(delivery)) {
    const rule = typeof value === 'string' ? /^([1-5]xx)((?: or [a-z]+)*): (.+)$/.exec(value) : null;
    if (rule === null) continue;
    const answer = rule[1]!;
    kinds.push({
      answer,
      alsoNamed: rule[2]!.split(' or ').filter((w) => w !== ''),
      retried: /\bretried\b/.test(rule[3]!) && !/\bno retry\b/.test(rule[3]!),
      rule: value as string,
      status: STATUS_OF_CLASS[answer] ?? Number(`${answer[0]}00`),
    });
  }
  return kinds;
}

export type QuantityProbe =
  | {
      readonly kind: 'count';
      readonly place: QuantityPlace;
      readonly value: number;
      readonly within: boolean;
      /** For "consecutive failures": the kind of failure counted. */
      readonly failure?: FailureKind;
    }
  | {
      readonly kind: 'reset';
      readonly place: QuantityPlace;
      /** Failures, one success, failures: the state must not have moved. */
      readonly sequence: readonly ('fail' | 'succeed')[];
      readonly failure?: FailureKind;
    }
  | { readonly kind: 'next-request'; readonly place: QuantityPlace };

const BOUND_WORDS: readonly QuantityWord[] = ['at most', 'maximum', 'minimum', 'exactly'];

/** Whether `value` is within the place's word at n. */
function within(word: QuantityWord, value: number, n: number): boolean {
  if (word === 'minimum') return value >= n;
  if (word === 'exactly') return value === n;
  return value <= n;
}

/**
 * The probes of one place, from its word alone; "consecutive" once per kind of failure (`kinds`,
 * the delivery rules' by default).
 */
export function quantityProbes(place: QuantityPlace, kinds: readonly FailureKind[] = failureKinds()): QuantityProbe[] {
  const { word, n } = place;
  if (word === 'immediately') return [{ kind: 'next-request', place }];
  if (n === undefined) return [];
  if (BOUND_WORDS.includes(word))
    return [n - 1, n, n + 1].map((value) => ({ kind: 'count', place, value, within: within(word, value, n) }));
  // consecutive: n − 1 and n in a row, then n − 1, a success, n − 1 (never n in a row), per kind.
  const fails = (count: number) => Array.from({ length: count }, () => 'fail' as const);
  return kinds.flatMap((failure): QuantityProbe[] => [
    { kind: 'count', place, value: n - 1, within: true, failure },
    { kind: 'count', place, value: n, within: false, failure },
    { kind: 'reset', place, sequence: [...fails(n - 1), 'succeed', ...fails(n - 1)], failure },
  ]);
}

/** Every probe of the table. */
export function allQuantityProbes(table: readonly QuantityPlace[] = quantityPlaces): QuantityProbe[] {
  return table.flatMap((place) => quantityProbes(place));
}

/** The longest run of failures in `outcomes` (true = a failure), which "consecutive" counts. */
export function longestFailureRun(outcomes: readonly boolean[]): number {
  let longest = 0;
  let run = 0;
  for (const failed of outcomes) {
    run = failed ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** What a "consecutive" check saw of a subscription failing with one kind: its state at each step. */
export interface ConsecutiveSeen {
  /** After n − 1 failures, a success and n − 1 failures (the target's count of failures in a row). */
  readonly afterReset: { readonly status: string | undefined; readonly inRow: number };
  /** After one failure more: n in a row. */
  readonly afterN: { readonly status: string | undefined; readonly inRow: number };
}

/**
 * The verdict of "endpoint disabled after n consecutive failures" for one kind of failure: still
 * active after n − 1, a success, n − 1 (unless failures of other events made n in a row), and
 * disabled once n in a row are reached. Undefined when it holds.
 */
export function judgeConsecutive(
  place: QuantityPlace,
  failure: FailureKind,
  seen: ConsecutiveSeen,
): string | undefined {
  const n = place.n ?? 0;
  const { afterReset, afterN } = seen;
  const kind = `${failure.answer} answers`;
  if (afterReset.status !== 'active' && afterReset.inRow < n)
    return (
      `after ${n - 1} ${kind}, a success and ${afterReset.inRow} ${kind} the subscription is ${afterReset.status}: ` +
      `"${place.sentence}" counts failures in a row, a success starts the count again`
    );
  if (afterN.inRow >= n && afterN.status !== 'disabled')
    return (
      `after ${afterN.inRow} ${kind} in a row the subscription is ${afterN.status}, must be disabled: ` +
      `"${place.sentence}", and a ${failure.answer} answer is a failure ("${failure.rule}")`
    );
  return undefined;
}
