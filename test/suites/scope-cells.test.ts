/** The scope matrix's refusals ranked likeliest slip first (suites/data/scope-cells.ts). */
import { describe, expect, it } from 'vitest';
import { lackingTokens } from '../../suites/data/scope-cells.ts';

const scopes = [
  'read:balance',
  'read:cdrs',
  'read:agents',
  'write:calls',
  'write:hooks',
  'read:numbers',
  'read:invoices',
];
const used = scopes.slice(0, 5);

describe('lackingTokens', () => {
  it('ranks the unscoped token, then the neighbouring row of the scope table, then the others, exotic last', () => {
    expect(lackingTokens('read:agents', scopes, used)).toEqual([
      'none',
      'read:cdrs',
      'read:balance',
      'write:calls',
      'write:hooks',
      'read:numbers',
      'read:invoices',
    ]);
    // The first row's neighbour is the row after it.
    expect(lackingTokens('read:balance', scopes, used).slice(0, 2)).toEqual(['none', 'read:cdrs']);
  });

  it("never lists the operation's own scope, and lists every other one once", () => {
    for (const scope of used) {
      const cells = lackingTokens(scope, scopes, used);
      expect(cells).not.toContain(scope);
      expect(new Set(cells).size).toBe(cells.length);
      expect(cells).toHaveLength(scopes.length);
    }
  });
});
