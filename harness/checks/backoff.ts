/**
 * The suite's reading of "exponential backoff" (docs/decisions.md): pure, without imports, so the k6
 * webhook-retry probe judges retries by the same rule as the checks.
 */

/** The gaps between consecutive times. */
export function intervals(times: readonly number[]): number[] {
  return times.slice(1).map((time, index) => time - times[index]!);
}

/**
 * How far a time seen on arrival may stray from the moment the target sent the attempt: the
 * network's and both hosts' scheduling delays (a busy host, a TLS handshake per attempt, a WAN).
 * Times the target records itself (its control inspection) stray too when its clock also runs in
 * real time: an attempt fires some real milliseconds after the clock reached its moment, more on a
 * busy host, so a constant schedule could read as growing by a few ms; they take the same tolerance.
 */
export const ARRIVAL_JITTER_MS = 1_000;

/**
 * Exponential-style growth: the last interval longer than the first, and none shorter than half
 * the one before (so backoff with jitter, as many servers add, is growth too; a constant or
 * shrinking interval is not). `jitterMs`: the uncertainty of each observed time (0 for times the
 * target recorded, ARRIVAL_JITTER_MS for arrival times): the growth must exceed it, and a shrink
 * within it is not counted, so a delayed attempt never fails a growing schedule and jitter never
 * passes a constant one.
 */
export function intervalsGrow(gaps: readonly number[], jitterMs = 0): boolean {
  if (gaps.length < 2) return false;
  return (
    gaps.every((gap, index) => index === 0 || gap >= gaps[index - 1]! / 2 - jitterMs) &&
    gaps[gaps.length - 1]! > gaps[0]! + jitterMs
  );
}

/**
 * What intervals seen on arrival say about exponential backoff, in three ways:
 * - `grows`: intervalsGrow holds with the jitter tolerance;
 * - `does-not-grow`: it does not, and the first interval is at least the tolerance long, so a
 *   growth the reading accepts would have shown beyond jitter (a constant or shrinking schedule);
 * - `unresolved`: fewer than two intervals, or intervals so short that jitter could hide a growth
 *   still to come (later, longer intervals may resolve it; the check then says "not verifiable").
 * With times the target recorded (jitterMs 0) an outcome is never unresolved past two intervals.
 */
export type BackoffReading = 'grows' | 'does-not-grow' | 'unresolved';
export function backoffReading(gaps: readonly number[], jitterMs: number): BackoffReading {
  if (gaps.length < 2) return 'unresolved';
  if (intervalsGrow(gaps, jitterMs)) return 'grows';
  const shrinksBeyondJitter = gaps.some((gap, index) => index > 0 && gap < gaps[index - 1]! / 2 - jitterMs);
  return shrinksBeyondJitter || gaps[0]! >= jitterMs ? 'does-not-grow' : 'unresolved';
}
