/**
 * What the spec requires of GET /cdrs for one combination of from, till and limit, given when
 * the request was made. Pure: the property (../cdr-window.property.ts) sends the request and
 * compares; the unit test (test/properties/models/cdr-window-model.test.ts) pins the rules.
 *
 * The rules, from the spec (GET /cdrs, Errors, Limits) and the catalogue:
 *   1. a present from or till that is not a date-time → 400 invalid_timestamp; it beats every
 *      other rule, since without both instants no window can be judged;
 *   2. defaults: till = now, from = 24 h before now; with till given and from absent, "24 hours
 *      before now" has two readings (before now, or before till) and both are conformant: where
 *      they lead to different answers the verdict is unspecified (CDRS-DEFAULT-WINDOW);
 *   3. till − from ≤ 0 → 400 till_must_be_after_from;
 *   4. till − from > 31 days (by a second or more) → 400 window_too_wide; exactly 31 days → 200;
 *   5. otherwise 200, at most `limit` rows (default 100), never more than 1000, every row inside
 *      the window.
 * Where the spec is silent the verdict is `unspecified` and names the OBSERVE requirement:
 *   - a date without a time (the spec asks for a date-time, but a date is ISO 8601 too);
 *   - an excess over 31 days of less than a second, or a window shorter than a millisecond
 *     (the precision of the comparison is not shown);
 *   - a limit outside 1..1000 or not an integer (no error code is given for it);
 *   - a window whose verdict depends on exactly when "now" was (a missing till close to a
 *     boundary): the model only knows now to within the request's duration plus clock skew.
 * Then only this holds: a 200 carries at most 1000 rows, or a 400 carries one of the GET /cdrs
 * codes of openapi.json (and a window the rules refuse stays a 400 whatever the limit).
 *
 * Instants are kept in nanoseconds (BigInt) so that 1–9 fractional digits are compared exactly,
 * not after a rounding the spec doesn't state.
 */
import type { RequirementId } from '../../requirements/catalogue.ts';

export const DAY_NS = 86_400_000_000_000n;
export const WINDOW_MAX_NS = 31n * DAY_NS;
export const DEFAULT_SPAN_NS = 24n * 3_600_000_000_000n;
export const SECOND_NS = 1_000_000_000n;
export const MS_NS = 1_000_000n;
export const LIMIT_DEFAULT = 100;
export const LIMIT_MIN = 1;
export const LIMIT_MAX = 1000;

/** The GET /cdrs 400 codes of openapi.json. */
export const WINDOW_ERROR_CODES = ['invalid_timestamp', 'till_must_be_after_from', 'window_too_wide'] as const;
export type WindowErrorCode = (typeof WINDOW_ERROR_CODES)[number];

export type ParsedTimestamp =
  | { readonly kind: 'instant'; readonly ns: bigint }
  | { readonly kind: 'date-only' }
  | { readonly kind: 'invalid' };

// RFC 3339 date-time (the ISO 8601 profile OpenAPI's format: date-time names): a full date,
// T, a full time with optional fraction, then Z or a ±HH:MM offset.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const days = month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return day <= days;
}

/**
 * The instant a from/till string denotes. Only the forms the property generates are judged
 * `instant`; a leap second (:60) and fractions beyond nanoseconds are left `invalid` here and
 * never generated, so no verdict rests on them.
 */
export function parseTimestamp(text: string): ParsedTimestamp {
  const dateOnly = DATE_ONLY.exec(text);
  if (dateOnly) {
    return validDate(Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3]))
      ? { kind: 'date-only' }
      : { kind: 'invalid' };
  }
  const m = DATE_TIME.exec(text);
  if (!m) return { kind: 'invalid' };
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return { kind: 'invalid' };
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return { kind: 'invalid' };
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const fractionNs = BigInt((m[7] ?? '').padEnd(9, '0') || '0');
  return { kind: 'instant', ns: BigInt(date.getTime() - offsetMinutes * 60_000) * MS_NS + fractionNs };
}

