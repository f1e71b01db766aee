/**
 * What every near-miss operator is: a stable id, the family it belongs to, the elements of the
 * contract it applies to, and the verdict rule a conforming target meets (with the spec's sentence
 * behind it). Each family's file exports its operators and a pure function deriving its probes
 * from an OpenAPI document; docs/near-misses.md lists them.
 */
import type { Element } from './document.ts';
import type { Expectation } from './expectation.ts';

export type Family = 'surface' | 'credentials' | 'constrained strings' | 'numbers' | 'identifiers' | 'issued tokens';

export interface OperatorInfo {
  /** Stable id, e.g. NM-TRAILING-NEWLINE. */
  readonly id: string;
  readonly family: Family;
  /** Which elements of the contract it applies to, in words. */
  readonly appliesTo: string;
  /** The verdict rule, in words. */
  readonly verdict: string;
  /** The spec's (or a standard's) sentence behind the verdict. */
  readonly because: string;
}

/** One value-level near miss of one element (constrained strings, numbers): a value derived from a valid one. */
export interface ValueProbe {
  readonly operator: string;
  readonly element: Element;
  /** The near-miss value, from the valid value the target accepts (the element's seed). */
  readonly value: (seed: string) => string;
  /** What it is, e.g. 'a trailing newline'. */
  readonly what: string;
  readonly expect: Expectation;
  /**
   * A conforming target may accept it (same-value, within): for an operation that creates
   * something, the caller must be ready for that (clean up, never ring a phone).
   */
  readonly mayBeAccepted: boolean;
}

/** The probes of a list, each operator's in the order given (likeliest slip first), interleaved per element. */
export function byElement<T extends { readonly element: Element }>(probes: readonly T[]): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const probe of probes) grouped.set(probe.element.id, [...(grouped.get(probe.element.id) ?? []), probe]);
  return grouped;
}

/**
 * A family's probes ranked: sorted by `key` (compared number by number, lower first), ties kept in
 * the order given. Each family's key is its ranking of real servers' slips (beside it in its file),
 * and the request budget sends a family's probes from the top of this list (docs/near-misses.md).
 */
export function rankedBy<T>(probes: readonly T[], key: (probe: T) => readonly number[]): T[] {
  const keyed = probes.map((probe, index) => ({ probe, index, key: key(probe) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < Math.max(a.key.length, b.key.length); i++) {
      const d = (a.key[i] ?? 0) - (b.key[i] ?? 0);
      if (d !== 0) return d;
    }
    return a.index - b.index;
  });
  return keyed.map((k) => k.probe);
}

/** The 0-based occurrence of each probe among those of the same group (e.g. one operator on one element). */
export function occurrences<T>(probes: readonly T[], group: (probe: T) => string): Map<T, number> {
  const seen = new Map<string, number>();
  const out = new Map<T, number>();
  for (const probe of probes) {
    const g = group(probe);
    const n = seen.get(g) ?? 0;
    out.set(probe, n);
    seen.set(g, n + 1);
  }
  return out;
}
