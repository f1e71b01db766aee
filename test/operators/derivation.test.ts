/**
 * Derivation, not enumeration: every constrained element of openapi.json gets every operator that
 * applies to it (the applicability is restated here from the constraints themselves, not from the
 * operators' code), no operator of the catalogue is idle, and a copy of the document with new
 * fields, parameters and paths gets their near misses with no new code.
 */
import { describe, expect, it } from 'vitest';
import { deriveProbes, operators, rankProbes } from '../../operators/catalogue.ts';
import { DECLARABLE_METHODS, elementsOf, type Element } from '../../operators/document.ts';
import { copyOfDocument, doc } from './fixtures.ts';

/** The operators each element must get, read off its schema's constraints. */
function expectedOperators(e: Element): string[] {
  const s = e.schema;
  const out: string[] = [];
  if (s.type === 'string' && (s.enum || s.pattern || s.format))
    out.push('NM-TRAILING-NEWLINE', 'NM-SURROUNDING-SPACE', 'NM-NUL');
  if (
    s.type === 'string' &&
    (/\[0-9\]|\[1-9\]|\\d/.test(s.pattern ?? '') || ['uuid', 'date-time'].includes(s.format ?? ''))
  )
    out.push('NM-NON-ASCII-DIGITS');
  if (s.enum) out.push('NM-ENUM-CASE');
  const patternBound = /\{\d+(,\d*)?\}/.test(s.pattern ?? '') && !/[(|]/.test(s.pattern ?? '');
  if (s.type === 'string' && (s.maxLength !== undefined || (s.minLength ?? 0) > 0 || patternBound))
    out.push('NM-LENGTH-BOUND');
  if (s.pattern === '^[0-9]+$') out.push('NM-NUMERIC-LENIENT');
  if (s.format === 'uuid') out.push('NM-UUID-FORMS');
  if (s.format === 'date-time') out.push('NM-DATETIME-EQUIVALENT');
  if ((s.type === 'integer' || s.type === 'number') && (s.minimum !== undefined || s.maximum !== undefined))
    out.push('NM-NUMBER-BOUNDS', ...(s.type === 'integer' ? ['NM-NUMBER-FORMS'] : []));
  return out.sort();
}

function operatorsByElement(document: unknown): Map<string, string[]> {
  const derived = deriveProbes(document as never);
  const got = new Map<string, Set<string>>();
  for (const p of [...derived.strings, ...derived.numbers])
    got.set(p.element.id, (got.get(p.element.id) ?? new Set()).add(p.operator));
  return new Map([...got].map(([id, ops]) => [id, [...ops].sort()]));
}

describe('near misses are derived from the contract', () => {
  it('every constrained element of openapi.json gets every operator that applies, and only those', () => {
    const got = operatorsByElement(doc);
    const constrained = elementsOf(doc).filter((e) => expectedOperators(e).length > 0);
    expect(constrained.map((e) => e.id)).toEqual([
      'GET /cdrs query from',
      'GET /cdrs query till',
      'GET /cdrs query limit',
      'POST /calls body aiAgentId',
      'POST /calls body toNumber',
      'POST /calls body fromNumber',
      'POST /hooks body event',
      'POST /hooks body target_url',
      'DELETE /hooks/{id} path id',
    ]);
    for (const e of elementsOf(doc)) expect(got.get(e.id) ?? [], e.id).toEqual(expectedOperators(e));
  });

  it('every path gets every method it does not declare, every secured operation every credential operator', () => {
    const derived = deriveProbes(doc);
    for (const [path, item] of Object.entries(doc.paths)) {
      const undeclared = derived.surface.filter((p) => p.template === path && p.operator === 'NM-UNDECLARED-METHOD');
      for (const method of ['HEAD', 'OPTIONS', 'TRACE', 'FOO'])
        expect(undeclared.some((p) => p.method === method) || item[method.toLowerCase()] !== undefined, path).toBe(
          true,
        );
      for (const p of undeclared)
        expect(DECLARABLE_METHODS.some((m) => m.toUpperCase() === p.method && item[m])).toBe(false);
    }
    const credentialOps = operators.filter((o) => o.family === 'credentials').map((o) => o.id);
    for (const key of ['GET /me', 'POST /calls', 'DELETE /hooks/{id}'])
      expect(new Set(derived.credentials.filter((p) => p.operation.key === key).map((p) => p.operator))).toEqual(
        new Set(credentialOps),
      );
  });

  it('no operator of the catalogue is idle on openapi.json', () => {
    const derived = deriveProbes(doc);
    const used = new Set(
      [
        ...derived.surface,
        ...derived.credentials,
        ...derived.strings,
        ...derived.numbers,
        ...derived.identifiers,
        ...derived.issuedTokens,
      ].map((p) => p.operator),
    );
    expect(operators.map((o) => o.id).filter((id) => !used.has(id))).toEqual([]);
    expect(new Set(operators.map((o) => o.id)).size).toBe(operators.length);
  });

  it('a copy of the document with new fields, parameters and paths gets their near misses, with no new code', () => {
    const copy = copyOfDocument();
    copy.components.schemas.CallCreate.properties.campaignCode = {
      type: 'string',
      pattern: '^[A-Z]{2}[0-9]{4}$',
      maxLength: 6,
    };
    copy.paths['/agents'].get.parameters = [
      { name: 'status', in: 'query', schema: { type: 'string', enum: ['active', 'disabled'] } },
      { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 50 } },
      { name: 'since', in: 'query', schema: { type: 'string', format: 'date-time' } },
    ];
    const created = {
      200: {
        content: {
          'application/json': { schema: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } } },
        },
      },
    };
    copy.paths['/numbers'] = { post: { security: [{ apiToken: ['read:numbers'] }], responses: created } };
    copy.paths['/numbers/{id}'] = {
      delete: {
        security: [{ apiToken: ['read:numbers'] }],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: { 204: { description: 'gone' }, 404: { $ref: '#/components/responses/Unauthorized' } },
      },
    };
    const got = operatorsByElement(copy);
    for (const e of elementsOf(copy as never)) expect(got.get(e.id) ?? [], e.id).toEqual(expectedOperators(e));
    expect(got.get('POST /calls body campaignCode')).toEqual([
      'NM-LENGTH-BOUND',
      'NM-NON-ASCII-DIGITS',
      'NM-NUL',
      'NM-SURROUNDING-SPACE',
      'NM-TRAILING-NEWLINE',
    ]);
    expect(got.get('GET /agents query status')).toContain('NM-ENUM-CASE');
    expect(got.get('GET /agents query page')).toEqual(['NM-NUMBER-BOUNDS', 'NM-NUMBER-FORMS']);
    expect(got.get('GET /agents query since')).toContain('NM-DATETIME-EQUIVALENT');
    const derived = deriveProbes(copy as never);
    expect(derived.identifiers.filter((p) => p.binding.producer === 'POST /numbers')).toHaveLength(6);
    expect(derived.surface.filter((p) => p.template === '/numbers/{id}').map((p) => p.method)).toContain('GET');
    expect(derived.credentials.filter((p) => p.operation.key === 'POST /numbers')).toHaveLength(10);
    // The campaign code's near misses start from a value its own pattern makes.
    const newline = derived.strings.find(
      (p) => p.element.name === 'campaignCode' && p.operator === 'NM-TRAILING-NEWLINE',
    );
    expect(newline!.value('AA0000')).toBe('AA0000\n');
  });
});