export type ParsedLimit = { readonly kind: 'valid'; readonly value: number } | { readonly kind: 'out-of-range' };

/** limit as sent (undefined = absent): the default, an integer in 1..1000, or outside the spec. */
export function parseLimit(raw: string | undefined): ParsedLimit {
  if (raw === undefined) return { kind: 'valid', value: LIMIT_DEFAULT };
  if (!/^[0-9]+$/.test(raw)) return { kind: 'out-of-range' };
  const value = Number(raw);
  return value >= LIMIT_MIN && value <= LIMIT_MAX ? { kind: 'valid', value } : { kind: 'out-of-range' };
}

export interface CdrQuery {
  readonly from?: string | undefined;
  readonly till?: string | undefined;
  readonly limit?: string | undefined;
}

/** When the request was answered: somewhere in [earliestMs, latestMs] (request time ± skew). */
export interface NowRange {
  readonly earliestMs: number;
  readonly latestMs: number;
}

/** The window rows must lie in, in ms, already widened by the uncertainty of "now". */
export interface RowWindow {
  readonly fromMs: number;
  readonly tillMs: number;
}

export type CdrVerdict =
  | {
      readonly kind: 'error';
      readonly status: 400;
      readonly code: WindowErrorCode;
      readonly requirement: RequirementId;
    }
  | {
      readonly kind: 'ok';
      readonly status: 200;
      readonly window: RowWindow;
      readonly limit: number;
      readonly requirement: RequirementId;
    }
  | {
      readonly kind: 'unspecified';
      readonly requirement: RequirementId;
      readonly reason: string;
      /** When the window is known, rows of a 200 must still lie in it. */
      readonly window?: RowWindow | undefined;
      /** The window alone is refused: only which 400 code comes first is open. */
      readonly refused?: boolean;
    };

type WindowOutcome =
  | {
      readonly kind: 'error';
      readonly code: 'till_must_be_after_from' | 'window_too_wide';
      readonly requirement: RequirementId;
    }
  | { readonly kind: 'ok'; readonly requirement: RequirementId }
  | { readonly kind: 'unspecified'; readonly requirement: RequirementId; readonly reason: string };

/** Rules 3 and 4 for one exact window length. */
export function judgeSpan(spanNs: bigint): WindowOutcome {
  if (spanNs <= 0n) return { kind: 'error', code: 'till_must_be_after_from', requirement: 'CDRS-TILL-AFTER-FROM' };
  if (spanNs < MS_NS)
    return {
      kind: 'unspecified',
      requirement: 'CDRS-WINDOW-SUBSECOND-PRECISION',
      reason: 'window shorter than a millisecond',
    };
  if (spanNs <= WINDOW_MAX_NS)
    return { kind: 'ok', requirement: spanNs === WINDOW_MAX_NS ? 'CDRS-WINDOW-EXACTLY-31D' : 'CDRS-TIMESTAMP-OFFSETS' };
  if (spanNs - WINDOW_MAX_NS < SECOND_NS)
    return {
      kind: 'unspecified',
      requirement: 'CDRS-WINDOW-SUBSECOND-PRECISION',
      reason: `31 days + ${spanNs - WINDOW_MAX_NS} ns`,
    };
  return { kind: 'error', code: 'window_too_wide', requirement: 'CDRS-WINDOW-MAX-31D' };
}

const sameOutcome = (a: WindowOutcome, b: WindowOutcome): boolean =>
  a.kind === b.kind && (a.kind !== 'error' || (b.kind === 'error' && a.code === b.code));

const nsToMsFloor = (ns: bigint): number => Number(ns / MS_NS);
const nsToMsCeil = (ns: bigint): number => Number((ns + MS_NS - 1n) / MS_NS);

