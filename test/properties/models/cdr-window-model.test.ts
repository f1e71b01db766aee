import { describe, expect, it } from 'vitest';
import {
  cdrVerdict,
  maxRows,
  parseLimit,
  parseTimestamp,
  WINDOW_MAX_NS,
  MS_NS,
} from '../../../properties/models/cdr-window-model.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-03-15T12:00:00Z');
const now = { earliestMs: NOW - 1000, latestMs: NOW + 1000 };
const iso = (ms: number): string => new Date(ms).toISOString();
const instant = (text: string): bigint => {
  const parsed = parseTimestamp(text);
  if (parsed.kind !== 'instant') throw new Error(`${text} is not an instant`);
  return parsed.ns;
};

describe('parseTimestamp', () => {
  it('reads Z and every offset from -12:00 to +14:00 (with :30 and :45) as the instant they denote', () => {
    const z = instant('2026-03-01T12:00:00Z');
    expect(instant('2026-03-01T12:00:00z')).toBe(z);
    expect(instant('2026-03-02T02:00:00+14:00')).toBe(z);
    expect(instant('2026-03-01T00:00:00-12:00')).toBe(z);
    expect(instant('2026-03-01T17:45:00+05:45')).toBe(z);
    expect(instant('2026-03-01T02:30:00-09:30')).toBe(z);
    expect(instant('2026-03-01T12:00:00+00:00')).toBe(z);
    expect(instant('2026-03-01T12:00:00-00:00')).toBe(z);
  });

  it('keeps 1 to 9 fractional digits exactly', () => {
    const base = instant('2026-03-01T12:00:00Z');
    expect(instant('2026-03-01T12:00:00.5Z') - base).toBe(500_000_000n);
    expect(instant('2026-03-01T12:00:00.123Z') - base).toBe(123_000_000n);
    expect(instant('2026-03-01T12:00:00.000000001Z') - base).toBe(1n);
    expect(instant('2026-03-01T12:00:00.123456789+01:00') - base).toBe(-3_600_000_000_000n + 123_456_789n);
  });

  it('knows leap days', () => {
    expect(parseTimestamp('2024-02-29T00:00:00Z').kind).toBe('instant');
    expect(parseTimestamp('2000-02-29T00:00:00Z').kind).toBe('instant');
    expect(parseTimestamp('2026-02-29T00:00:00Z').kind).toBe('invalid');
    expect(parseTimestamp('1900-02-29T00:00:00Z').kind).toBe('invalid');
  });

  it('refuses what is not a date-time, and tells a date alone apart', () => {
    for (const text of [
      '',
      'garbage',
      '2026-13-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:60:00Z',
      '2026-01-01T00:00:00',
      '2026-01-01T00:00:00+24:00',
      '2026-01-01T00:00:00.1234567890Z',
      '2026-02-30',
    ]) {
      expect(parseTimestamp(text).kind, text).toBe('invalid');
    }
    expect(parseTimestamp('2026-01-31').kind).toBe('date-only');
    expect(parseTimestamp('2024-02-29').kind).toBe('date-only');
  });
});

describe('parseLimit', () => {
  it('takes absent as 100 and integers 1..1000; anything else is outside the spec', () => {
    expect(parseLimit(undefined)).toEqual({ kind: 'valid', value: 100 });
    expect(parseLimit('1')).toEqual({ kind: 'valid', value: 1 });
    expect(parseLimit('1000')).toEqual({ kind: 'valid', value: 1000 });
    for (const raw of ['0', '1001', '-1', '2.5', '', 'abc', '1e2'])
      expect(parseLimit(raw).kind, raw).toBe('out-of-range');
  });
});

