/** docs/near-misses.md names every operator of the catalogue, with its family, under the request-shape heading. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { operators } from '../../operators/catalogue.ts';

const text = readFileSync(resolve(import.meta.dirname, '../../docs/near-misses.md'), 'utf8');
const section = text.slice(text.indexOf('## Request-shape families'));

describe('docs/near-misses.md', () => {
  it('lists every operator under "## Request-shape families", in the table of its family', () => {
    expect(text).toContain('## Request-shape families');
    for (const op of operators) {
      const family = section.slice(section.toLowerCase().indexOf(`### ${op.family}`));
      const table = family.slice(0, family.indexOf('\n### ', 5) === -1 ? undefined : family.indexOf('\n### ', 5));
      expect(table, op.id).toContain(`| \`${op.id}\` |`);
    }
  });
});
