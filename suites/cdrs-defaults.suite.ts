/**
 * GET /cdrs defaults proven equal to their written-out form, and offsets proven equal to Z: the
 * answer to a request with `from`, `till` or `limit` left out is compared record for record with
 * the answer to the same request with the default written out, and a window written with UTC
 * offsets with the same window written with Z.
 *
 * "Now" moves between two requests: the checks that default to it read the target's clock (the
 * control inspection `clock` where offered; else the local clock with two minutes of skew either
 * way), send the written-out form just before the defaulted one, read the clock again after it,
 * and accept every answer consistent with a "now" between the two readings. Records written late
 * (a call that ended after the first request) may appear in the later answer only.
 *
 * Every reading docs/decisions.md accepts passes: `from` with only `till` as till − 24 h or as
 * now − 24 h; any order; any `limit` of a fuller window; count as the records returned or the
 * window's total; either edge inclusive. Against a remote target these checks take turns with
 * the other second proofs (suites/data/second-proofs.ts).
 */
import { describe } from 'vitest';
import { DAY_MS, limits, type CdrList } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import { codeOf, expectError } from '../harness/checks/verdicts.ts';
import { probeRotation, probesForRun, probesPlanned } from '../harness/scheduling/rotation.ts';
import { secondProofTurn } from './data/second-proofs.ts';
import { rowsOutside } from './rules/cdrs.ts';
import {
  defaultLimitProblem,
  instantWithOffset,
  isFull,
  lackedRows,
  sameRowsProblem,
  startOfUtcDay,
} from './rules/cdrs-defaults.ts';

const HOUR_MS = 3_600_000;
/** How far a target's clock may be from ours when it offers no `clock` inspection. */
const SKEW_MS = 120_000;
const WIDE = limits.cdrLimitMax;
const iso = (ms: number): string => new Date(ms).toISOString();
const wholeSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

/** The earliest and the latest the target's "now" can be at this moment. */
async function nowBounds(t: CheckTools): Promise<{ earliest: number; latest: number; source: string }> {
  if (t.control.offers('clock')) {
    const now = await t.control.clock();
    return { earliest: now, latest: now, source: "the target's clock" };
  }
  const now = Date.now();
  return { earliest: now - SKEW_MS, latest: now + SKEW_MS, source: 'the local clock ± 2 min' };
}

async function listCdrs(t: CheckTools, query: Record<string, string | number>): Promise<CdrList> {
  const exchange = await t.call({ method: 'GET', path: '/cdrs', token: t.token('read:cdrs'), query });
  t.ensure(exchange.status === 200, `GET /cdrs ${JSON.stringify(query)}: expected 200, got ${codeOf(exchange)}`);
  return exchange.json as CdrList;
}

const query = (q: Record<string, string | number>): string =>
  Object.entries(q)
    .map(([key, value]) => `${key}=${value}`)
    .join('&');

