/**
 * GET /cdrs near misses: the inputs on both sides of each rule's boundary (docs/decisions.md,
 * "Near-miss inputs"). suites/cdrs.suite.ts checks each rule once; these checks send what tells a server
 * that is almost right from one that is right: the default limit over a window holding more
 * (exactly 100, not "at most"), limit 1 / a mid value / 1000, instants one second either side
 * of a record, calendar-impossible dates with valid times, 31 days ± 1 s from months of every
 * length, and a window with no record.
 *
 * Against a remote target each check sends its rotating slice (harness/scheduling/rotation.ts).
 * Verdicts hold under every reading the spec allows: `count` may be calls.length or the number
 * of records in the window; window edges may be inclusive or exclusive (no probe sits on one).
 */
import { describe } from 'vitest';
import { DAY_MS, limits, type CdrList } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import { probeRotation, probesCost, probesForRun, probesPlanned } from '../harness/scheduling/rotation.ts';
import { codeOf, expectError, heldAtLeast, limitProblem } from '../harness/checks/verdicts.ts';
import {
  HOUR_MS,
  impossibleDates,
  limitsOutOfRange,
  SECOND_MS,
  sides,
  windowsOf31Days,
} from './data/cdrs-boundaries.ts';

const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
const wholeSecond = (ms: number): number => Math.floor(ms / SECOND_MS) * SECOND_MS;

async function list(t: CheckTools, query: Record<string, string | number>): Promise<CdrList> {
  const exchange = await t.call({ method: 'GET', path: '/cdrs', token: t.token('read:cdrs'), query });
  t.ensure(exchange.status === 200, `GET /cdrs ${JSON.stringify(query)}: expected 200, got ${codeOf(exchange)}`);
  return exchange.json as CdrList;
}

