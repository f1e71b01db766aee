import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openapi } from '../../contract/openapi.ts';
import { precompiledFileName } from '../../contract/precompiled.ts';
import { suiteCacheDirectory } from '../../harness/config/settings.ts';
import { AJV_OPTIONS_KEY, createContract, schemaPointers, VALIDATORS_FILE } from '../../contract/validator.ts';

const folders: string[] = [];
const freshFolder = (): string => {
  const folder = mkdtempSync(join(tmpdir(), 'occ-validators-'));
  folders.push(folder);
  return folder;
};
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const fileIn = (folder: string): string =>
  join(
    folder,
    precompiledFileName({
      name: VALIDATORS_FILE,
      document: openapi,
      pointers: schemaPointers(),
      optionsKey: AJV_OPTIONS_KEY,
    }),
  );

/** Verdicts that exercise formats, enums, required fields, patterns and a documented error body. */
function verdicts(contract: ReturnType<typeof createContract>): unknown[] {
  return [
    contract.checkSchema('HookCreate', { event: 'call.started', target_url: 'http://example.com/x' }),
    contract.checkSchema('CallCreate', { aiAgentId: 'abc', toNumber: '555', metadata: [] }),
    contract.checkSchema('Cdr', { id: 1, startTime: 'yesterday', disposition: 'MAYBE' }),
    contract.checkEvent('call.ended', { eventId: 3 }),
    contract.checkResponse('GET', '/cdrs', {
      status: 200,
      headers: { 'content-type': 'application/json' },
      rawBody: '{}',
      json: { count: '1', calls: {} },
    }).problems,
    contract.checkResponse('POST', '/hooks', {
      status: 400,
      headers: { 'content-type': 'application/json' },
      rawBody: '{}',
      json: { error: 7 },
    }).problems,
    contract.checkResponse('POST', '/hooks', {
      status: 400,
      headers: { 'content-type': 'application/json' },
      rawBody: '{}',
      json: { error: 'invalid_input', message: 'no' },
    }).problems,
  ];
}

describe('openapi.json validators kept as code between processes', () => {
  it('writes them once, then loads them, and the loaded ones give the verdicts the compiled ones give', () => {
    const folder = freshFolder();
    const compiled = verdicts(createContract({ cacheDirectory: folder }));
    const file = fileIn(folder);
    expect(existsSync(file)).toBe(true);
    const written = readFileSync(file, 'utf8');
    // Loaded, not made again: a marker appended to the file survives a second contract.
    writeFileSync(file, `${written}\n// loaded as is\n`);
    const loaded = verdicts(createContract({ cacheDirectory: folder }));
    expect(readFileSync(file, 'utf8').endsWith('// loaded as is\n')).toBe(true);
    expect(loaded).toEqual(compiled);
    expect(compiled.flat().length).toBeGreaterThan(6);
    expect(compiled[6] as string[]).toEqual([]);
  });

  it('makes a broken file again instead of failing, and still validates', () => {
    const folder = freshFolder();
    const expected = verdicts(createContract({ cacheDirectory: freshFolder() }));
    const file = fileIn(folder);
    writeFileSync(file, 'module.exports = { v0: 42 }; throw new Error("half a file");');
    expect(verdicts(createContract({ cacheDirectory: folder }))).toEqual(expected);
    expect(readFileSync(file, 'utf8')).not.toContain('half a file');
    expect(verdicts(createContract({ cacheDirectory: folder }))).toEqual(expected);
  });

  it('compiles in memory when the folder cannot be written', () => {
    const blocker = join(freshFolder(), 'a-file');
    writeFileSync(blocker, '');
    const expected = verdicts(createContract({ cacheDirectory: freshFolder() }));
    expect(verdicts(createContract({ cacheDirectory: join(blocker, 'below-a-file') }))).toEqual(expected);
  });

  it('names the file after its sources: another document, pointer list or option set is another file', () => {
    const base = { name: VALIDATORS_FILE, document: openapi, pointers: schemaPointers(), optionsKey: AJV_OPTIONS_KEY };
    const name = precompiledFileName(base);
    expect(precompiledFileName({ ...base })).toBe(name);
    expect(
      precompiledFileName({ ...base, document: { ...openapi, info: { ...openapi.info, version: '1.0.1' } } }),
    ).not.toBe(name);
    expect(precompiledFileName({ ...base, pointers: base.pointers.slice(1) })).not.toBe(name);
    expect(precompiledFileName({ ...base, optionsKey: '{}' })).not.toBe(name);
  });

  it('keeps them in the folder install-k6.sh keeps k6 in: OCC_CACHE_DIR, else XDG_CACHE_HOME or ~/.cache', () => {
    expect(suiteCacheDirectory({ OCC_CACHE_DIR: '/c/occ', XDG_CACHE_HOME: '/x' })).toBe('/c/occ');
    expect(suiteCacheDirectory({ XDG_CACHE_HOME: '/x' })).toBe('/x/outbound-calling-conformance');
    expect(suiteCacheDirectory({})).toMatch(/\.cache\/outbound-calling-conformance$/);
  });
});
