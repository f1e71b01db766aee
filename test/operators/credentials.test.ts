import { describe, expect, it } from 'vitest';
import { carry, credentialProbes } from '../../operators/credentials.ts';
import { copyOfDocument, doc } from './fixtures.ts';

describe('credential probes', () => {
  it('put the token in the query, a cookie, other headers and schemes, for every secured operation', () => {
    const probes = credentialProbes(doc);
    expect(new Set(probes.map((p) => p.operation.key)).size).toBe(7);
    expect(probes).toHaveLength(7 * 10);
    for (const p of probes)
      expect(p.expect).toEqual({ kind: 'refused', answers: [{ status: 401, codes: ['unauthorized'] }] });
    expect(new Set(probes.map((p) => p.operator))).toEqual(
      new Set(['NM-TOKEN-IN-QUERY', 'NM-TOKEN-IN-COOKIE', 'NM-TOKEN-OTHER-HEADER', 'NM-TOKEN-OTHER-SCHEME']),
    );
  });

  it('never probes a placement a security scheme declares', () => {
    const copy = copyOfDocument();
    copy.components.securitySchemes.apiKey = { type: 'apiKey', in: 'header', name: 'X-API-Key' };
    const probes = credentialProbes(copy as never);
    expect(probes.some((p) => p.placement.in === 'header' && p.placement.name === 'X-API-Key')).toBe(false);
    expect(probes).toHaveLength(7 * 9);
  });

  it('carries the token where the placement says, never as Bearer', () => {
    expect(carry({ in: 'query', name: 'access_token' }, 't')).toEqual({ query: { access_token: 't' } });
    expect(carry({ in: 'cookie', name: 'token' }, 't')).toEqual({ headers: { cookie: 'token=t' } });
    expect(carry({ in: 'header', name: 'Authorization', scheme: 'Token' }, 't')).toEqual({
      headers: { authorization: 'Token t' },
    });
    expect(carry({ in: 'header', name: 'Authorization', scheme: 'Basic' }, 't').headers!.authorization).toBe(
      `Basic ${btoa('t:')}`,
    );
  });
});