describe('cdrVerdict', () => {
  const till = NOW - 2 * DAY;
  const verdict = (from: string | undefined, tillText: string | undefined, limit?: string) =>
    cdrVerdict({ from, till: tillText, limit }, now);

  it('31 days exactly is accepted; + 1 s is too wide; + 1 ms is left to observation', () => {
    expect(verdict(iso(till - 31 * DAY), iso(till))).toMatchObject({
      kind: 'ok',
      requirement: 'CDRS-WINDOW-EXACTLY-31D',
      limit: 100,
    });
    expect(verdict(iso(till - 31 * DAY - 1000), iso(till))).toMatchObject({ kind: 'error', code: 'window_too_wide' });
    expect(verdict(iso(till - 31 * DAY - 1), iso(till))).toMatchObject({
      kind: 'unspecified',
      requirement: 'CDRS-WINDOW-SUBSECOND-PRECISION',
    });
    expect(verdict('2026-01-01T00:00:00.000000001Z', '2026-02-01T00:00:00.000000001Z')).toMatchObject({
      kind: 'ok',
      requirement: 'CDRS-WINDOW-EXACTLY-31D',
    });
    expect(WINDOW_MAX_NS).toBe(31n * 86_400_000n * MS_NS);
  });

  it('a zero or negative window is till_must_be_after_from, whatever the offsets', () => {
    expect(verdict(iso(till), iso(till))).toMatchObject({ kind: 'error', code: 'till_must_be_after_from' });
    expect(verdict('2026-03-01T14:00:00+02:00', '2026-03-01T12:00:00Z')).toMatchObject({
      kind: 'error',
      code: 'till_must_be_after_from',
    });
    expect(verdict(iso(till), iso(till - 1))).toMatchObject({ kind: 'error', code: 'till_must_be_after_from' });
    expect(verdict('2026-03-01T12:00:00.0000005Z', '2026-03-01T12:00:00.0000001Z')).toMatchObject({
      kind: 'error',
      code: 'till_must_be_after_from',
    });
    expect(verdict('2026-03-01T12:00:00.0000001Z', '2026-03-01T12:00:00.0000005Z')).toMatchObject({
      kind: 'unspecified',
      requirement: 'CDRS-WINDOW-SUBSECOND-PRECISION',
    });
  });

  it('an unparseable side beats every other rule', () => {
    expect(verdict('garbage', iso(till))).toMatchObject({ kind: 'error', code: 'invalid_timestamp' });
    expect(verdict(iso(till), '', '5000')).toMatchObject({ kind: 'error', code: 'invalid_timestamp' });
    expect(verdict('2026-02-30T00:00:00Z', '2026-01-01')).toMatchObject({ kind: 'error', code: 'invalid_timestamp' });
  });

  it('a date alone is left to observation', () => {
    expect(verdict('2026-03-01', iso(till))).toMatchObject({
      kind: 'unspecified',
      requirement: 'CDRS-DATE-ONLY-TIMESTAMP',
    });
  });

  it('applies the defaults: till = now, from = 24 h before now or (only till given) before till', () => {
    expect(verdict(undefined, undefined)).toEqual({
      kind: 'ok',
      status: 200,
      limit: 100,
      requirement: 'CDRS-DEFAULT-WINDOW',
      window: { fromMs: NOW - 1000 - DAY, tillMs: NOW + 1000 },
    });
    // A till in the last 24 hours: both readings accept it; rows may lie in either window.
    expect(verdict(undefined, iso(NOW - 3_600_000))).toMatchObject({
      kind: 'ok',
      window: { fromMs: NOW - 3_600_000 - DAY, tillMs: NOW - 3_600_000 },
    });
    // A till older than 24 hours: refused under "before now", a day of records under "before till".
    expect(verdict(undefined, iso(till))).toMatchObject({
      kind: 'unspecified',
      requirement: 'CDRS-DEFAULT-WINDOW',
      window: { fromMs: till - DAY, tillMs: till },
    });
    // A till 40 days ahead: too wide under "before now", a 24-hour window under "before till".
    expect(verdict(undefined, iso(NOW + 40 * DAY))).toMatchObject({
      kind: 'unspecified',
      requirement: 'CDRS-DEFAULT-WINDOW',
    });
    expect(verdict(iso(NOW - 40 * DAY), undefined)).toMatchObject({ kind: 'error', code: 'window_too_wide' });
    expect(verdict(iso(NOW + DAY), undefined)).toMatchObject({ kind: 'error', code: 'till_must_be_after_from' });
    expect(verdict(iso(NOW - 3 * DAY), undefined)).toMatchObject({
      kind: 'ok',
      window: { fromMs: NOW - 3 * DAY, tillMs: NOW + 1000 },
    });
    // Within the uncertainty of now, the verdict is not the model's to give.
    expect(verdict(iso(NOW - 31 * DAY), undefined)).toMatchObject({
      kind: 'unspecified',
      requirement: 'CDRS-DEFAULT-WINDOW',
    });
    expect(verdict(iso(NOW), undefined)).toMatchObject({ kind: 'unspecified', requirement: 'CDRS-DEFAULT-WINDOW' });
  });

  it('a limit outside 1..1000 is left to observation, but never rescues a refused window', () => {
    expect(verdict(iso(till - DAY), iso(till), '7')).toMatchObject({ kind: 'ok', limit: 7 });
    expect(verdict(iso(till - DAY), iso(till), '1001')).toMatchObject({
      kind: 'unspecified',
      requirement: 'CDRS-LIMIT-OUT-OF-RANGE',
      refused: false,
    });
    expect(verdict(iso(till - 40 * DAY), iso(till), '0')).toMatchObject({ kind: 'unspecified', refused: true });
    expect(maxRows(verdict(iso(till - DAY), iso(till), '7'))).toBe(7);
    expect(maxRows(verdict(iso(till - DAY), iso(till), '-3'))).toBe(1000);
  });
});
