/**
 * GET /cdrs (spec: Call detail records): the account's CDRs in a window of at most 31 days, for a
 * token with read:cdrs. Without till the window ends now; without from it starts 24 hours before
 * till.
 *
 * Decisions where the spec is silent (OBSERVE requirements of the catalogue):
 * - window edges: [from, till), from inclusive, till exclusive, so consecutive windows (till of
 *   one = from of the next) neither lose nor repeat a record;
 * - order: startTime ascending; with more rows than `limit`, the earliest `limit` are returned;
 * - limit is CLAMPED (the spec gives no error code): > 1000 → 1000, < 1 → 1; a value that is not
 *   an integer (`abc`, `2.5`, empty, repeated) is treated as absent (default 100);
 * - timestamps: strict RFC 3339 (../timestamps.ts); a date-only string is refused with
 *   invalid_timestamp; a repeated from/till is invalid_timestamp too;
 * - "exactly 31 days" is compared in milliseconds: 31 d accepted, 31 d + 1 ms refused;
 * - parameter errors (400) are reported before the account's state (409).
 */
import type { FastifyInstance } from 'fastify';
import { CDR_WINDOW_MAX_MS, limits } from '../../contract/openapi.ts';
import type { Cdr } from '../../contract/openapi.ts';
import { refuse, sendError, singleQuery } from '../http.ts';
import type { ErrorAnswer } from '../http.ts';
import { site } from '../points.ts';
import type { Account, CdrRecord } from '../seed.ts';
import { parseDateTime } from '../timestamps.ts';
import { authenticate } from './authentication.ts';
import type { RouteOptions } from './options.ts';

const HOUR_MS = 3_600_000;

/** A window of instants, in ms. */
export interface Window {
  readonly from: number;
  readonly till: number;
}

/** A window's instants: from and till, each edge included (`[`, `]`) or not (`(`, `)`). */
export interface Range extends Window {
  readonly edges: '[)' | '[]' | '(]' | '()';
}

/** What a window's records are selected from: the account, its records (ascending), the range, a limit. */
export interface Selection {
  readonly account: Account;
  readonly records: readonly CdrRecord[];
  readonly range: Range;
  readonly limit: number;
}

/** Whether `ms` lies in `range`. */
export function inRange(ms: number, { from, till, edges }: Range): boolean {
  return (edges[0] === '[' ? ms >= from : ms > from) && (edges[1] === ')' ? ms < till : ms <= till);
}

/** The CDR limit after clamping (see the module comment). */
export function parseLimit(raw: string | undefined | null, defaultLimit: number = limits.cdrLimitDefault): number {
  if (typeof raw !== 'string' || !/^[+-]?[0-9]{1,15}$/.test(raw.trim())) return defaultLimit;
  return Math.min(limits.cdrLimitMax, Math.max(limits.cdrLimitMin, Number(raw.trim())));
}

export const getCdrs = site('GET /cdrs', {
  /**
   * A query parameter as given: its value, undefined when absent, null when given more than once
   * (a repeated from/till is then invalid_timestamp, a repeated limit the default).
   */
  query: ({ value }: { name: 'from' | 'till' | 'limit'; value: unknown }): string | null | undefined =>
    singleQuery({ value }, 'value'),
  /** The instant of a from or till value; undefined when it is no RFC 3339 date-time with an offset. */
  timestamp: ({ raw }: { name: 'from' | 'till'; raw: string }): number | undefined => parseDateTime(raw),
  invalidTimestamp: (name: 'from' | 'till'): ErrorAnswer => ({
    status: 400,
    error: 'invalid_timestamp',
    message: `${name} is not an ISO 8601 date-time with an offset, e.g. 2026-01-31T12:00:00Z`,
  }),
  /** Without till: now. */
  defaultTill: (now: number): number => now,
  /** Without from: 24 hours before till. */
  defaultFrom: ({ till }: { till: number; now: number; tillGiven: boolean }): number =>
    till - limits.cdrDefaultWindowHours * HOUR_MS,
  /** Longer than 31 days, in ms: exactly 31 days is accepted. */
  tooWide: ({ from, till }: Window): boolean => till - from > CDR_WINDOW_MAX_MS,
  unprovisioned: (account: Account): boolean => !account.trunk,
  limit: (raw: string | null | undefined): number => parseLimit(raw),
  /** The window's edges: [from, till). */
  range: (window: Window): Range => ({ ...window, edges: '[)' }),
  /** The records starting in the range, ascending, the first `limit` of them; and how many it holds. */
  select: ({ records, range, limit }: Selection): { rows: CdrRecord[]; inRange: number } => {
    const inside = records.filter((record) => inRange(record.startMs, range));
    return { rows: inside.slice(0, limit), inRange: inside.length };
  },
  /** The CdrList: count = the rows returned. */
  body: ({ rows }: { rows: readonly CdrRecord[]; inRange: number }): { count: number; calls: Cdr[] | null } => ({
    count: rows.length,
    calls: rows.map((r) => r.row),
  }),
});

export async function cdrsRoute(app: FastifyInstance, options: RouteOptions): Promise<void> {
  const { store, points } = options;
  app.get('/v1/cdrs', (request, reply) => {
    const token = authenticate(request, reply, 'GET /cdrs', options);
    if (token === undefined) return reply;
    const at = points.of(getCdrs);
    /** A from or till as given: its instant, undefined when absent, NaN when it is no date-time (or repeated). */
    const instant = (name: 'from' | 'till'): number | undefined => {
      const raw = at.query({ name, value: (request.query as Record<string, unknown>)[name] });
      if (raw === undefined) return undefined;
      return raw === null ? Number.NaN : (at.timestamp({ name, raw }) ?? Number.NaN);
    };
    const fromMs = instant('from');
    const tillMs = instant('till');
    if (Number.isNaN(fromMs)) return refuse(reply, points, at.invalidTimestamp('from'));
    if (Number.isNaN(tillMs)) return refuse(reply, points, at.invalidTimestamp('till'));
    const now = store.clock.now();
    const till = tillMs ?? at.defaultTill(now);
    const from = fromMs ?? at.defaultFrom({ till, now, tillGiven: tillMs !== undefined });
    if (till <= from) return sendError(reply, points, 400, 'till_must_be_after_from', 'till must be later than from');
    if (at.tooWide({ from, till }))
      return sendError(
        reply,
        points,
        400,
        'window_too_wide',
        `the window is longer than ${limits.cdrWindowMaxDays} days; split it into consecutive windows`,
      );
    const account = store.state.accounts.get(token.account)!;
    if (at.unprovisioned(account))
      return sendError(reply, points, 409, 'account_not_provisioned', 'no trunk is allocated to the account yet');
    const limit = at.limit(at.query({ name: 'limit', value: (request.query as Record<string, unknown>).limit }));
    const records = store.state.cdrs.get(token.account) ?? [];
    return reply.send(at.body(at.select({ account, records, range: at.range({ from, till }), limit })));
  });
}
