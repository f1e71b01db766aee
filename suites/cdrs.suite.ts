import { describe } from 'vitest';
import { CDR_WINDOW_MAX_MS, DAY_MS, limits, type CdrList } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import {
  cdrCountProblem,
  cdrCountReading,
  codeOf,
  expectError,
  extraFields,
  orderOf,
} from '../harness/checks/verdicts.ts';
import type { RequirementId } from '../requirements/catalogue.ts';
import { secondProofTurn } from './data/second-proofs.ts';
import { rowsOutside } from './rules/cdrs.ts';

const HOUR_MS = 3_600_000;
const iso = (ms: number): string => new Date(ms).toISOString();
/** Whole seconds, so that window lengths are exact whatever precision a target keeps. */
const wholeSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

/**
 * "Now" as the target sees it: the reference runs a virtual clock that other suites move
 * forward, so read it when we can; a remote target runs on real time (give it some skew).
 */
async function targetNow(t: CheckTools): Promise<{ now: number; skewMs: number }> {
  if (t.control.offers('clock')) return { now: await t.control.clock(), skewMs: 1_000 };
  return { now: Date.now(), skewMs: 120_000 };
}

async function listCdrs(
  t: CheckTools,
  query: Record<string, string | number | undefined>,
  token = t.token('read:cdrs'),
): Promise<CdrList> {
  const exchange = await t.call({ method: 'GET', path: '/cdrs', token, query });
  t.expectStatus(exchange, 200);
  return exchange.json as CdrList;
}

/** CDRS-COUNT-MATCHES-ROWS under every reading of count, as a verdict of its own; the reading is recorded. */
function verifyCount(t: CheckTools, list: CdrList, limit: number, what: string): void {
  const problem = cdrCountProblem(list, limit);
  t.verify('CDRS-COUNT-MATCHES-ROWS', problem === undefined, `GET /cdrs ${what}: ${problem ?? ''}`);
  const reading = cdrCountReading(list, limit);
  if (reading !== undefined) t.observe('CDRS-COUNT-READING', reading);
}

/** Records outside the window, as a verdict of the requirements named (the check goes on). */
function verifyInside(
  t: CheckTools,
  requirements: RequirementId | readonly RequirementId[],
  list: CdrList,
  fromMs: number,
  tillMs: number,
  slackMs: number,
  what: string,
): void {
  const outside = rowsOutside(list, fromMs, tillMs, slackMs);
  t.verify(
    requirements,
    outside.length === 0,
    `GET /cdrs ${what}: ${outside.length} of ${list.calls.length} records fall outside [${iso(fromMs)}, ` +
      `${iso(tillMs)}], e.g. ${outside.slice(0, 3).join(', ')}`,
  );
}

