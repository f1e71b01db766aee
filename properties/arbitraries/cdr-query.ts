/**
 * Generators of GET /cdrs queries: from/till strings at the boundaries the spec draws (exactly
 * 31 days, 31 days + 1 ms / + 1 s, equal instants, reversed, sides absent), written with every
 * kind of offset (-12:00 … +14:00, :30 and :45 ones, Z) and 1–9 fractional digits, plus leap
 * days, date-only strings and unparseable ones; and limits inside and outside 1..1000.
 *
 * Windows stay within the last 60 days of `nowMs` (the reference server seeds CDRs over that
 * span), except the leap-day ones, which only exercise parsing (2024-02-29).
 */
import fc from 'fast-check';
import type { CdrQuery } from '../models/cdr-window-model.ts';

const SECOND_NS = 1_000_000_000n;
const MS_NS = 1_000_000n;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const WINDOW_MAX_MS = 31 * DAY_MS;

/** Z and offsets over the whole -12:00..+14:00 range, the half- and three-quarter-hour ones included. */
export const OFFSETS = [
  'Z',
  '+00:00',
  '-00:00',
  '-12:00',
  '-11:00',
  '-09:30',
  '-08:00',
  '-03:30',
  '-01:00',
  '+01:00',
  '+03:30',
  '+04:30',
  '+05:30',
  '+05:45',
  '+06:30',
  '+08:45',
  '+09:30',
  '+10:30',
  '+12:45',
  '+13:00',
  '+14:00',
] as const;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function offsetMinutes(offset: string): number {
  if (offset === 'Z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  return sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
}

/**
 * An instant (ns since the epoch, after 1970) written in `offset` with `digits` fractional
 * digits, or more when its fraction needs them (it is never rounded: the text denotes exactly
 * the instant).
 */
export function renderInstant(ns: bigint, offset: string, digits: number): string {
  const seconds = ns / SECOND_NS;
  const fraction = (ns % SECOND_NS).toString().padStart(9, '0');
  const needed = fraction.replace(/0+$/, '').length;
  const shown = Math.max(needed, Math.min(9, digits));
  const local = new Date(Number(seconds) * 1000 + offsetMinutes(offset) * 60_000);
  const date = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  return `${date}T${time}${shown === 0 ? '' : `.${fraction.slice(0, shown)}`}${offset}`;
}

/** How an instant is written: offset and fractional digits. */
const writing = fc.record({ offset: fc.constantFrom(...OFFSETS), digits: fc.integer({ min: 0, max: 9 }) });

/** A sub-second part with 0–9 significant digits (so both ms-aligned and nanosecond instants occur). */
const subSecondNs = fc
  .integer({ min: 0, max: 9 })
  .chain((precision) =>
    fc.integer({ min: 0, max: 10 ** precision - 1 }).map((value) => BigInt(value) * 10n ** BigInt(9 - precision)),
  );

/** Window lengths (ns) at and around the spec's boundaries, and ordinary ones. */
const spanNs = fc.oneof(
  { weight: 4, arbitrary: fc.constant(BigInt(WINDOW_MAX_MS) * MS_NS) },
  { weight: 1, arbitrary: fc.constant(BigInt(WINDOW_MAX_MS + 1) * MS_NS) },
  { weight: 3, arbitrary: fc.constant(BigInt(WINDOW_MAX_MS + 1000) * MS_NS) },
  { weight: 1, arbitrary: fc.constant(BigInt(WINDOW_MAX_MS) * MS_NS + 1n) },
  { weight: 1, arbitrary: fc.constant(BigInt(WINDOW_MAX_MS - 1000) * MS_NS) },
  {
    weight: 2,
    arbitrary: fc
      .integer({ min: WINDOW_MAX_MS + 1000, max: WINDOW_MAX_MS + 2 * DAY_MS })
      .map((ms) => BigInt(ms) * MS_NS),
  },
  { weight: 3, arbitrary: fc.constant(0n) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 2 * DAY_MS }).map((ms) => -BigInt(ms) * MS_NS) },
  { weight: 1, arbitrary: fc.constant(-1n) },
  { weight: 4, arbitrary: fc.integer({ min: 1000, max: WINDOW_MAX_MS }).map((ms) => BigInt(ms) * MS_NS) },
  { weight: 1, arbitrary: fc.constant(BigInt(DAY_MS) * MS_NS) },
);

