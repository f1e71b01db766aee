/**
 * Near-miss family "counters and words of quantity" (NM-QUANTITY-*): the spec's words of quantity
 * ("at most", "exactly", "consecutive", "immediately", "minimum", "maximum"), each at every place
 * the spec uses it, probed where a slip hides:
 *
 *   a bound n ("at most", "maximum", "minimum", "exactly")  at n − 1, n and n + 1;
 *   "consecutive" n                                          n − 1 failures, a success, n − 1
 *                                                            failures: the count starts again,
 *                                                            so the state has not moved; and
 *                                                            n − 1, n (the bound itself);
 *   "immediately"                                            on the very next request, no wait.
 *
 * The table lists the places of the spec (its Limits table, the state table, Authentication),
 * with the number from openapi.json x-limits where there is one; the probes come from the word.
 */
import { limits } from '../contract/openapi.ts';

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

export type QuantityProbe =
  | { readonly kind: 'count'; readonly place: QuantityPlace; readonly value: number; readonly within: boolean }
  | {
      readonly kind: 'reset';
      readonly place: QuantityPlace;
      /** Failures, one success, failures: the state must not have moved. */
      readonly sequence: readonly ('fail' | 'succeed')[];
    }
  | { readonly kind: 'next-request'; readonly place: QuantityPlace };

const BOUND_WORDS: readonly QuantityWord[] = ['at most', 'maximum', 'minimum', 'exactly'];

/** Whether `value` is within the place's word at n. */
function within(word: QuantityWord, value: number, n: number): boolean {
  if (word === 'minimum') return value >= n;
  if (word === 'exactly') return value === n;
  return value <= n;
}

/** The probes of one place, from its word alone. */
export function quantityProbes(place: QuantityPlace): QuantityProbe[] {
  const { word, n } = place;
  if (word === 'immediately') return [{ kind: 'next-request', place }];
  if (n === undefined) return [];
  if (BOUND_WORDS.includes(word))
    return [n - 1, n, n + 1].map((value) => ({ kind: 'count', place, value, within: within(word, value, n) }));
  // consecutive: n − 1 and n in a row, then n − 1, a success, n − 1 (never n in a row).
  const fails = (count: number) => Array.from({ length: count }, () => 'fail' as const);
  return [
    { kind: 'count', place, value: n - 1, within: true },
    { kind: 'count', place, value: n, within: false },
    { kind: 'reset', place, sequence: [...fails(n - 1), 'succeed', ...fails(n - 1)] },
  ];
}

/** Every probe of the table. */
export function allQuantityProbes(table: readonly QuantityPlace[] = quantityPlaces): QuantityProbe[] {
  return table.flatMap(quantityProbes);
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
