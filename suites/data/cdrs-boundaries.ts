/** The probe tables of cdrs-boundaries.suite.ts: GET /cdrs inputs either side of each rule's boundary. */
import { CDR_WINDOW_MAX_MS, limits } from '../../contract/openapi.ts';

export const SECOND_MS = 1000;
export const HOUR_MS = 3_600_000;

/**
 * Limits outside 1..1000 or not an integer: the spec gives no error code for them. Ranked
 * likeliest slip first (a run short of budget sends the first every run, rotation.ts): no upper
 * cap at all (1001) is the common one; 0 and -1 reach a database as "no limit"; 2.5 and abc are
 * mostly caught by any number parser.
 */
export const limitsOutOfRange = [String(limits.cdrLimitMax + 1), '0', '-1', '2.5', 'abc'];

export type Side = { what: string; window: (at: number) => { from: number; till: number }; contains: boolean };
// `at` is the record's startTime floored to the second; no window puts the record on an edge.
// Ranked likeliest slip first: `from` read to the minute or the day lets in a record before it;
// a `till` compared loosely lets in one after it; losing a record inside is rarer.
export const sides: Side[] = [
  {
    what: 'from one second after the record',
    window: (at) => ({ from: at + SECOND_MS, till: at + HOUR_MS }),
    contains: false,
  },
  {
    what: 'till one second before the record',
    window: (at) => ({ from: at - HOUR_MS, till: at - SECOND_MS }),
    contains: false,
  },
  {
    what: 'from one second before, till two seconds after the record',
    window: (at) => ({ from: at - SECOND_MS, till: at + 2 * SECOND_MS }),
    contains: true,
  },
];

/**
 * Dates that do not exist, with valid times. Ranked likeliest slip first: 30 February is what a
 * lenient Date parser rolls over most visibly; 29 February of a common year needs leap-year
 * rules; 31 April and 31 June (with an offset) the month lengths.
 */
export const impossibleDates = [
  { from: '2026-02-27T10:00:00Z', till: '2026-02-30T10:00:00Z', what: 'till 30 February' },
  { from: '2025-02-29T10:00:00Z', till: '2025-03-01T10:00:00Z', what: 'from 29 February of a common year' },
  { from: '2026-04-30T00:00:00Z', till: '2026-04-31T00:00:00Z', what: 'till 31 April' },
  { from: '2026-06-31T08:00:00+02:00', till: '2026-07-02T08:00:00+02:00', what: 'from 31 June with an offset' },
];

/**
 * Windows of 31 days ± 1 s from months of every length. Ranked likeliest slip first: "31 days"
 * checked as one calendar month refuses 31 days from February, then from a 30-day month; an
 * off-by-one at the limit accepts 31 days and one second; refusing just under the limit is rare.
 */
export const windowsOf31Days = [
  { from: '2026-02-01T00:00:00Z', spanMs: CDR_WINDOW_MAX_MS, accepted: true, what: 'exactly 31 days from 1 February' },
  {
    from: '2026-04-10T00:00:00Z',
    spanMs: CDR_WINDOW_MAX_MS,
    accepted: true,
    what: 'exactly 31 days from 10 April (a 30-day month)',
  },
  {
    from: '2026-01-31T00:00:00Z',
    spanMs: CDR_WINDOW_MAX_MS + SECOND_MS,
    accepted: false,
    what: '31 days plus one second from 31 January',
  },
  {
    from: '2026-02-15T12:00:00Z',
    spanMs: CDR_WINDOW_MAX_MS - SECOND_MS,
    accepted: true,
    what: '31 days minus one second from 15 February',
  },
];
