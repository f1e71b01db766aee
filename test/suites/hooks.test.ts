import { describe, expect, it } from 'vitest';
import { secretsIn, urlOfLength } from '../../suites/rules/hooks.ts';

describe('hooks.suite.ts: urlOfLength (HOOKS-TARGET-MAX-512)', () => {
  it('builds a URL of exactly the length asked for, under the base', () => {
    for (const length of [40, 512, 513]) {
      const url = urlOfLength('https://example.invalid', length);
      expect(url).toHaveLength(length);
      expect(url.startsWith('https://example.invalid/hooks/len-')).toBe(true);
      expect(new URL(url).protocol).toBe('https:');
    }
  });

  it('refuses a base too long for the length rather than return a longer URL', () => {
    expect(() => urlOfLength('https://example.invalid', 20)).toThrow(/too long for a 20-character URL/);
  });
});

describe('hooks.suite.ts: secretsIn (HOOKS-SECRET-ONCE)', () => {
  const answer = (rawBody: string, responseHeaders: Record<string, string> = {}) => ({ rawBody, responseHeaders });

  it('finds no secret in answers that carry none', () => {
    expect(
      secretsIn([answer(''), answer('{"error":"not_found"}', { 'content-type': 'application/json' })], ['whsec_a']),
    ).toEqual([]);
  });

  it('names each secret found in a body or in a header value, once', () => {
    const answers = [answer('{"secret":"whsec_a"}'), answer('', { 'x-debug': 'key=whsec_b' }), answer('whsec_a')];
    expect(secretsIn(answers, ['whsec_a', 'whsec_b', 'whsec_c'])).toEqual(['whsec_a', 'whsec_b']);
  });
});
