/**
 * The equivalence relations (operators/equivalences.ts): each rewriting keeps the value a standard
 * says it keeps, every relation applies somewhere in openapi.json, and a copy of the document with
 * a new operation, parameter and body member gets their relations with no new code.
 */
import { describe, expect, it } from 'vitest';
import {
  encodeAll,
  encodeOne,
  equivalenceProbes,
  escapedString,
  percentOf,
  rankEquivalences,
  relations,
  spaced,
  withScheme,
  type WireRequest,
} from '../../operators/equivalences.ts';
import { copyOfDocument, doc } from './fixtures.ts';

const request: WireRequest = {
  method: 'POST',
  path: '/hooks',
  query: [['limit', '10']],
  headers: [
    ['Authorization', 'Bearer tok_1'],
    ['Content-Type', 'application/json'],
  ],
  body: JSON.stringify({ event: 'dnc.added', target_url: 'https://example.com/a/b' }),
};

const probesOf = (document: unknown, operation: string) =>
  equivalenceProbes(document as never).filter((p) => p.operation === operation);

describe('the rewritings keep the value the standard says they keep', () => {
  it('RFC 8259: whitespace, escapes and member order leave the JSON value as it was', () => {
    const value = JSON.parse(request.body!);
    expect(JSON.parse(spaced(request.body!))).toEqual(value);
    expect(spaced(request.body!)).toMatch(/\{\s+"event"\s+:\s+"dnc\.added"\s+,/);
    expect(JSON.parse(escapedString('https://x/y'))).toBe('https://x/y');
    expect(escapedString('https://x/y')).toBe('"\\u0068ttps:\\/\\/x\\/y"');
    expect(escapedString('+1555')).toBe('"\\u002b1555"');
    for (const probe of probesOf(doc, 'POST /hooks').filter((p) => p.relation.id.startsWith('REL-JSON')))
      expect(JSON.parse(probe.rewrite(request).body!), probe.what).toEqual(value);
  });

  it('RFC 3986: a percent-encoded unreserved character decodes to itself, in either hex case', () => {
    expect(percentOf('m')).toBe('%6D');
    expect(percentOf('m', true)).toBe('%6d');
    expect(encodeOne('limit')).toBe('%6Cimit');
    expect(encodeOne('limit', true)).toBe('%6cimit');
    expect(decodeURIComponent(encodeAll('2026-01-01T00%3A00Z'))).toBe('2026-01-01T00:00Z');
    expect(encodeOne('%3Ab')).toBe('%3A%62');
  });

  it('RFC 9110 / RFC 6750: the scheme and the spaces before the token change, the token does not', () => {
    const auth = (r: WireRequest) => r.headers.find(([n]) => n.toLowerCase() === 'authorization')?.[1];
    expect(auth(withScheme(request, 'bearer'))).toBe('bearer tok_1');
    expect(auth(withScheme(request, 'Bearer', 2))).toBe('Bearer  tok_1');
  });

  it('every relation names its RFC section and quotes it', () => {
    for (const r of relations) {
      expect(r.section, r.id).toMatch(/^RFC \d+ §/);
      expect(r.quote.length, r.id).toBeGreaterThan(20);
    }
  });
});

describe('derivation from openapi.json', () => {
  it('no relation is idle, and every ranked probe is derived', () => {
    const derived = equivalenceProbes(doc);
    expect(new Set(derived.map((p) => p.relation.id))).toEqual(new Set(relations.map((r) => r.id)));
    expect(rankEquivalences(derived)).toHaveLength(derived.length);
  });

  it('every GET gets HEAD, every bearer-secured operation its Authorization forms, every JSON body its own', () => {
    const derived = equivalenceProbes(doc);
    for (const op of ['GET /me', 'GET /balance', 'GET /cdrs', 'GET /agents'])
      expect(
        derived.some((p) => p.operation === op && p.relation.id === 'REL-HEAD-IS-GET'),
        op,
      ).toBe(true);
    for (const op of ['POST /calls', 'POST /hooks'])
      expect(
        derived.some((p) => p.operation === op && p.relation.id === 'REL-MEDIA-TYPE-CASE'),
        op,
      ).toBe(true);
    expect(derived.filter((p) => p.relation.id === 'REL-AUTH-SCHEME-CASE')).toHaveLength(2 * 7);
  });

  it('a new operation, query parameter and body members get their relations with no new code', () => {
    const copy = copyOfDocument();
    copy.paths['/numbers'] = {
      get: {
        security: [{ apiToken: ['read:numbers'] }],
        parameters: [{ name: 'page', in: 'query', schema: { type: 'integer' } }],
        responses: { '200': { description: 'ok' } },
      },
    };
    copy.components.schemas.HookCreate.properties.label = { type: 'string' };
    copy.components.schemas.HookCreate.required.push('label');
    copy.components.schemas.HookCreate.properties.fallback_url = { type: 'string', format: 'uri' };
    const numbers = probesOf(copy, 'GET /numbers').map((p) => p.relation.id);
    expect(numbers).toEqual(
      expect.arrayContaining(['REL-HEAD-IS-GET', 'REL-AUTH-SCHEME-CASE', 'REL-PERCENT-UNRESERVED']),
    );
    expect(probesOf(copy, 'GET /numbers').some((p) => p.what.includes('query page'))).toBe(true);
    const hooks = probesOf(copy, 'POST /hooks').map((p) => p.what);
    expect(hooks).toContain('label written with \\u00XX and \\/ escapes');
    expect(hooks).toContain('fallback_url with its scheme in upper case');
  });
});