describe('GET /cdrs: a default left out answers as the default written out', () => {
  check(
    'GET /cdrs with till and no from answers as with from = till − 24 h written out (or 400: from = now − 24 h)',
    {
      verifies: ['CDRS-DEFAULT-WINDOW', 'CDRS-DEFAULT-FROM-READING'],
      needs: { tokens: ['read:cdrs'] },
      requests: 2,
      turn: secondProofTurn('from left out'),
    },
    async (t) => {
      // One minute after a UTC midnight three days ago: the 24 hours before it are nearly all of the
      // day before, so a from read as the start of till's day, or as 48 hours before, shows.
      const till = startOfUtcDay(Date.now()) - 3 * DAY_MS + 60_000;
      const written = { from: iso(till - 24 * HOUR_MS), till: iso(till), limit: WIDE };
      const explicit = await listCdrs(t, written);
      const left = { till: iso(till), limit: WIDE };
      const exchange = await t.call({ method: 'GET', path: '/cdrs', token: t.token('read:cdrs'), query: left });
      if (exchange.status === 400) {
        // "24 hours before now": the window would end before it starts.
        expectError(t, exchange, 400, 'till_must_be_after_from');
        t.observe(
          'CDRS-DEFAULT-FROM-READING',
          'with only till, from is 24 hours before now: a till three days ago is a negative window (400)',
        );
        return;
      }
      t.ensure(
        exchange.status === 200,
        `GET /cdrs ${query(left)}: expected 200 (from = till − 24 h) or 400 till_must_be_after_from ` +
          `(from = now − 24 h), got ${codeOf(exchange)}`,
      );
      t.observe('CDRS-DEFAULT-FROM-READING', 'with only till, from is 24 hours before till');
      const defaulted = exchange.json as CdrList;
      if (isFull(explicit, WIDE)) {
        t.observe('CDRS-DEFAULT-WINDOW', `the 24 hours before ${iso(till)} hold ${WIDE} records or more: not compared`);
        return;
      }
      const problem = sameRowsProblem(explicit, defaulted, `GET /cdrs ${query(left)} against ${query(written)}`);
      t.verify('CDRS-DEFAULT-WINDOW', problem === undefined, problem ?? '');
      if (explicit.calls.length === 0)
        t.observe('CDRS-DEFAULT-WINDOW', `no record in the 24 hours before ${iso(till)}: the comparison shows little`);
    },
  );

  check(
    'GET /cdrs with from a second ago and no till answers at least the records of till = now written out just before',
    {
      verifies: ['CDRS-DEFAULT-WINDOW'],
      needs: { tokens: ['read:cdrs'] },
      requests: 2,
      turn: secondProofTurn('till left out'),
    },
    async (t) => {
      const before = await nowBounds(t);
      // A second (and the skew) before the earliest "now": a till read as anything earlier than
      // now (midnight, the last full hour) makes the window negative or drops what the first answer holds.
      const from = wholeSecond(before.earliest) - 1000;
      const written = { from: iso(from), till: iso(before.earliest), limit: WIDE };
      const explicit = await listCdrs(t, written);
      const left = { from: iso(from), limit: WIDE };
      const exchange = await t.call({ method: 'GET', path: '/cdrs', token: t.token('read:cdrs'), query: left });
      const after = await nowBounds(t);
      t.ensure(
        exchange.status === 200,
        `GET /cdrs ${query(left)}: expected 200 (till = now, at least ${iso(before.earliest)} by ${before.source}, ` +
          `is after from), got ${codeOf(exchange)}`,
      );
      const defaulted = exchange.json as CdrList;
      const outside = rowsOutside(defaulted, from, after.latest);
      t.verify(
        'CDRS-DEFAULT-WINDOW',
        outside.length === 0,
        `GET /cdrs ${query(left)}: records outside [${iso(from)}, ${iso(after.latest)}] (now at the latest): ` +
          outside.slice(0, 3).join(', '),
      );
      if (isFull(explicit, WIDE) || isFull(defaulted, WIDE)) return;
      const lacked = lackedRows(explicit, defaulted);
      t.verify(
        'CDRS-DEFAULT-WINDOW',
        lacked.length === 0,
        `GET /cdrs ${query(left)} lacks records that ${query(written)} (sent just before, till = the earliest ` +
          `now) holds: ${lacked.slice(0, 3).join(', ')}`,
      );
    },
  );

  check(
    'GET /cdrs without from and till answers as the last 24 hours written out, for a now between two clock readings',
    {
      verifies: ['CDRS-DEFAULT-WINDOW'],
      needs: { tokens: ['read:cdrs'] },
      requests: 2,
      turn: secondProofTurn('from and till left out'),
    },
    async (t) => {
      const before = await nowBounds(t);
      const written = { from: iso(before.earliest - 24 * HOUR_MS), till: iso(before.earliest), limit: WIDE };
      const explicit = await listCdrs(t, written);
      const defaulted = await listCdrs(t, { limit: WIDE });
      const after = await nowBounds(t);
      // Whatever now was, the window lies within [earliest − 24 h, latest], and holds all of
      // [latest − 24 h, earliest) (edges excluded: either may be open).
      const outside = rowsOutside(defaulted, before.earliest - 24 * HOUR_MS, after.latest);
      t.verify(
        'CDRS-DEFAULT-WINDOW',
        outside.length === 0,
        `GET /cdrs limit=${WIDE} without from and till: records outside [${iso(before.earliest - 24 * HOUR_MS)}, ` +
          `${iso(after.latest)}] (24 hours before the earliest now, the latest now): ${outside.slice(0, 3).join(', ')}`,
      );
      if (isFull(explicit, WIDE) || isFull(defaulted, WIDE)) {
        t.observe('CDRS-DEFAULT-WINDOW', `the last 24 hours hold ${WIDE} records or more: only the edges were judged`);
        return;
      }
      const lacked = lackedRows(explicit, defaulted, (start) => start > after.latest - 24 * HOUR_MS);
      t.verify(
        'CDRS-DEFAULT-WINDOW',
        lacked.length === 0,
        `GET /cdrs limit=${WIDE} without from and till lacks records that ${query(written)} (sent just before) ` +
          `holds and that start after ${iso(after.latest - 24 * HOUR_MS)} (24 hours before the latest now): ` +
          lacked.slice(0, 3).join(', '),
      );
    },
  );

  check(
    'GET /cdrs without limit answers as with limit=100 written out, over a window holding more than 100 records',
    {
      verifies: ['CDRS-LIMIT-DEFAULT-100'],
      needs: { tokens: ['read:cdrs'] },
      requests: 2,
      turn: secondProofTurn('limit left out'),
    },
    async (t) => {
      const till = wholeSecond(Date.now() - HOUR_MS);
      const window = { from: iso(till - 30 * DAY_MS), till: iso(till) };
      const explicit = await listCdrs(t, { ...window, limit: limits.cdrLimitDefault });
      const defaulted = await listCdrs(t, window);
      const { problem, note } = defaultLimitProblem(defaulted, explicit, limits.cdrLimitDefault);
      t.verify('CDRS-LIMIT-DEFAULT-100', problem === undefined, problem ?? '');
      if (note !== undefined) t.observe('CDRS-LIMIT-DEFAULT-100', note);
      if (!isFull(explicit, limits.cdrLimitDefault))
        t.observe(
          'CDRS-LIMIT-DEFAULT-100',
          `the 30 days before ${iso(till)} hold ${explicit.calls.length} records: the default could not be told ` +
            'from "everything"',
        );
    },
  );
});