/** Lengths of a window that the spec accepts (for the rows/limit property). */
const acceptedSpanNs = fc.oneof(
  { weight: 2, arbitrary: fc.constant(BigInt(WINDOW_MAX_MS) * MS_NS) },
  { weight: 4, arbitrary: fc.integer({ min: 20 * DAY_MS, max: WINDOW_MAX_MS }).map((ms) => BigInt(ms) * MS_NS) },
  { weight: 4, arbitrary: fc.integer({ min: 1000, max: 3 * DAY_MS }).map((ms) => BigInt(ms) * MS_NS) },
  { weight: 1, arbitrary: fc.constant(BigInt(DAY_MS) * MS_NS) },
);

/** Strings no reading of ISO 8601 makes a date-time of. */
export const unparseable = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'garbage',
    'yesterday',
    'now',
    'null',
    '2026-13-01T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-04-31T12:00:00Z',
    '2026-01-01T25:00:00Z',
    '2026-01-01T12:61:00Z',
    '2026-00-10T00:00:00Z',
    '2026-01-01T00:00:00+25:00',
    'T12:00:00Z',
    '2026-01-01TZ',
  ),
  fc.string({ maxLength: 24 }).map((s) => `x${s}`),
);

/** Dates without a time, valid ones (leap day included). */
const dateOnly = (nowMs: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.integer({ min: 1, max: 59 }).map((days) => new Date(nowMs - days * DAY_MS).toISOString().slice(0, 10)),
    fc.constant('2024-02-29'),
  );

/** Whole-second instants in the last `maxBackMs` before now, with a generated sub-second part (ns). */
const recentInstant = (nowMs: number, minBackMs: number, maxBackMs: number): fc.Arbitrary<bigint> =>
  fc
    .tuple(fc.integer({ min: minBackMs, max: maxBackMs }), subSecondNs)
    .map(([back, sub]) => BigInt(Math.floor((nowMs - back) / 1000)) * SECOND_NS + sub);

/** Instants on and around 2024-02-29 (parsing only: no data there). */
const leapDayInstant = fc
  .tuple(fc.integer({ min: 0, max: 3 * DAY_MS - 1 }), subSecondNs)
  .map(([ms, sub]) => (BigInt(Date.parse('2024-02-28T00:00:00Z') + ms) / 1000n) * SECOND_NS + sub);

const limit: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('1', '1000') },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 40 }).map(String) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 1000 }).map(String) },
  { weight: 2, arbitrary: fc.oneof(fc.constant('1001'), fc.integer({ min: 1001, max: 100_000 }).map(String)) },
  { weight: 1, arbitrary: fc.oneof(fc.constant('0'), fc.integer({ min: -1000, max: -1 }).map(String)) },
  { weight: 1, arbitrary: fc.constantFrom('2.5', '1e2', 'abc', '', ' 5', '10.0', '0x10') },
);

export interface GeneratedQuery {
  readonly query: CdrQuery;
  /** How it was made, for readable counterexamples. */
  readonly shape: string;
}

const written = (ns: bigint, w: { offset: string; digits: number }): string => renderInstant(ns, w.offset, w.digits);

/**
 * Queries for the window-status property: every shape, boundaries weighted up. Both sides sit
 * within [now − 60 d, now]: till at most 28 days back, spans at most 33 days.
 */
