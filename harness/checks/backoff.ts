/**
 * The suite's reading of "exponential backoff" (docs/decisions.md): pure, without imports, so the k6
 * webhook-retry probe judges retries by the same rule as the checks.
 */

/** The gaps between consecutive times. */
export function intervals(times: readonly number[]): number[] {
  return times.slice(1).map((time, index) => time - times[index]!);
}

/**
 * Exponential-style growth: the last interval longer than the first, and none shorter than half
 * the one before (so backoff with jitter, as many servers add, is growth too; a constant or
 * shrinking interval is not).
 */
export function intervalsGrow(gaps: readonly number[]): boolean {
  if (gaps.length < 2) return false;
  return gaps.every((gap, index) => index === 0 || gap >= gaps[index - 1]! / 2) && gaps[gaps.length - 1]! > gaps[0]!;
}