describe('GET /cdrs: limit at and inside its bounds', () => {
  // A 30-day window ending an hour ago; the first request (limit=1000) tells how many it holds.
  // Ranked likeliest slip first: a cap off by one at 1000 (an exclusive comparison), then a
  // limit ignored (limit=1 shows it at once), then an arbitrary in-range value.
  const probes: Array<{
    what: string;
    requests: number;
    run: (t: CheckTools, window: { from: number; till: number }, held: number, rows: number) => Promise<void>;
  }> = [
    {
      what: 'limit=1000 over a window whose two halves hold more than 1000 together',
      requests: 2,
      run: async (t, w, held, rows) => {
        // The window's own answer can't show it holds more than it returned: its halves can. Its
        // rows are weighed against all it is known to hold (its count under the total reading, its
        // halves), so a hidden cap that a count of the total would cover is still seen.
        const mid = wholeSecond((w.from + w.till) / 2);
        const first = await list(t, { from: iso(w.from), till: iso(mid), limit: limits.cdrLimitMax });
        const second = await list(t, { from: iso(mid), till: iso(w.till), limit: limits.cdrLimitMax });
        // A record exactly at mid may be counted in both halves under an inclusive reading.
        const total = Math.max(held, heldAtLeast(first) + heldAtLeast(second) - 1);
        const expected = Math.min(limits.cdrLimitMax, total);
        if (rows < expected) {
          t.fail(
            `GET /cdrs limit=${limits.cdrLimitMax} over ${iso(w.from)}..${iso(w.till)} returned ${rows} ` +
              `records, but the window holds ${total} or more (its count, its two halves): ` +
              `limit=${limits.cdrLimitMax} must return exactly ${expected}`,
          );
        }
      },
    },
    {
      what: 'limit=1',
      requests: 1,
      run: async (t, w, held) => {
        const answer = await list(t, { from: iso(w.from), till: iso(w.till), limit: 1 });
        const problem = limitProblem(answer, 1, held, 'limit=1');
        if (problem !== undefined) t.fail(problem);
      },
    },
    {
      what: 'limit=337 (in range, far from the default)',
      requests: 1,
      run: async (t, w, held) => {
        const answer = await list(t, { from: iso(w.from), till: iso(w.till), limit: 337 });
        const problem = limitProblem(answer, 337, held, 'limit=337');
        if (problem !== undefined) t.fail(problem);
      },
    },
  ];
  check(
    'GET /cdrs over a window holding more returns exactly 100 records by default and exactly `limit` for 1, 337, 1000',
    {
      verifies: ['CDRS-LIMIT-DEFAULT-100', 'CDRS-LIMIT-HONOURED', 'CDRS-LIMIT-MAX-1000'],
      needs: { tokens: ['read:cdrs'] },
      requests:
        2 +
        probesCost(
          probes.map((p) => p.requests),
          1,
        ),
      probes: probeRotation(
        'CDRS-LIMIT-HONOURED',
        probes.map((p) => p.what),
        1,
        probes.map((p) => p.requests),
      ),
    },
    async (t) => {
      const till = wholeSecond(Date.now() - HOUR_MS);
      const window = { from: till - 30 * DAY_MS, till };
      const widest = await list(t, { from: iso(window.from), till: iso(window.till), limit: limits.cdrLimitMax });
      t.ensure(
        widest.calls.length <= limits.cdrLimitMax,
        `GET /cdrs limit=1000 returned ${widest.calls.length} records`,
      );
      const held = heldAtLeast(widest);
      const byDefault = await list(t, { from: iso(window.from), till: iso(window.till) });
      const problem = limitProblem(byDefault, limits.cdrLimitDefault, held, 'without limit (default 100)');
      if (problem !== undefined) t.fail(problem);
      if (held <= limits.cdrLimitDefault)
        t.observe(
          'CDRS-LIMIT-DEFAULT-100',
          `the 30-day window holds only ${held} records: the default limit could not be told from "everything"`,
        );
      for (const probe of probesForRun(t, probes, 1, 'CDRS-LIMIT-HONOURED', (p) => p.what))
        await probe.run(t, window, held, widest.calls.length);
    },
  );

  // Which of the two each limit gets is recorded.
  check(
    'GET /cdrs answers a limit outside 1..1000 or not an integer with at most 1000 records or a documented 400',
    {
      verifies: ['CDRS-LIMIT-OUT-OF-RANGE', 'CDRS-LIMIT-MAX-1000', 'CONTRACT-DOCUMENTED-STATUS'],
      needs: { tokens: ['read:cdrs'] },
      requests: probesPlanned(limitsOutOfRange.length, 1),
      probes: probeRotation(
        'CDRS-LIMIT-OUT-OF-RANGE',
        limitsOutOfRange.map((l) => `limit=${l}`),
        1,
      ),
    },
    async (t) => {
      const till = wholeSecond(Date.now() - HOUR_MS);
      const answers: string[] = [];
      for (const limit of probesForRun(t, limitsOutOfRange, 1, 'CDRS-LIMIT-OUT-OF-RANGE', (l) => `limit=${l}`)) {
        // The spec gives no error code for it: a 200 (clamped, or the default) and a 400 are both readings.
        const exchange = await t.call({
          method: 'GET',
          path: '/cdrs',
          token: t.token('read:cdrs'),
          query: { from: iso(till - 30 * DAY_MS), till: iso(till), limit },
        });
        t.ensure(
          exchange.status === 200 || exchange.status === 400,
          `GET /cdrs limit=${limit}: expected 200 or 400, got ${codeOf(exchange)}`,
        );
        const rows = exchange.status === 200 ? (exchange.json as CdrList).calls.length : undefined;
        if (rows !== undefined)
          t.ensure(
            rows <= limits.cdrLimitMax,
            `GET /cdrs limit=${limit} returned ${rows} records, more than ${limits.cdrLimitMax}`,
          );
        answers.push(`limit=${limit} → ${codeOf(exchange)}${rows === undefined ? '' : ` with ${rows} records`}`);
      }
      t.observe('CDRS-LIMIT-OUT-OF-RANGE', answers.join('; '));
    },
  );
});

describe('GET /cdrs: one second either side of a record', () => {
  // A window from one second before it includes it; windows starting one second after it or ending one
  // second before it do not.
  check(
    'GET /cdrs includes a record one second inside a window and excludes it one second outside',
    {
      verifies: ['CDRS-ROWS-IN-WINDOW'],
      needs: { tokens: ['read:cdrs'] },
      requests: 1 + probesPlanned(sides.length, 1),
      probes: probeRotation(
        'CDRS-ROWS-IN-WINDOW',
        sides.map((s) => s.what),
        1,
      ),
    },
    async (t) => {
      const till = wholeSecond(Date.now() - 2 * HOUR_MS);
      const sample = await list(t, { from: iso(till - 5 * DAY_MS), till: iso(till), limit: 50 });
      // A record away from a minute's last seconds, so a server that reads from to the minute shows it.
      const record =
        sample.calls.find((row) => {
          const at = Date.parse(row.startTime ?? '');
          return Number.isFinite(at) && at % 60_000 >= 2 * SECOND_MS && at % 60_000 < 58 * SECOND_MS;
        }) ?? sample.calls.find((row) => Number.isFinite(Date.parse(row.startTime ?? '')));
      if (record === undefined)
        return t.observe(
          'CDRS-ROWS-IN-WINDOW',
          'no record in the 5 days before two hours ago: the one-second boundaries could not be probed',
        );
      const at = wholeSecond(Date.parse(record.startTime!));
      for (const side of probesForRun(t, sides, 1, 'CDRS-ROWS-IN-WINDOW', (s) => s.what)) {
        const { from, till: end } = side.window(at);
        const answer = await list(t, { from: iso(from), till: iso(end), limit: limits.cdrLimitMax });
        const found = answer.calls.some((row) => row.id === record.id);
        t.ensure(
          found === side.contains,
          `GET /cdrs from=${iso(from)} till=${iso(end)} (${side.what}, record ${record.id} at ` +
            `${record.startTime}): the record is ${found ? 'included' : 'missing'}, must be ` +
            `${side.contains ? 'included' : 'excluded'}`,
        );
      }
    },
  );
});

