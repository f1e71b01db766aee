/**
 * The validator of a served OpenAPI description: @seriousme/openapi-schema-validator (its version
 * detection, its JSON Schema check, its check of every $ref), with the OpenAPI 3.1 schema compiled
 * once and kept like the contract's validators (precompiled.ts) instead of compiled again by the
 * library in every run (a visible part of a worker's CPU). Other versions the library compiles as
 * it always does. The verdicts are the library's: test/contract/openapi-description.test.ts
 * compares them.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { createRequire } from 'node:module';
import { precompiledValidators } from './precompiled.ts';
import { addFormats } from './validator.ts';

const require = createRequire(import.meta.url);

/** The library's own schema of OpenAPI 3.1 and the ajv it compiles it with (its getAjvValidator). */
const OAS_31_SCHEMA = require('@seriousme/openapi-schema-validator/schemas/v3.1/schema.json') as { $id: string };
function makeAjv(source: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, ...(source ? { code: { source: true } } : {}) });
  addFormats(ajv);
  ajv.addFormat('media-range', true);
  return ajv;
}

/** The compiled schema by the folder it is kept in: compiled or loaded once per process. */
const oas31 = new Map<string, ValidateFunction>();

function keptOas31(directory: string): ValidateFunction {
  let validate = oas31.get(directory);
  if (validate === undefined) {
    validate = precompiledValidators({
      name: 'openapi-3.1-schema',
      document: OAS_31_SCHEMA,
      documentId: OAS_31_SCHEMA.$id,
      pointers: [''],
      makeAjv,
      optionsKey: 'strict:false,formats,media-range',
      directory,
    }).get('')!;
    oas31.set(directory, validate);
  }
  return validate;
}

/**
 * The library calls getAjvValidator(version) for the compiled schema
 * of a version (its index.js); 3.1's comes from the kept file.
 */
class KeptSchemaValidator extends Validator {
  private readonly cacheDirectory: string;

  constructor(cacheDirectory: string) {
    super();
    this.cacheDirectory = cacheDirectory;
  }

  getAjvValidator(version: string): ValidateFunction {
    if (version === '3.1') return keptOas31(this.cacheDirectory);
    return (Validator.prototype as unknown as { getAjvValidator(v: string): ValidateFunction }).getAjvValidator.call(
      this,
      version,
    );
  }
}

/** A validator of OpenAPI descriptions (one per description: the library keeps the last one's version). */
export function createDescriptionValidator(options: { cacheDirectory: string }): Validator {
  return new KeptSchemaValidator(options.cacheDirectory);
}
