import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventTypes, operations, scopes } from '../../contract/openapi.ts';
import { requirements } from '../../requirements/catalogue.ts';

/**
 * The spec, beside the clone (`../shared/spec/` from the project root), as it is in CI: a spec
 * that is missing fails these tests with a line saying where it was looked for, never skips them.
 */
const specPath = resolve(import.meta.dirname, '../..', '../shared/spec/outbound-calling-api-v1.md');

function readSpec(): string {
  if (!existsSync(specPath))
    throw new Error(
      `the spec is missing at ${specPath}: these tests compare the catalogue with it; ` +
        'put the shared/ folder beside the clone, as CI has it',
    );
  return readFileSync(specPath, 'utf8');
}

/** Rows of the markdown table that follows a heading, as arrays of trimmed cells. */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(heading);
  if (start < 0) throw new Error(`spec has no heading ${heading}`);
  const lines = markdown.slice(start).split('\n').slice(1);
  const rows: string[][] = [];
  let inTable = false;
  for (const line of lines) {
    if (line.startsWith('|')) {
      inTable = true;
      if (/^\|[-| ]+\|$/.test(line)) continue;
      rows.push(
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    } else if (inTable) break;
  }
  return rows.slice(1);
}

const covered = (key: 'errorCodes' | 'scopes' | 'operations' | 'events'): Set<string> =>
  new Set(
    requirements.flatMap((r) =>
      'covers' in r && r.covers && key in r.covers ? (r.covers as Record<string, readonly string[]>)[key]! : [],
    ),
  );

describe('requirement catalogue', () => {
  it('has unique, well-formed ids and complete entries', () => {
    const ids = requirements.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of requirements) {
      expect(r.id).toMatch(/^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$/);
      expect(['MUST', 'OBSERVE']).toContain(r.level);
      expect(r.checks.length).toBeGreaterThan(0);
      expect(r.text.endsWith('.')).toBe(true);
      expect(r.section.length).toBeGreaterThan(0);
    }
    expect(requirements.length).toBeGreaterThanOrEqual(80);
  });

  it("names every error code of the spec's errors table", () => {
    const spec = readSpec();
    const codes = tableAfter(spec, '## Errors').map((row) => row[0]!);
    expect(codes.length).toBeGreaterThanOrEqual(14);
    const missing = codes.filter((code) => !covered('errorCodes').has(code));
    expect(missing, `error codes no catalogue entry names: ${missing.join(', ')}`).toEqual([]);
  });

  it("names every scope of the spec's scope table", () => {
    const spec = readSpec();
    const specScopes = tableAfter(spec, '5. Scopes:').map((row) => row[0]!);
    expect(specScopes).toEqual([...scopes]);
    const missing = specScopes.filter((scope) => !covered('scopes').has(scope));
    expect(missing, `scopes no catalogue entry names: ${missing.join(', ')}`).toEqual([]);
  });

  it('names every operation of the endpoints table and every event kind', () => {
    const spec = readSpec();
    const endpointRows = tableAfter(spec, 'All paths are relative to {base_url}.').map((row) => `${row[0]} ${row[1]}`);
    expect(endpointRows).toEqual(operations.map((op) => op.key));
    const missingOps = endpointRows.filter((op) => !covered('operations').has(op));
    expect(missingOps).toEqual([]);
    const specEvents = tableAfter(spec, '### Event kinds').map((row) => row[0]!);
    expect(specEvents).toEqual([...eventTypes]);
    expect(specEvents.filter((event) => !covered('events').has(event))).toEqual([]);
  });

  it('covers every table of the spec with at least one entry per area', () => {
    const prefixes = new Set(requirements.map((r) => r.id.split('-')[0]));
    for (const area of [
      'FORMAT',
      'CONTRACT',
      'ME',
      'BALANCE',
      'CDRS',
      'AGENTS',
      'CALLS',
      'HOOKS',
      'AUTH',
      'EVENT',
      'WEBHOOK',
      'RATE',
      'VERSION',
    ]) {
      expect(prefixes.has(area), area).toBe(true);
    }
    // Things the spec leaves unshown are observations, never failures.
    expect(requirements.filter((r) => r.level === 'OBSERVE').length).toBeGreaterThan(15);
  });

  it('says truthfully which kind of check covers each requirement, and every MUST has one', () => {
    const folders = { suite: 'suites', property: 'properties', load: 'load' } as const;
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? entry.name === 'k6-build'
            ? []
            : sources(join(dir, entry.name))
          : entry.name.endsWith('.ts')
            ? [readFileSync(join(dir, entry.name), 'utf8')]
            : [],
      );
    const text = Object.fromEntries(Object.entries(folders).map(([kind, dir]) => [kind, sources(dir).join('\n')]));
    const mismatches: string[] = [];
    for (const requirement of requirements) {
      const tagged = new RegExp(`['"\`]${requirement.id}['"\`]`);
      const found = Object.keys(folders)
        .filter((kind) => tagged.test(text[kind]!))
        .sort();
      const declared = [...requirement.checks].sort();
      if (found.join(',') !== declared.join(','))
        mismatches.push(`${requirement.id}: declared ${declared.join('+')}, tagged in ${found.join('+') || 'nothing'}`);
    }
    expect(mismatches).toEqual([]);
  });
});
