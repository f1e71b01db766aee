import { describe, expect, it } from 'vitest';
import { NON_STANDARD_METHOD, surfaceProbes } from '../../operators/surface.ts';
import { doc } from './fixtures.ts';

describe('surface probes', () => {
  const probes = surfaceProbes(doc);

  it('send every method a path does not declare, HEAD, OPTIONS, TRACE and a non-standard one among them', () => {
    const me = probes.filter((p) => p.template === '/me' && p.operator === 'NM-UNDECLARED-METHOD').map((p) => p.method);
    expect(me.sort()).toEqual(
      ['DELETE', NON_STANDARD_METHOD, 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'].sort(),
    );
    const hooks = probes.filter((p) => p.template === '/hooks' && p.operator === 'NM-UNDECLARED-METHOD');
    expect(hooks.map((p) => p.method)).not.toContain('POST');
    expect(hooks.map((p) => p.method)).toContain('GET');
  });

  it('fill path parameters with a valid value and probe an unknown sibling and child of every path', () => {
    const unknown = probes.filter((p) => p.operator === 'NM-UNKNOWN-PATH');
    expect(unknown).toHaveLength(2 * Object.keys(doc.paths).length);
    const id = unknown.find((p) => p.template === '/hooks/{id}')!;
    expect(id.path).toMatch(/^\/hooks\/[0-9a-f-]{36}-nm$/);
    expect(unknown.map((p) => p.path)).toContain('/me/nm-unknown');
  });

  it('judge every answer by its body alone', () => {
    for (const p of probes) expect(p.expect).toEqual({ kind: 'json-if-body', method: p.method });
  });
});