/** The verdict of the spec for `query` answered at a time within `now`. */
export function cdrVerdict(query: CdrQuery, now: NowRange): CdrVerdict {
  const from = query.from === undefined ? undefined : parseTimestamp(query.from);
  const till = query.till === undefined ? undefined : parseTimestamp(query.till);
  if (from?.kind === 'invalid' || till?.kind === 'invalid') {
    return { kind: 'error', status: 400, code: 'invalid_timestamp', requirement: 'CDRS-INVALID-TIMESTAMP' };
  }
  if (from?.kind === 'date-only' || till?.kind === 'date-only') {
    return { kind: 'unspecified', requirement: 'CDRS-DATE-ONLY-TIMESTAMP', reason: 'a date without a time' };
  }
  const fromNs = from?.kind === 'instant' ? from.ns : undefined;
  const tillNs = till?.kind === 'instant' ? till.ns : undefined;
  const earliest = BigInt(Math.floor(now.earliestMs)) * MS_NS;
  const latest = BigInt(Math.ceil(now.latestMs)) * MS_NS;

  // The window at both ends of the possible "now", under each reading of the default from.
  const windowAt = (nowNs: bigint, fromBeforeNow: boolean): { fromNs: bigint; tillNs: bigint } => {
    const t = tillNs ?? nowNs;
    return { fromNs: fromNs ?? (fromBeforeNow ? nowNs : t) - DEFAULT_SPAN_NS, tillNs: t };
  };
  const readings = fromNs === undefined && tillNs !== undefined ? [false, true] : [false];
  const windows = readings.flatMap((reading) => [windowAt(earliest, reading), windowAt(latest, reading)]);
  const outcomes = windows.map((w) => judgeSpan(w.tillNs - w.fromNs));
  const outcomeEarly = outcomes[0]!;
  // biome-ignore lint/complexity/useMathMinMax: bigints; Math.min takes numbers only
  const minFrom = windows.reduce((min, w) => (w.fromNs < min ? w.fromNs : min), windows[0]!.fromNs);
  // biome-ignore lint/complexity/useMathMinMax: bigints; Math.max takes numbers only
  const maxTill = windows.reduce((max, w) => (w.tillNs > max ? w.tillNs : max), windows[0]!.tillNs);
  const rowWindow: RowWindow = { fromMs: nsToMsFloor(minFrom), tillMs: nsToMsCeil(maxTill) };

  const limit = parseLimit(query.limit);
  if (!outcomes.every((outcome) => sameOutcome(outcomeEarly, outcome))) {
    const reason =
      readings.length > 1
        ? 'the two readings of the default from (24 hours before now, or before till) differ here'
        : 'the verdict depends on the exact request time';
    return { kind: 'unspecified', requirement: 'CDRS-DEFAULT-WINDOW', reason, window: rowWindow };
  }
  if (outcomeEarly.kind === 'unspecified')
    return {
      kind: 'unspecified',
      requirement: outcomeEarly.requirement,
      reason: outcomeEarly.reason,
      window: rowWindow,
    };
  if (limit.kind === 'out-of-range') {
    // A bad window stays refused whatever the limit; only the code may then be the limit's.
    return {
      kind: 'unspecified',
      requirement: 'CDRS-LIMIT-OUT-OF-RANGE',
      reason: `limit ${JSON.stringify(query.limit)}`,
      window: rowWindow,
      refused: outcomeEarly.kind === 'error',
    };
  }
  if (outcomeEarly.kind === 'error')
    return { kind: 'error', status: 400, code: outcomeEarly.code, requirement: outcomeEarly.requirement };
  const requirement: RequirementId =
    fromNs === undefined || tillNs === undefined ? 'CDRS-DEFAULT-WINDOW' : outcomeEarly.requirement;
  return { kind: 'ok', status: 200, window: rowWindow, limit: limit.value, requirement };
}

/** Most rows a 200 may carry under `verdict`: its limit, or the maximum when the limit is not one the spec allows. */
export function maxRows(verdict: CdrVerdict): number {
  return verdict.kind === 'ok' ? verdict.limit : LIMIT_MAX;
}
