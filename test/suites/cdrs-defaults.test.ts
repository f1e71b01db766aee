import { describe, expect, it } from 'vitest';
import type { CdrList } from '../../contract/openapi.ts';
import {
  defaultLimitProblem,
  instantWithOffset,
  isFull,
  lackedRows,
  sameRowsProblem,
  startOfUtcDay,
} from '../../suites/rules/cdrs-defaults.ts';

const row = (id: string, startTime = '2026-03-01T10:00:00Z') => ({ id, startTime });
const listOf = (ids: string[], count = ids.length) => ({ count, calls: ids.map((id) => row(id)) }) as CdrList;

describe('cdrs-defaults.suite.ts: lackedRows', () => {
  it('names the records of the first answer the second lacks, by id whatever the order', () => {
    expect(lackedRows(listOf(['a', 'b', 'c']), listOf(['c', 'a']))).toEqual(['b at 2026-03-01T10:00:00Z']);
    expect(lackedRows(listOf(['a', 'b']), listOf(['b', 'a']))).toEqual([]);
  });

  it('only among the records whose start satisfies the condition', () => {
    const expected = {
      count: 2,
      calls: [row('early', '2026-03-01T00:00:00Z'), row('late', '2026-03-01T12:00:00Z')],
    } as CdrList;
    const after = (ms: number) => ms > Date.parse('2026-03-01T06:00:00Z');
    expect(lackedRows(expected, listOf([]), after)).toEqual(['late at 2026-03-01T12:00:00Z']);
  });
});

describe('cdrs-defaults.suite.ts: sameRowsProblem', () => {
  it('holds for the same ids in any order with the same count', () => {
    expect(sameRowsProblem(listOf(['a', 'b']), listOf(['b', 'a']), 'x')).toBeUndefined();
  });

  it('names missing and extra records, a different number of records and a different count', () => {
    const problem = sameRowsProblem(listOf(['a', 'b']), listOf(['b', 'c', 'd'], 7), 'GET /cdrs x');
    expect(problem).toContain('GET /cdrs x: 1 missing (e.g. a at');
    expect(problem).toContain('2 more (e.g. c at');
    expect(problem).toContain('3 records instead of 2');
    expect(problem).toContain('count 7 instead of 2');
  });
});

describe('cdrs-defaults.suite.ts: defaultLimitProblem', () => {
  const ids = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

  it('a window holding fewer than the limit: both answers hold the whole window', () => {
    expect(defaultLimitProblem(listOf(ids(40)), listOf(ids(40)), 100)).toEqual({});
    expect(defaultLimitProblem(listOf(ids(39)), listOf(ids(40)), 100).problem).toContain('1 missing');
  });

  it("a fuller window: as many records and the same count; other ids are the target's choice", () => {
    expect(defaultLimitProblem(listOf(ids(100)), listOf(ids(100)), 100)).toEqual({
      note: 'both answers hold the same 100 records of a fuller window',
    });
    expect(defaultLimitProblem(listOf(ids(100, 'x')), listOf(ids(100)), 100).note).toContain('100 of them different');
    expect(defaultLimitProblem(listOf(ids(50)), listOf(ids(100)), 100).problem).toContain('50 records instead of 100');
    // count as the window's total (an allowed reading) must read the same both ways.
    expect(defaultLimitProblem(listOf(ids(100), 1500), listOf(ids(100), 1500), 100).problem).toBeUndefined();
    expect(defaultLimitProblem(listOf(ids(100), 100), listOf(ids(100), 1500), 100).problem).toContain(
      'count 100 instead of 1500',
    );
  });

  it('isFull: as many records as the limit', () => {
    expect(isFull(listOf(ids(100)), 100)).toBe(true);
    expect(isFull(listOf(ids(99)), 100)).toBe(false);
  });
});

describe('cdrs-defaults.suite.ts: instants and days', () => {
  const at = Date.parse('2026-03-01T00:00:00Z');

  it('writes one instant with Z, a positive and a negative half-hour offset', () => {
    expect(instantWithOffset(at, 0)).toBe('2026-03-01T00:00:00Z');
    expect(instantWithOffset(at, 330)).toBe('2026-03-01T05:30:00+05:30');
    expect(instantWithOffset(at, -210)).toBe('2026-02-28T20:30:00-03:30');
    expect(instantWithOffset(at + 1500, 345)).toBe('2026-03-01T05:45:01+05:45');
  });

  it('every form denotes the same instant', () => {
    for (const offset of [0, 330, -210, 345, -570, 840, -720])
      expect(Date.parse(instantWithOffset(at + 37_000, offset))).toBe(at + 37_000);
  });

  it('startOfUtcDay', () => {
    expect(startOfUtcDay(at + 23 * 3_600_000 + 59_999)).toBe(at);
    expect(startOfUtcDay(at)).toBe(at);
  });
});