describe('each family ranked likeliest slip first, for the request budget', () => {
  const derived = deriveProbes(doc);
  const ranked = rankProbes(derived);

  it('ranks every probe of each family, none added or lost', () => {
    for (const family of ['surface', 'credentials', 'strings', 'numbers', 'identifiers'] as const) {
      expect(ranked[family], family).toHaveLength(derived[family].length);
      expect(new Set<unknown>(ranked[family]), family).toEqual(new Set<unknown>(derived[family]));
    }
  });

  it('puts first what real servers get wrong most, each slip on every element before the next slip', () => {
    expect(ranked.surface.slice(0, 8).map((p) => p.what)).toEqual([
      'OPTIONS /me',
      'OPTIONS /balance',
      'OPTIONS /cdrs',
      'OPTIONS /agents',
      'OPTIONS /calls',
      'OPTIONS /hooks',
      'OPTIONS /hooks/{id}',
      'GET /me/nm-unknown (an unknown child)',
    ]);
    expect(ranked.surface.at(-1)!.what).toBe('DELETE /hooks/{id}-nm (an unknown sibling)');
    expect(ranked.credentials.slice(0, 8).map((p) => `${p.operation.key} ${p.what}`)).toEqual([
      'GET /me the token in ?access_token=',
      'GET /balance the token in ?access_token=',
      'GET /cdrs the token in ?access_token=',
      'GET /agents the token in ?access_token=',
      'POST /calls the token in ?access_token=',
      'POST /hooks the token in ?access_token=',
      'DELETE /hooks/{id} the token in ?access_token=',
      'GET /me the token in X-API-Key',
    ]);
    // A `$` before a final newline, on the elements a hand-written pattern checks first.
    expect(ranked.strings.slice(0, 9).map((p) => `${p.operator} ${p.element.id}`)).toEqual([
      'NM-TRAILING-NEWLINE POST /calls body aiAgentId',
      'NM-TRAILING-NEWLINE POST /calls body toNumber',
      'NM-TRAILING-NEWLINE POST /calls body fromNumber',
      'NM-TRAILING-NEWLINE POST /hooks body target_url',
      'NM-TRAILING-NEWLINE GET /cdrs query from',
      'NM-TRAILING-NEWLINE GET /cdrs query till',
      'NM-TRAILING-NEWLINE DELETE /hooks/{id} path id',
      'NM-TRAILING-NEWLINE POST /hooks body event',
      'NM-SURROUNDING-SPACE POST /calls body aiAgentId',
    ]);
    expect(ranked.numbers.map((p) => p.what).slice(0, 2)).toEqual(['1001 (maximum + 1)', '1000 (the maximum)']);
    expect(ranked.identifiers.map((p) => p.operator)).toEqual([
      'NM-ID-CASE',
      'NM-ID-APPENDED',
      'NM-ID-CHANGED',
      'NM-ID-CHANGED',
      'NM-ID-SIBLING',
      'NM-ID-FOREIGN',
    ]);
  });
});
