/** Faults of GET /cdrs (../routes/cdrs.ts). ../faults.ts describes each. */
import { CDR_WINDOW_MAX_MS, limits } from '../../contract/openapi.ts';
import { faultsAt } from '../points.ts';
import { getCdrs, parseLimit } from '../routes/cdrs.ts';
import { parseDateTime } from '../timestamps.ts';

const HOUR_MS = 3_600_000;

/** The start of the UTC day of `ms`: a date-typed default ("today"). */
function startOfUtcDay(ms: number): number {
  return Math.floor(ms / (24 * HOUR_MS)) * 24 * HOUR_MS;
}

/** One calendar month after `ms` (UTC; JS month arithmetic, Jan 31 + 1 month = Mar 3). */
function oneCalendarMonthAfter(ms: number): number {
  const date = new Date(ms);
  date.setUTCMonth(date.getUTCMonth() + 1);
  return date.getTime();
}

export default faultsAt(getCdrs, {
  'cdrs-invalid-timestamp-500': {
    invalidTimestamp: () => ({ status: 500, error: 'internal_error', message: 'unexpected error' }),
  },
  'cdrs-impossible-date-rolls-over': { timestamp: ({ raw }) => parseDateTime(raw, { rollOverDays: true }) },
  'cdrs-ignores-offset': { timestamp: ({ raw }) => parseDateTime(raw, { ignoreOffset: true }) },
  // "Write Z for UTC".
  'nm-datetime-zero-offset-refused': {
    timestamp: (given, next) => (/\+00:00$/.test(given.raw) ? undefined : next(given)),
  },
  'cdrs-from-truncated-to-minute': {
    timestamp: (given, next) => {
      const ms = next(given);
      return given.name === 'from' && ms !== undefined ? Math.floor(ms / 60_000) * 60_000 : ms;
    },
  },
  'cdrs-default-till-midnight': { defaultTill: (now) => startOfUtcDay(now) },
  'cdrs-default-window-48h': { defaultFrom: (window, next) => next(window) - 24 * HOUR_MS },
  // "Today's calls".
  'cdrs-default-from-midnight': { defaultFrom: ({ till }) => startOfUtcDay(till) },
  'cdrs-window-31d-rejected': { tooWide: ({ from, till }) => till - from >= CDR_WINDOW_MAX_MS },
  'cdrs-window-calendar-month': { tooWide: ({ from, till }) => till > oneCalendarMonthAfter(from) },
  'cdrs-window-32d-accepted': { tooWide: () => false },
  // 200 with no rows.
  'cdrs-not-provisioned-200': {
    unprovisioned: () => false,
    select: (selection, next) => (selection.account.trunk ? next(selection) : { rows: [], inRange: 0 }),
  },
  'cdrs-default-limit-99': { limit: (raw) => parseLimit(raw, limits.cdrLimitDefault - 1) },
  // A framework's page size.
  'cdrs-default-limit-50': { limit: (raw) => parseLimit(raw, 50) },
  // Whole to Number() ("1e4", "1001.0") though no plain integer: used uncapped.
  'nm-limit-lenient': {
    limit: (raw, next) => {
      if (typeof raw !== 'string' || /^[+-]?[0-9]+$/.test(raw.trim())) return next(raw);
      const value = Number(raw);
      return Number.isInteger(value) && value > 0 ? value : next(raw);
    },
  },
  // Cast to a signed 32-bit integer after the range check; a negative limit read as "no limit".
  'nm-limit-int32-wrap': {
    limit: (raw, next) =>
      typeof raw === 'string' && /^[0-9]{10,15}$/.test(raw) && (Number(raw) | 0) < 0
        ? Number.MAX_SAFE_INTEGER
        : next(raw),
  },
  // The maximum checked with < instead of <=.
  'cdrs-limit-1000-capped-999': { limit: (raw, next) => Math.min(next(raw), limits.cdrLimitMax - 1) },
  'cdrs-limit-unbounded': {
    limit: (raw, next) =>
      typeof raw === 'string' && /^[0-9]{1,15}$/.test(raw) ? Math.max(next(raw), Number(raw)) : next(raw),
  },
  'cdrs-limit-ignored': { limit: () => limits.cdrLimitDefault },
  // A page cap of the storage layer under the limit, and count the window's total (the other reading).
  'nm-cdrs-hidden-cap-count-total': {
    select: (selection, next) => {
      const { rows, inRange } = next(selection);
      return { rows: rows.slice(0, 500), inRange };
    },
    body: ({ rows, inRange }, next) => ({ ...next({ rows, inRange }), count: inRange }),
  },
  'cdrs-rows-outside-window': {
    range: (window, next) => {
      const range = next(window);
      return { ...range, from: range.from - 24 * HOUR_MS };
    },
  },
  'cdrs-count-mismatch': {
    body: (selected, next) => {
      const body = next(selected);
      return { ...body, count: body.count + 1 };
    },
  },
  // A nil list.
  'cdrs-empty-calls-null': {
    body: (selected, next) => (selected.rows.length === 0 ? { ...next(selected), calls: null } : next(selected)),
  },
});
