/**
 * The rules of cdrs-defaults.suite.ts that need no target: an answer with a parameter left out
 * compared record for record with the answer to the same request with the default written out.
 * Pure, so test/suites/cdrs-defaults.test.ts can hold them.
 *
 * Records are compared by id, never by position: the order of records is the target's choice
 * (docs/decisions.md), and so is which `limit` of a fuller window it returns.
 */
import type { CdrList } from '../../contract/openapi.ts';

type Row = CdrList['calls'][number];

const MINUTE_MS = 60_000;

/** "id at startTime", for messages. */
export function describeRow(row: Row): string {
  return `${row.id ?? '?'} at ${row.startTime ?? '(no startTime)'}`;
}

/** The records of `expected` whose id `actual` lacks, described; records without an id are skipped. */
export function lackedRows(
  expected: CdrList,
  actual: CdrList,
  where: (startMs: number) => boolean = () => true,
): string[] {
  const have = new Set(actual.calls.map((row) => row.id));
  return expected.calls
    .filter((row) => row.id !== undefined && !have.has(row.id) && where(Date.parse(row.startTime ?? '')))
    .map(describeRow);
}

/**
 * Two answers that must hold the same records (the same window read two ways): what is wrong,
 * or undefined when they hold the same ids, as many records and the same count.
 */
export function sameRowsProblem(expected: CdrList, actual: CdrList, what: string): string | undefined {
  const missing = lackedRows(expected, actual);
  const extra = lackedRows(actual, expected);
  const problems: string[] = [];
  if (missing.length > 0) problems.push(`${missing.length} missing (e.g. ${missing.slice(0, 3).join(', ')})`);
  if (extra.length > 0) problems.push(`${extra.length} more (e.g. ${extra.slice(0, 3).join(', ')})`);
  if (actual.calls.length !== expected.calls.length)
    problems.push(`${actual.calls.length} records instead of ${expected.calls.length}`);
  if (actual.count !== expected.count)
    problems.push(`count ${String(actual.count)} instead of ${String(expected.count)}`);
  return problems.length === 0 ? undefined : `${what}: ${problems.join('; ')}`;
}

/**
 * `limit` left out against `limit=100` written out, over a window holding more than either
 * returns: as many records and the same count; the same ids when the written-out answer holds
 * the whole window (fewer than `limit`). When both are full, which `limit` of the window's
 * records each returns is the target's choice, so differing ids are not a problem (they are
 * returned in `note`).
 */
export function defaultLimitProblem(
  defaulted: CdrList,
  explicit: CdrList,
  limit: number,
): { problem?: string; note?: string } {
  const what = `GET /cdrs without limit against the same request with limit=${limit}`;
  if (explicit.calls.length < limit) {
    const problem = sameRowsProblem(explicit, defaulted, what);
    return problem === undefined ? {} : { problem };
  }
  const problems: string[] = [];
  if (defaulted.calls.length !== explicit.calls.length)
    problems.push(`${defaulted.calls.length} records instead of ${explicit.calls.length}`);
  if (defaulted.count !== explicit.count)
    problems.push(`count ${String(defaulted.count)} instead of ${String(explicit.count)}`);
  if (problems.length > 0) return { problem: `${what}: ${problems.join('; ')}` };
  const differ = lackedRows(explicit, defaulted).length;
  return differ === 0
    ? { note: `both answers hold the same ${limit} records of a fuller window` }
    : { note: `both hold ${limit} records of a fuller window, ${differ} of them different ones (the target's choice)` };
}

/** Whether an answer holds as many records as it may: the window may hold more than it shows. */
export function isFull(list: CdrList, limit: number): boolean {
  return list.calls.length >= limit;
}

/** The start of the UTC day of `ms`. */
export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / (1440 * MINUTE_MS)) * 1440 * MINUTE_MS;
}

/**
 * An RFC 3339 date-time for the instant `ms` (whole seconds) written in a UTC offset of
 * `offsetMinutes` (e.g. 330 → "+05:30", -210 → "-03:30"; 0 → "Z"): the same instant, another
 * wall time.
 */
export function instantWithOffset(ms: number, offsetMinutes: number): string {
  const wholeSecond = Math.floor(ms / 1000) * 1000;
  if (offsetMinutes === 0) return new Date(wholeSecond).toISOString().replace('.000Z', 'Z');
  const wall = new Date(wholeSecond + offsetMinutes * MINUTE_MS).toISOString().slice(0, 19);
  const magnitude = Math.abs(offsetMinutes);
  const hours = String(Math.floor(magnitude / 60)).padStart(2, '0');
  const minutes = String(magnitude % 60).padStart(2, '0');
  return `${wall}${offsetMinutes < 0 ? '-' : '+'}${hours}:${minutes}`;
}