describe('GET /cdrs: a window written with UTC offsets answers as written with Z', () => {
  // Both signs, half-hour offsets (India, Newfoundland): the same instants, other wall times.
  const forms = [
    { from: 330, till: -210 },
    { from: -210, till: 330 },
  ];
  const describeForm = (form: { from: number; till: number }): string =>
    `from ${instantWithOffset(0, form.from).slice(19)}, till ${instantWithOffset(0, form.till).slice(19)}`;
  check(
    'GET /cdrs over a day written with +05:30 and -03:30 offsets answers the same records as the day written with Z',
    {
      verifies: ['CDRS-TIMESTAMP-OFFSETS'],
      needs: { tokens: ['read:cdrs'] },
      requests: 1 + probesPlanned(forms.length, 1),
      probes: probeRotation('CDRS-TIMESTAMP-OFFSETS', forms.map(describeForm), 1),
      turn: secondProofTurn('offsets'),
    },
    async (t) => {
      const till = wholeSecond(Date.now() - 2 * DAY_MS);
      const from = till - DAY_MS;
      const inZ = { from: instantWithOffset(from, 0), till: instantWithOffset(till, 0), limit: WIDE };
      const known = await listCdrs(t, inZ);
      if (known.calls.length === 0)
        return t.observe('CDRS-TIMESTAMP-OFFSETS', `no record between ${inZ.from} and ${inZ.till} to compare`);
      for (const form of probesForRun(t, forms, 1, 'CDRS-TIMESTAMP-OFFSETS', describeForm)) {
        const written = {
          from: instantWithOffset(from, form.from),
          till: instantWithOffset(till, form.till),
          limit: WIDE,
        };
        const answer = await listCdrs(t, written);
        if (isFull(known, WIDE)) {
          t.verify(
            'CDRS-TIMESTAMP-OFFSETS',
            answer.calls.length === known.calls.length,
            `GET /cdrs ${query(written)}: ${answer.calls.length} records, with Z ${known.calls.length}`,
          );
          continue;
        }
        const problem = sameRowsProblem(known, answer, `GET /cdrs ${query(written)} against ${query(inZ)}`);
        t.verify('CDRS-TIMESTAMP-OFFSETS', problem === undefined, problem ?? '');
      }
    },
  );
});