export function windowQuery(nowMs: number): fc.Arbitrary<GeneratedQuery> {
  const both = fc
    .record({ till: recentInstant(nowMs, 60_000, 28 * DAY_MS), span: spanNs, tw: writing, fw: writing, limit })
    .map(
      ({ till, span, tw, fw, limit: l }): GeneratedQuery => ({
        query: { from: written(till - span, fw), till: written(till, tw), limit: l },
        shape: `from and till, span ${span} ns`,
      }),
    );
  const leap = fc
    .record({
      till: leapDayInstant,
      span: fc.oneof(spanNs, fc.constant(BigInt(DAY_MS) * MS_NS)),
      tw: writing,
      fw: writing,
      limit,
    })
    .map(
      ({ till, span, tw, fw, limit: l }): GeneratedQuery => ({
        query: { from: written(till - span, fw), till: written(till, tw), limit: l },
        shape: 'around 2024-02-29',
      }),
    );
  // Only from: till is now; from is a while back (accepted), beyond 31 days (too wide) or ahead (negative).
  const onlyFrom = fc
    .record({
      from: fc.oneof(
        recentInstant(nowMs, 10 * 60_000, 30 * DAY_MS),
        recentInstant(nowMs, WINDOW_MAX_MS + 10 * 60_000, 40 * DAY_MS),
        recentInstant(nowMs, -2 * DAY_MS, -10 * 60_000),
      ),
      w: writing,
      limit,
    })
    .map(
      ({ from, w, limit: l }): GeneratedQuery => ({
        query: { from: written(from, w), limit: l },
        shape: 'only from',
      }),
    );
  const onlyTill = fc.record({ till: recentInstant(nowMs, 60_000, 35 * DAY_MS), w: writing, limit }).map(
    ({ till, w, limit: l }): GeneratedQuery => ({
      query: { till: written(till, w), limit: l },
      shape: 'only till',
    }),
  );
  const neither = limit.map((l): GeneratedQuery => ({ query: { limit: l }, shape: 'neither' }));
  // One side (or both) replaced by something unparseable or by a date alone.
  const broken = fc
    .record({
      valid: recentInstant(nowMs, 60_000, 28 * DAY_MS),
      w: writing,
      bad: fc.oneof({ weight: 3, arbitrary: unparseable }, { weight: 1, arbitrary: dateOnly(nowMs) }),
      other: fc.oneof(fc.constant<string | undefined>(undefined), unparseable, dateOnly(nowMs)),
      side: fc.constantFrom('from', 'till', 'both', 'other-absent'),
      limit,
    })
    .map(({ valid, w, bad, other, side, limit: l }): GeneratedQuery => {
      const good = written(valid, w);
      const query: CdrQuery =
        side === 'from'
          ? { from: bad, till: good, limit: l }
          : side === 'till'
            ? { from: good, till: bad, limit: l }
            : side === 'both'
              ? { from: bad, till: other ?? bad, limit: l }
              : { from: bad, limit: l };
      return { query, shape: `broken ${side}` };
    });
  return fc.oneof(
    { weight: 8, arbitrary: both },
    { weight: 1, arbitrary: leap },
    { weight: 2, arbitrary: onlyFrom },
    { weight: 1, arbitrary: onlyTill },
    { weight: 1, arbitrary: neither },
    { weight: 3, arbitrary: broken },
  );
}

/** Queries whose window the spec accepts, for the rows/count/limit property (limits of every kind). */
export function acceptedWindowQuery(nowMs: number): fc.Arbitrary<GeneratedQuery> {
  const both = fc
    .record({ till: recentInstant(nowMs, 60_000, 28 * DAY_MS), span: acceptedSpanNs, tw: writing, fw: writing, limit })
    .map(
      ({ till, span, tw, fw, limit: l }): GeneratedQuery => ({
        query: { from: written(till - span, fw), till: written(till, tw), limit: l },
        shape: `from and till, span ${span} ns`,
      }),
    );
  const onlyFrom = fc.record({ from: recentInstant(nowMs, 10 * 60_000, 30 * DAY_MS), w: writing, limit }).map(
    ({ from, w, limit: l }): GeneratedQuery => ({
      query: { from: written(from, w), limit: l },
      shape: 'only from',
    }),
  );
  const onlyTill = fc.record({ till: recentInstant(nowMs, 60_000, 35 * DAY_MS), w: writing, limit }).map(
    ({ till, w, limit: l }): GeneratedQuery => ({
      query: { till: written(till, w), limit: l },
      shape: 'only till',
    }),
  );
  const neither = limit.map((l): GeneratedQuery => ({ query: { limit: l }, shape: 'neither' }));
  return fc.oneof(
    { weight: 5, arbitrary: both },
    { weight: 2, arbitrary: onlyFrom },
    { weight: 1, arbitrary: onlyTill },
    { weight: 1, arbitrary: neither },
  );
}
