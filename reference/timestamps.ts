/**
 * A strict RFC 3339 date-time parser for GET /cdrs `from` and `till` (the spec says "ISO 8601
 * date-time"; RFC 3339 is the ISO 8601 profile the internet uses and the one OpenAPI's
 * `format: date-time` means).
 *
 * Accepted: YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM), `T`/`Z` in either case, any number of
 * fractional digits (read to the millisecond, the rest truncated), leap second :60 (rolls into
 * the next second), any offset from -23:59 to +23:59.
 * Also accepted: a space in place of the offset's `+`, because an unencoded `+` in a query
 * string decodes to a space (`from=2026-01-01T00:00:00+02:00` sent as is).
 * Refused (→ 400 invalid_timestamp), decided and documented:
 *   - date-only strings (`2026-01-31`): the spec asks for a date-time, so a date alone is not one;
 *   - a date-time without an offset (local time is ambiguous on a server);
 *   - ISO 8601 basic format, week dates, ordinal dates, comma fractions, out-of-range fields
 *     (month 13, 31 April, 29 February of a common year, hour 24, offset hour 24).
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+\- ])(\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Deviations a fault can switch on (reference/faults.ts). */
export interface DateTimeLeniency {
  /** cdrs-impossible-date-rolls-over: any day up to 31 is taken, and Date.UTC rolls it into the next month. */
  readonly rollOverDays?: boolean;
  /** cdrs-ignores-offset: the offset is dropped, so the wall time is read as UTC. */
  readonly ignoreOffset?: boolean;
}

/** Epoch milliseconds of an RFC 3339 date-time, or undefined when it is not one. */
export function parseDateTime(text: string, leniency: DateTimeLeniency = {}): number | undefined {
  if (text.length > 64) return undefined;
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > (leniency.rollOverDays === true ? 31 : daysInMonth(year, month)))
    return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC maps years 0..99 to 1900..1999; set the full year explicitly.
  const date = new Date(utc);
  if (year < 100) date.setUTCFullYear(year);
  const value = date.getTime() - (leniency.ignoreOffset === true ? 0 : offsetMinutes) * 60_000;
  return Number.isFinite(value) ? value : undefined;
}