describe('GET /cdrs', () => {
  check(
    'GET /cdrs without parameters answers the last 24 hours: count matching the records, every record in the window',
    {
      verifies: [
        'CDRS-DEFAULT-WINDOW',
        'CDRS-200-SHAPE',
        'CDRS-COUNT-MATCHES-ROWS',
        'CDRS-ROWS-IN-WINDOW',
        'FORMAT-JSON-CONTENT-TYPE',
        'CDR-REQUIRED-FIELDS',
        'CDR-DISPOSITION-VALUES',
        'CONTRACT-UNKNOWN-FIELDS',
        'CDRS-COUNT-READING',
      ],
      needs: { tokens: ['read:cdrs'] },
      requests: 1,
    },
    async (t) => {
      const before = await targetNow(t);
      const list = await listCdrs(t, {});
      const after = await targetNow(t);
      verifyCount(t, list, limits.cdrLimitDefault, 'without parameters');
      verifyInside(
        t,
        ['CDRS-DEFAULT-WINDOW', 'CDRS-ROWS-IN-WINDOW'],
        list,
        before.now - limits.cdrDefaultWindowHours * HOUR_MS,
        after.now,
        before.skewMs,
        'without from and till',
      );
      const fields = [
        'id',
        'startTime',
        'duration',
        'billsec',
        'src',
        'dst',
        'disposition',
        'sipUsername',
        'sellPriceCents',
        'currency',
        'country',
        'did',
      ];
      const omitted = fields.filter((field) => list.calls.some((row) => !(field in row)));
      t.observe(
        'CDR-REQUIRED-FIELDS',
        list.calls.length === 0
          ? 'no record in the last 24 hours to look at'
          : omitted.length === 0
            ? `all ${list.calls.length} records carry every Cdr field`
            : `some records omit: ${omitted.join(', ')}`,
      );
      t.observe(
        'CDR-DISPOSITION-VALUES',
        `dispositions seen: ${[...new Set(list.calls.map((row) => String(row.disposition)))].join(', ') || 'none'}`,
      );
      const extra = [...new Set(list.calls.flatMap((row) => extraFields(row, 'Cdr')))];
      t.observe(
        'CONTRACT-UNKNOWN-FIELDS',
        extra.length === 0
          ? 'Cdr records carry no field beyond the documented ones'
          : `Cdr records carry undocumented fields: ${extra.join(', ')}`,
      );
    },
  );

  // "24 hours before now" has two readings once till is given: literally now (so a till older
  // than 24 hours makes a negative window) or 24 hours before till. Both are conformant: a till
  // 10 days ago gets 400 till_must_be_after_from or the records of that day, and which is recorded.
  check(
    'GET /cdrs with only till (10 days ago) reads from as 24 hours before now or as 24 hours before till',
    {
      verifies: ['CDRS-DEFAULT-WINDOW', 'CDRS-ROWS-IN-WINDOW', 'CDRS-TILL-AFTER-FROM', 'CDRS-DEFAULT-FROM-READING'],
      needs: { tokens: ['read:cdrs'] },
      requests: 1,
      turn: secondProofTurn('only till 10 days ago, only from 40 days ago'),
    },
    async (t) => {
      const till = wholeSecond(Date.now() - 10 * DAY_MS);
      const exchange = await t.call({
        method: 'GET',
        path: '/cdrs',
        token: t.token('read:cdrs'),
        query: { till: iso(till) },
      });
      if (exchange.status === 400) {
        expectError(t, exchange, 400, 'till_must_be_after_from');
        t.observe(
          'CDRS-DEFAULT-FROM-READING',
          'with only till, from is 24 hours before now: a till older than that is a negative window (400 ' +
            'till_must_be_after_from)',
        );
        return;
      }
      t.ensure(
        exchange.status === 200,
        `GET /cdrs with till=${iso(till)} and no from: expected 200 (from = till − 24 h) or 400 ` +
          `till_must_be_after_from (from = now − 24 h), got ${codeOf(exchange)}`,
      );
      t.observe('CDRS-DEFAULT-FROM-READING', 'with only till, from is 24 hours before till');
      verifyInside(
        t,
        ['CDRS-DEFAULT-WINDOW', 'CDRS-ROWS-IN-WINDOW'],
        exchange.json as CdrList,
        till - limits.cdrDefaultWindowHours * HOUR_MS,
        till,
        0,
        `with till=${iso(till)} and no from`,
      );
    },
  );

  check(
    'GET /cdrs with only from reads till as now: from 40 days ago is a window too wide',
    {
      verifies: ['CDRS-DEFAULT-WINDOW', 'CDRS-WINDOW-MAX-31D'],
      needs: { tokens: ['read:cdrs'] },
      requests: 1,
      turn: secondProofTurn('only till 10 days ago, only from 40 days ago'),
    },
    async (t) => {
      const exchange = await t.call({
        method: 'GET',
        path: '/cdrs',
        token: t.token('read:cdrs'),
        query: { from: iso(wholeSecond(Date.now() - 40 * DAY_MS)) },
      });
      t.ensure(
        exchange.status === 400,
        `GET /cdrs with from 40 days ago and no till (so till = now): expected 400 window_too_wide, got ` +
          `${codeOf(exchange)}`,
      );
      expectError(t, exchange, 400, 'window_too_wide');
    },
  );

  check(
    'GET /cdrs returns only records in [from, till): at most 100 by default, exactly `limit` if the window holds more',
    {
      verifies: [
        'CDRS-ROWS-IN-WINDOW',
        'CDRS-COUNT-MATCHES-ROWS',
        'CDRS-LIMIT-DEFAULT-100',
        'CDRS-LIMIT-HONOURED',
        'CDRS-ORDER',
        'CDRS-WINDOW-EDGES',
        'CDRS-COUNT-READING',
      ],
      needs: { tokens: ['read:cdrs'] },
      requests: 3,
    },
    async (t) => {
      const till = wholeSecond(Date.now() - 5 * DAY_MS);
      const from = till - 10 * DAY_MS;
      const list = await listCdrs(t, { from: iso(from), till: iso(till) });
      verifyInside(t, 'CDRS-ROWS-IN-WINDOW', list, from, till, 0, `from=${iso(from)} till=${iso(till)}`);
      verifyCount(t, list, limits.cdrLimitDefault, 'without limit');
      t.verify(
        'CDRS-LIMIT-DEFAULT-100',
        list.calls.length <= limits.cdrLimitDefault,
        `GET /cdrs without limit returned ${list.calls.length} records, more than the default ` +
          `${limits.cdrLimitDefault}`,
      );
      const starts = list.calls.map((row) => Date.parse(row.startTime ?? ''));
      t.observe('CDRS-ORDER', `records come ${orderOf(starts)} by startTime (${list.calls.length} records)`);

      const limited = await listCdrs(t, { from: iso(from), till: iso(till), limit: 7 });
      verifyInside(t, 'CDRS-ROWS-IN-WINDOW', limited, from, till, 0, 'with limit=7');
      verifyCount(t, limited, 7, 'with limit=7');
      // The window holds at least as many records as the first answer carried.
      const exactly = list.calls.length > 7;
      t.verify(
        'CDRS-LIMIT-HONOURED',
        exactly ? limited.calls.length === 7 : limited.calls.length <= 7,
        `GET /cdrs limit=7 over a window holding at least ${list.calls.length} records returned ` +
          `${limited.calls.length}, must be ${exactly ? 'exactly' : 'at most'} 7`,
      );

      // Edges, with one request: a window from the earliest record's startTime to a later record's
      // (whatever order the target lists them in).
      const timed = list.calls
        .filter((row) => Number.isFinite(Date.parse(row.startTime ?? '')))
        .sort((a, b) => Date.parse(a.startTime!) - Date.parse(b.startTime!));
      const first = timed[0];
      const later = timed
        .slice(Math.floor(timed.length / 2))
        .find((row) => first !== undefined && Date.parse(row.startTime!) > Date.parse(first.startTime!));
      if (first?.startTime === undefined || later?.startTime === undefined) {
        t.observe('CDRS-WINDOW-EDGES', 'not enough records in the window to probe the edges with');
      } else {
        const edges = await listCdrs(t, { from: first.startTime, till: later.startTime });
        const has = (id: string | undefined) => edges.calls.some((row) => row.id === id);
        t.observe(
          'CDRS-WINDOW-EDGES',
          `a record starting exactly at from is ${has(first.id) ? 'included' : 'excluded'}; one starting ` +
            `exactly at till is ${has(later.id) ? 'included' : 'excluded'}`,
        );
        verifyInside(
          t,
          'CDRS-ROWS-IN-WINDOW',
          edges,
          Date.parse(first.startTime),
          Date.parse(later.startTime),
          0,
          `from=${first.startTime} till=${later.startTime}`,
        );
        verifyCount(t, edges, limits.cdrLimitDefault, `from=${first.startTime} till=${later.startTime}`);
      }
    },
  );

  // The answers to limit=1001 and limit=5000 are recorded.
  check(
    'GET /cdrs never returns more than 1000 records, whatever limit is asked for',
    {
      verifies: ['CDRS-LIMIT-MAX-1000', 'CDRS-LIMIT-OUT-OF-RANGE'],
      needs: { tokens: ['read:cdrs'] },
      requests: 2,
    },
    async (t) => {
      const till = wholeSecond(Date.now() - HOUR_MS);
      const from = till - 30 * DAY_MS;
      const answers: string[] = [];
      for (const limit of [limits.cdrLimitMax + 1, 5000]) {
        const exchange = await t.call({
          method: 'GET',
          path: '/cdrs',
          token: t.token('read:cdrs'),
          query: { from: iso(from), till: iso(till), limit },
        });
        if (exchange.status === 200) {
          const list = exchange.json as CdrList;
          t.ensure(
            list.calls.length <= limits.cdrLimitMax,
            `GET /cdrs limit=${limit} returned ${list.calls.length} records, more than the maximum ` +
              `${limits.cdrLimitMax}`,
          );
          answers.push(`limit=${limit} → 200 with ${list.calls.length} records`);
        } else {
          answers.push(`limit=${limit} → ${codeOf(exchange)}`);
        }
      }
      t.observe('CDRS-LIMIT-OUT-OF-RANGE', answers.join('; '));
    },
  );

  check(
    'GET /cdrs answers 400 invalid_timestamp to an unparseable from and to an unparseable till',
    {
      verifies: [
        'CDRS-INVALID-TIMESTAMP',
        'CONTRACT-DOCUMENTED-STATUS',
        'CONTRACT-ERROR-CODE-PER-STATUS',
        'FORMAT-ERROR-BODY',
      ],
      needs: { tokens: ['read:cdrs'] },
      requests: 2,
    },
    async (t) => {
      const valid = iso(wholeSecond(Date.now() - DAY_MS));
      for (const query of [{ from: 'yesterday at noon' }, { from: valid, till: '2026-02-30T25:61:00Z' }]) {
        const exchange = await t.call({ method: 'GET', path: '/cdrs', token: t.token('read:cdrs'), query });
        t.ensure(
          exchange.status === 400,
          `GET /cdrs ${JSON.stringify(query)}: expected 400 invalid_timestamp, got ${codeOf(exchange)}`,
        );
        expectError(t, exchange, 400, 'invalid_timestamp');
      }
    },
  );

  check(
    'GET /cdrs answers 400 till_must_be_after_from to a zero and to a negative window',
    {
      verifies: ['CDRS-TILL-AFTER-FROM', 'CONTRACT-ERROR-CODE-PER-STATUS'],
      needs: { tokens: ['read:cdrs'] },
      requests: 2,
    },
    async (t) => {
      const at = wholeSecond(Date.now() - 2 * DAY_MS);
      for (const [from, till, what] of [
        [at, at, 'zero'],
        [at, at - HOUR_MS, 'negative'],
      ] as const) {
        const exchange = await t.call({
          method: 'GET',
          path: '/cdrs',
          token: t.token('read:cdrs'),
          query: { from: iso(from), till: iso(till) },
        });
        t.ensure(
          exchange.status === 400,
          `GET /cdrs with a ${what} window: expected 400 till_must_be_after_from, got ${codeOf(exchange)}`,
        );
        expectError(t, exchange, 400, 'till_must_be_after_from');
      }
    },
  );

  check(
    'GET /cdrs answers 400 window_too_wide to a window of 31 days and one second',
    {
      verifies: ['CDRS-WINDOW-MAX-31D'],
      needs: { tokens: ['read:cdrs'] },
      requests: 1,
    },
    async (t) => {
      const till = wholeSecond(Date.now() - HOUR_MS);
      const exchange = await t.call({
        method: 'GET',
        path: '/cdrs',
        token: t.token('read:cdrs'),
        query: { from: iso(till - CDR_WINDOW_MAX_MS - 1000), till: iso(till) },
      });
      t.ensure(
        exchange.status === 400,
        `GET /cdrs over 31 days + 1 s: expected 400 window_too_wide, got ${codeOf(exchange)}`,
      );
      expectError(t, exchange, 400, 'window_too_wide');
    },
  );

  check(
    'GET /cdrs accepts a window of exactly 31 days',
    {
      verifies: ['CDRS-WINDOW-EXACTLY-31D', 'CDRS-ROWS-IN-WINDOW'],
      needs: { tokens: ['read:cdrs'] },
      requests: 1,
    },
    async (t) => {
      const till = wholeSecond(Date.now() - HOUR_MS);
      const from = till - CDR_WINDOW_MAX_MS;
      const exchange = await t.call({
        method: 'GET',
        path: '/cdrs',
        token: t.token('read:cdrs'),
        query: { from: iso(from), till: iso(till) },
      });
      t.ensure(
        exchange.status === 200,
        `GET /cdrs over exactly 31 days ("at most 31 days"): expected 200, got ${codeOf(exchange)}`,
      );
      verifyInside(t, 'CDRS-ROWS-IN-WINDOW', exchange.json as CdrList, from, till, 0, 'over exactly 31 days');
    },
  );

  check(
    'GET /cdrs answers 409 account_not_provisioned for an account with no trunk',
    {
      verifies: ['CDRS-NOT-PROVISIONED-409', 'CONTRACT-ERROR-CODE-PER-STATUS'],
      needs: { tokens: ['noTrunk'] },
      requests: 1,
    },
    async (t) => {
      const exchange = await t.call({ method: 'GET', path: '/cdrs', token: t.token('noTrunk') });
      t.ensure(
        exchange.status === 409,
        `GET /cdrs for an account without a trunk: expected 409 account_not_provisioned, got ${codeOf(exchange)}`,
      );
      expectError(t, exchange, 409, 'account_not_provisioned');
    },
  );
});
