import { describe, expect, it } from 'vitest';
import type { CdrList } from '../../contract/openapi.ts';
import { rowsOutside } from '../../suites/rules/cdrs.ts';

const from = Date.parse('2026-03-01T00:00:00Z');
const till = Date.parse('2026-03-02T00:00:00Z');
const listOf = (rows: Array<{ id?: string; startTime?: string }>) => ({ count: rows.length, calls: rows }) as CdrList;

describe('cdrs.suite.ts: rowsOutside (CDRS-ROWS-IN-WINDOW)', () => {
  it('keeps records inside the window, both edges included', () => {
    const list = listOf([
      { id: 'a', startTime: '2026-03-01T00:00:00Z' },
      { id: 'b', startTime: '2026-03-01T12:00:00.250Z' },
      { id: 'c', startTime: '2026-03-02T00:00:00Z' },
    ]);
    expect(rowsOutside(list, from, till)).toEqual([]);
  });

  it('names records before or after the window, and records without a readable startTime', () => {
    const list = listOf([
      { id: 'early', startTime: '2026-02-28T23:59:59Z' },
      { id: 'late', startTime: '2026-03-02T00:00:01Z' },
      { id: 'none' },
      { startTime: 'yesterday' },
    ]);
    expect(rowsOutside(list, from, till)).toEqual([
      'early at 2026-02-28T23:59:59Z',
      'late at 2026-03-02T00:00:01Z',
      'none at (no startTime)',
      '? at yesterday',
    ]);
  });

  it('allows the slack either side and no more', () => {
    const list = listOf([
      { id: 'early', startTime: '2026-02-28T23:59:59Z' },
      { id: 'late', startTime: '2026-03-02T00:00:02Z' },
    ]);
    expect(rowsOutside(list, from, till, 1_000)).toEqual(['late at 2026-03-02T00:00:02Z']);
    expect(rowsOutside(list, from, till, 2_000)).toEqual([]);
  });
});
