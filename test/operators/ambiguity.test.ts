/**
 * Ambiguity and absence (operators/ambiguity.ts): every query parameter and body member of
 * openapi.json is given twice and empty, every bearer-secured operation two Authorization lines,
 * the token endpoint's parameters twice; a copy of the document with a new parameter and member
 * gets their probes with no new code.
 */
import { describe, expect, it } from 'vitest';
import { ambiguityProbes, emptyValues, memberTwice, rankAmbiguity } from '../../operators/ambiguity.ts';
import { elementsOf } from '../../operators/document.ts';
import { copyOfDocument, doc } from './fixtures.ts';

const whats = (document: unknown, id: string) =>
  ambiguityProbes(document as never)
    .filter(
      (p) =>
        (p.rule === 'AMBIG-QUERY-TWICE' || p.rule === 'AMBIG-MEMBER-TWICE' || p.rule === 'AMBIG-EMPTY') &&
        p.element.id === id,
    )
    .map((p) => p.what);

describe('ambiguity and absence', () => {
  it('a member given twice is the same JSON text but for that member, first then second', () => {
    const text = memberTwice({ event: 'x', target_url: 'https://a' }, 'event', 'dnc.added', 'bogus');
    expect(text).toBe('{"event":"dnc.added","target_url":"https://a","event":"bogus"}');
    expect(JSON.parse(text)).toEqual({ event: 'bogus', target_url: 'https://a' });
  });

  it('every query parameter and body member is given twice (three orders) and empty for its type', () => {
    const elements = elementsOf(doc).filter((e) => e.location !== 'path');
    for (const e of elements) {
      const got = whats(doc, e.id);
      expect(
        got.filter((w) => w.includes('twice')),
        e.id,
      ).toHaveLength(3);
      expect(
        got.filter((w) => !w.includes('twice')),
        e.id,
      ).toHaveLength(emptyValues(e).length);
    }
    expect(whats(doc, 'GET /cdrs query limit')).toContain('limit= (no value)');
    expect(whats(doc, 'POST /calls body metadata')).toEqual(expect.arrayContaining(['metadata: {}', 'metadata: null']));
  });

  it('every bearer-secured operation gets two Authorization lines, the token endpoint its repeated parameters', () => {
    const probes = ambiguityProbes(doc);
    expect(probes.filter((p) => p.rule === 'AMBIG-HEADER-TWICE')).toHaveLength(3 * 7);
    expect(probes.filter((p) => p.rule === 'AMBIG-OAUTH-REPEATED').map((p) => p.what)).toContain(
      'grant_type twice (two values)',
    );
    expect(rankAmbiguity(probes)).toHaveLength(probes.length);
    expect(rankAmbiguity(probes)[0]?.rule).toBe('AMBIG-QUERY-TWICE');
  });

  it('a parameter and a member added to a copy of openapi.json get their probes with no new code', () => {
    const copy = copyOfDocument();
    copy.paths['/cdrs'].get.parameters.push({ name: 'direction', in: 'query', schema: { type: 'string' } });
    copy.components.schemas.HookCreate.properties.active = { type: 'boolean' };
    expect(whats(copy, 'GET /cdrs query direction')).toEqual([
      'direction twice (valid, then other)',
      'direction twice (valid, then invalid)',
      'direction twice (invalid, then valid)',
      'direction= (no value)',
    ]);
    expect(whats(copy, 'POST /hooks body active')).toEqual(expect.arrayContaining(['active: false', 'active: null']));
  });
});
