import { Validator } from '@seriousme/openapi-schema-validator';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDescriptionValidator } from '../../contract/openapi-description.ts';
import { openapi } from '../../contract/openapi.ts';

const folder = mkdtempSync(join(tmpdir(), 'occ-description-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

type Description = Parameters<Validator['validate']>[0];

/**
 * Descriptions the library accepts and refuses for different reasons: a wrong type, a dangling $ref,
 * another version.
 */
function descriptions(): Array<[string, unknown]> {
  const wrongType: { info: { version: unknown } } = structuredClone(openapi);
  wrongType.info.version = 7;
  const danglingRef = structuredClone(openapi);
  danglingRef.paths['/me'].get.responses['200'].content['application/json'].schema = {
    $ref: '#/components/schemas/Nobody',
  };
  const noPaths: { paths: unknown } = structuredClone(openapi);
  noPaths.paths = 'none';
  return [
    ['openapi.json', structuredClone(openapi)],
    ['a version that is a number', wrongType],
    ['a $ref to no schema', danglingRef],
    ['paths that are a string', noPaths],
    ['OpenAPI 3.0', { openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} }],
    ['no version', { info: {} }],
  ];
}

describe("the served description's validator", () => {
  it("gives the library's verdicts, errors and version, keeping the OpenAPI 3.1 schema between processes", async () => {
    for (const [what, document] of descriptions()) {
      const library = new Validator();
      const expected = await library.validate(structuredClone(document) as Description);
      const kept = createDescriptionValidator({ cacheDirectory: folder });
      const got = await kept.validate(structuredClone(document) as Description);
      expect(got, what).toEqual(expected);
      expect(kept.version, what).toBe(library.version);
    }
    expect(readdirSync(folder).filter((name) => name.startsWith('openapi-3.1-schema-'))).toHaveLength(1);
  });

  it('validates 3.1 descriptions with the kept schema, not one the library compiles', async () => {
    const [file] = readdirSync(folder).filter((name) => name.startsWith('openapi-3.1-schema-'));
    const other = mkdtempSync(join(tmpdir(), 'occ-description-'));
    try {
      // A kept schema that refuses everything: a validator that used it refuses openapi.json.
      writeFileSync(
        join(other, file!),
        'module.exports.v0 = function v0() { v0.errors = [{ instancePath: "", message: "kept" }]; return false; };',
      );
      const result = await createDescriptionValidator({ cacheDirectory: other }).validate(
        structuredClone(openapi) as Description,
      );
      expect(result).toEqual({ valid: false, errors: [{ instancePath: '', message: 'kept' }] });
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
