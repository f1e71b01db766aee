import { describe, expect, it } from 'vitest';
import { refused } from '../../suites/rules/rate-limit.ts';

describe('rate-limit.suite.ts: refused (RATE-LIMIT-ENFORCED)', () => {
  it('counts the 429 answers only', () => {
    expect(refused([])).toBe(0);
    expect(refused([{ status: 200 }, { status: 400 }, { status: 503 }])).toBe(0);
    expect(refused([{ status: 200 }, { status: 429 }, { status: 404 }, { status: 429 }])).toBe(2);
  });
});
