/** docs/standards.md and the lint's registry say the same: every rule with its section and sentence, every fault. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintRules } from '../../../contract/standards/registry.ts';
import { standardsFaults } from '../../../reference/faults-standards.ts';
import { ambiguityRules } from '../../../operators/ambiguity.ts';
import { relations } from '../../../operators/equivalences.ts';
import { connectionProbes } from '../../../operators/connection.ts';
import type { Document } from '../../../operators/document.ts';
import { openapi } from '../../../contract/openapi.ts';
import { principalsRelation } from '../../../operators/principals.ts';

const doc = readFileSync(resolve(import.meta.dirname, '../../../docs/standards.md'), 'utf8');
const rowOf = (id: string) => doc.split('\n').find((line) => line.startsWith(`| \`${id}\` |`));

describe('docs/standards.md', () => {
  it('lists every rule of the lint with its standard, level, requirement and sentence', () => {
    for (const rule of lintRules) {
      const row = rowOf(rule.id);
      expect(row, `no row for ${rule.id}`).toBeDefined();
      for (const part of [rule.standard, rule.level, rule.requirement, rule.sentence.replaceAll('|', '\\|')])
        expect(row, `${rule.id}: ${part}`).toContain(part);
    }
  });

  it('lists every relation of the equivalence, ambiguity and principals families with its section and sentence', () => {
    for (const relation of [...relations, ...ambiguityRules, principalsRelation]) {
      const row = rowOf(relation.id);
      expect(row, `no row for ${relation.id}`).toBeDefined();
      expect(row).toContain(relation.section);
      expect(row).toContain(relation.quote.replaceAll('|', '\\|'));
    }
  });

  it('lists every connection probe with its section and sentence', () => {
    for (const probe of connectionProbes(openapi as unknown as Document)) {
      const row = rowOf(probe.id);
      expect(row, `no row for ${probe.id}`).toBeDefined();
      expect(row).toContain(probe.section);
    }
    expect(doc).toContain(connectionProbes(openapi as unknown as Document).find((p) => p.id === 'WIRE-CLOSE')!.quote);
  });

  it('names no rule the registry lacks, and every fault of the standards with the rule it breaks', () => {
    const named = [...doc.matchAll(/`(LINT-[A-Z0-9-]+)`/g)].map((m) => m[1]!);
    expect(named.filter((id) => !lintRules.some((r) => r.id === id))).toEqual([]);
    for (const fault of standardsFaults) expect(rowOf(fault.id), fault.id).toMatch(/`(LINT|REL|WIRE)-[A-Z0-9-]+`/);
  });
});