describe('GET /cdrs: dates that do not exist, with valid times', () => {
  // 30 February, 29 February 2025, 31 April, 31 June.
  check(
    'GET /cdrs answers 400 invalid_timestamp to a calendar-impossible date with a valid time',
    {
      verifies: ['CDRS-INVALID-TIMESTAMP', 'CONTRACT-ERROR-CODE-PER-STATUS'],
      needs: { tokens: ['read:cdrs'] },
      requests: probesPlanned(impossibleDates.length, 1),
      probes: probeRotation(
        'CDRS-INVALID-TIMESTAMP',
        impossibleDates.map((p) => p.what),
        1,
      ),
    },
    async (t) => {
      for (const probe of probesForRun(t, impossibleDates, 1, 'CDRS-INVALID-TIMESTAMP', (p) => p.what)) {
        const exchange = await t.call({
          method: 'GET',
          path: '/cdrs',
          token: t.token('read:cdrs'),
          query: { from: probe.from, till: probe.till },
        });
        t.ensure(
          exchange.status === 400,
          `GET /cdrs from=${probe.from} till=${probe.till} (${probe.what}): expected 400 invalid_timestamp, ` +
            `got ${codeOf(exchange)}`,
        );
        expectError(t, exchange, 400, 'invalid_timestamp');
      }
    },
  );
});

describe('GET /cdrs: 31 days ± 1 s from months of every length', () => {
  // Wherever the window starts: February, 30-day months, 31-day months.
  check(
    'GET /cdrs accepts 31 days and 31 days minus a second from any month, and refuses 31 days plus a second',
    {
      verifies: ['CDRS-WINDOW-EXACTLY-31D', 'CDRS-WINDOW-MAX-31D'],
      needs: { tokens: ['read:cdrs'] },
      requests: probesPlanned(windowsOf31Days.length, 1),
      probes: probeRotation(
        'CDRS-WINDOW-EXACTLY-31D',
        windowsOf31Days.map((p) => p.what),
        1,
      ),
    },
    async (t) => {
      for (const w of probesForRun(t, windowsOf31Days, 1, 'CDRS-WINDOW-EXACTLY-31D', (p) => p.what)) {
        const till = iso(Date.parse(w.from) + w.spanMs);
        const exchange = await t.call({
          method: 'GET',
          path: '/cdrs',
          token: t.token('read:cdrs'),
          query: { from: w.from, till },
        });
        if (w.accepted) {
          t.ensure(
            exchange.status === 200,
            `GET /cdrs from=${w.from} till=${till} (${w.what}, "at most 31 days"): expected 200, got ` +
              `${codeOf(exchange)}`,
          );
        } else {
          t.ensure(
            exchange.status === 400,
            `GET /cdrs from=${w.from} till=${till} (${w.what}): expected 400 window_too_wide, got ${codeOf(exchange)}`,
          );
          expectError(t, exchange, 400, 'window_too_wide');
        }
      }
    },
  );
});

describe('GET /cdrs: a window with no record', () => {
  check(
    'GET /cdrs over a window with no record answers 200 with count 0 and calls [] (no required field missing or null)',
    {
      verifies: ['CDRS-200-SHAPE', 'CDRS-COUNT-MATCHES-ROWS'],
      needs: { tokens: ['read:cdrs'] },
      requests: 1,
    },
    async (t) => {
      // One second, 25 years ago: no record can be there that a test could trip over.
      const answer = await list(t, { from: '2001-01-01T00:00:00Z', till: '2001-01-01T00:00:01Z' });
      t.ensure(
        Array.isArray(answer.calls),
        `GET /cdrs over an empty window: calls is ${JSON.stringify(answer.calls)}, must be an array ([])`,
      );
      t.ensure(
        answer.count === answer.calls.length,
        `GET /cdrs over a window holding ${answer.calls.length} records: count is ${answer.count}`,
      );
    },
  );
});
