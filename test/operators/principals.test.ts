/**
 * The two-principal pairs (operators/principals.ts): every read of openapi.json gets another
 * account and another scope set of the same account, read off its security requirement; a read
 * added to a copy of the document gets its pairs with no new code.
 */
import { describe, expect, it } from 'vitest';
import { declaredScopes, principalProbes, rankPrincipals } from '../../operators/principals.ts';
import { copyOfDocument, doc } from './fixtures.ts';

describe('two principals', () => {
  it('every GET gets two accounts and two scope sets; the narrower lacks the scope the read takes', () => {
    const probes = principalProbes(doc);
    expect(probes.map((p) => `${p.operation.key} ${p.kind} ${p.second}`)).toEqual([
      'GET /me two accounts noDialer',
      'GET /me two scope sets read:balance',
      'GET /balance two accounts noDialer',
      'GET /balance two scope sets read:cdrs',
      'GET /cdrs two accounts noDialer',
      'GET /cdrs two scope sets read:balance',
      'GET /agents two accounts noDialer',
      'GET /agents two scope sets read:balance',
    ]);
    // GET /me takes any token: the narrower one's own answer is 200, not the contract's 401.
    expect(probes.filter((p) => p.secondRefused).map((p) => p.operation.key)).toEqual([
      'GET /balance',
      'GET /cdrs',
      'GET /agents',
    ]);
    expect(declaredScopes(doc)).toContain('read:agents');
    expect(rankPrincipals(probes)[0]?.kind).toBe('two scope sets');
  });

  it('a read added to a copy of openapi.json gets its pairs with no new code', () => {
    const copy = copyOfDocument();
    copy.paths['/numbers'] = {
      get: { security: [{ apiToken: ['read:numbers'] }], responses: { '200': { description: 'ok' } } },
    };
    const numbers = principalProbes(copy as never).filter((p) => p.operation.key === 'GET /numbers');
    expect(numbers.map((p) => [p.kind, p.second, p.secondRefused])).toEqual([
      ['two accounts', 'noDialer', false],
      ['two scope sets', 'read:balance', true],
    ]);
  });
});
