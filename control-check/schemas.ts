/**
 * The schemas of control-openapi.json, compiled with ajv (JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1, with ajv-formats), for `occ control-check`: a validator by schema name, and the
 * schema the document names for each state's params and values and each inspection's params and
 * result (components.x-state-params, x-state-values, x-inspection-params, x-inspection-results).
 * The rules control-check names are the document's own (x-control-check-rules). Pure but for
 * compiling once.
 */
import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import document from '../control-openapi.json' with { type: 'json' };

const require = createRequire(import.meta.url);
const DOCUMENT_ID = 'control-openapi.json';

export const controlDocument = document;

/** The protocol version GET /capabilities names, and this document's own version. */
export const CONTROL_PROTOCOL: string = document.components.schemas.Capabilities.properties.protocol.const;
export const CONTROL_DOCUMENT_VERSION: string = document.info.version;

type NameMap = Readonly<Record<string, string>>;
export const stateParams: NameMap = document.components['x-state-params'];
export const stateValues: NameMap = document.components['x-state-values'];
export const inspectionParams: NameMap = document.components['x-inspection-params'];
export const inspectionResults: NameMap = document.components['x-inspection-results'];

export interface ControlRule {
  readonly id: string;
  readonly rule: string;
}

export const controlRules: readonly ControlRule[] = document['x-control-check-rules'];

export function ruleText(id: string): string {
  const found = controlRules.find((rule) => rule.id === id);
  if (found === undefined) throw new Error(`control-openapi.json names no rule ${id}`);
  return found.rule;
}

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function validator(name: string): ValidateFunction {
  let validate = compiled.get(name);
  if (validate !== undefined) return validate;
  if (!(name in document.components.schemas)) throw new Error(`control-openapi.json has no schema ${name}`);
  if (ajv === undefined) {
    const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    // strict: false: the document's own members (openapi, paths, x-…) are not JSON Schema keywords.
    ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
    type AddFormats = (instance: Ajv2020) => unknown;
    const formats = require('ajv-formats') as { default?: AddFormats } & AddFormats;
    (formats.default ?? formats)(ajv);
    ajv.addSchema(document, DOCUMENT_ID);
  }
  validate = ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/${name}`);
  if (validate === undefined) throw new Error(`control-openapi.json: schema ${name} does not compile`);
  compiled.set(name, validate);
  return validate;
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'the body' : error.instancePath.slice(1).replaceAll('/', '.');
  if (error.keyword === 'required') return `${where} lacks ${String(error.params.missingProperty)}`;
  if (error.keyword === 'additionalProperties') return `${where} has ${String(error.params.additionalProperty)}`;
  return `${where} ${error.message ?? 'is invalid'}`;
}

/** The problems of `value` against components.schemas[name]; empty when it conforms. */
export function schemaProblems(name: string, value: unknown): string[] {
  const validate = validator(name);
  if (validate(value)) return [];
  return [...new Set((validate.errors ?? []).map(describe))];
}
