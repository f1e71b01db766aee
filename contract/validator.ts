/**
 * The response validator, built once from openapi.json with ajv's JSON Schema 2020-12 build
 * (the dialect of OpenAPI 3.1) and ajv-formats.
 *
 * Given an operation, a status and a recorded response it answers three questions with
 * readable messages: is the status documented, does the content type fit, does the body match.
 * Pure over its inputs; the I/O happened in the client.
 */
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { createRequire } from 'node:module';
import { openapi } from './openapi.ts';
import { precompiledValidators } from './precompiled.ts';

// ajv's compiler and ajv-formats are required when validators are compiled, not imported: a
// process that finds them kept (precompiled.ts), as every test worker of a run does, never loads
// them (part of each worker's start). Both are CommonJS.
const require = createRequire(import.meta.url);

type AddFormats = (ajv: Ajv2020) => unknown;
export function addFormats(ajv: Ajv2020): void {
  const formats = require('ajv-formats') as { default?: AddFormats } & AddFormats;
  (formats.default ?? formats)(ajv);
}

const DOCUMENT_ID = 'openapi.json';

export interface RecordedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly rawBody: string;
  readonly json: unknown;
  readonly jsonError?: string | undefined;
}

export interface ResponseVerdict {
  /** "GET /cdrs" */
  readonly operation: string;
  readonly status: number;
  readonly documented: boolean;
  /**
   * The response is an assumption of ours, not the spec's (x-assumed: the 429 the spec leaves
   * unshown), so its problems are observations. x-unspecified alone marks a detail the spec
   * leaves open inside an otherwise specified response, whose schema still binds.
   */
  readonly unspecified: boolean;
  /** Empty when the response conforms. */
  readonly problems: readonly string[];
}

interface ResponseObject {
  readonly description?: string;
  readonly content?: Record<string, { schema: unknown }>;
  readonly 'x-unspecified'?: boolean;
  readonly 'x-assumed'?: boolean;
  readonly $ref?: string;
}

type OperationObject = { responses: Record<string, ResponseObject> };

function pointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function resolveResponse(response: ResponseObject): { response: ResponseObject; pointer: string | undefined } {
  if (response.$ref === undefined) return { response, pointer: undefined };
  const name = response.$ref.replace('#/components/responses/', '');
  const target = (openapi.components.responses as Record<string, ResponseObject>)[name];
  if (target === undefined) throw new Error(`openapi.json: unresolved response ${response.$ref}`);
  return { response: target, pointer: `#/components/responses/${pointerSegment(name)}` };
}

/** "/hooks/3f0c…" → "/hooks/{id}"; undefined when no path of the document matches. */
export function matchPathTemplate(
  concretePath: string,
  paths: Readonly<Record<string, unknown>> = openapi.paths,
): string | undefined {
  const path = concretePath.split('?')[0]!.replace(/\/+$/, '') || '/';
  for (const template of Object.keys(paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(path)) return template;
  }
  return undefined;
}

export function formatAjvErrors(errors: readonly ErrorObject[] | null | undefined, root = 'body'): string[] {
  const all = errors ?? [];
  // propertyNames reports both the failing name and a bare "must NOT be valid" for its `not`.
  const namedPaths = new Set(all.filter((e) => e.keyword === 'propertyNames').map((e) => e.instancePath));
  return all
    .filter((error) => !(error.keyword === 'not' && namedPaths.has(error.instancePath)))
    .map((error) => {
      const where = `${root}${error.instancePath}`;
      switch (error.keyword) {
        case 'enum': {
          const { allowedValues } = error.params as { allowedValues: unknown[] };
          const allowed = allowedValues.map((v) => JSON.stringify(v)).join(', ');
          return `${where} is ${JSON.stringify(error.data)}, not one of ${allowed}`;
        }
        case 'const': {
          const { allowedValue } = error.params as { allowedValue: unknown };
          return `${where} is ${JSON.stringify(error.data)}, must be ${JSON.stringify(allowedValue)}`;
        }
        case 'required':
          return `${where} lacks required field "${(error.params as { missingProperty: string }).missingProperty}"`;
        case 'type': {
          const { type } = error.params as { type: string | string[] };
          return `${where} is ${JSON.stringify(error.data)?.slice(0, 80)}, must be ${type}`;
        }
        case 'propertyNames': {
          const { propertyName } = error.params as { propertyName: string };
          return `${where} has a field named "${propertyName}", which the schema forbids`;
        }
        default: {
          const shown = error.keyword === 'format' || error.keyword === 'pattern';
          const got = shown ? ` (got ${JSON.stringify(error.data)?.slice(0, 80)})` : '';
          return `${where} ${error.message ?? 'is invalid'}${got}`;
        }
      }
    })
    .filter((message, index, all) => all.indexOf(message) === index);
}

export interface Contract {
  checkResponse(method: string, pathTemplate: string, response: RecordedResponse): ResponseVerdict;
  /** Validate a value against components.schemas[name]; returns problems, empty when valid. */
  checkSchema(name: string, value: unknown, root?: string): string[];
  /** Validate a webhook payload against openapi.json `webhooks[event]`. */
  checkEvent(event: string, payload: unknown): string[];
  /** Documented statuses of an operation, e.g. ["200", "401", "429"]. */
  documentedStatuses(method: string, pathTemplate: string): string[];
}

// validateSchema: false skips compiling JSON Schema's own meta-schema, some 50 ms in every process
// that builds a contract (each test worker, every fault of the self-proof). openapi.json's schemas
// are checked against it where it matters, once: test/contract/openapi-document.test.ts.
const AJV_OPTIONS = {
  allErrors: true,
  strict: false,
  validateFormats: true,
  verbose: true,
  validateSchema: false,
} as const;
/** The options as they count for the name of the kept validators' file (precompiled.ts). */
export const AJV_OPTIONS_KEY = JSON.stringify(AJV_OPTIONS);
/** The start of that file's name. */
export const VALIDATORS_FILE = 'openapi-validators';

function makeAjv(source: boolean): Ajv2020 {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ ...AJV_OPTIONS, ...(source ? { code: { source: true } } : {}) });
  addFormats(ajv);
  return ajv;
}

const operationOf = (method: string, pathTemplate: string): OperationObject | undefined =>
  (openapi.paths as Record<string, Record<string, OperationObject>>)[pathTemplate]?.[method.toLowerCase()];

/** The media type whose schema a response's body is validated against: JSON when it offers JSON. */
function validatedMediaType(response: ResponseObject): string | undefined {
  const mediaTypes = Object.keys(response.content ?? {});
  return mediaTypes.includes('application/json') ? 'application/json' : mediaTypes[0];
}

/** The schema pointer of an operation's documented response `key` ("200", "4XX"); undefined when it has no body. */
function responseSchemaPointer(method: string, pathTemplate: string, key: string): string | undefined {
  const { response, pointer: sharedPointer } = resolveResponse(operationOf(method, pathTemplate)!.responses[key]!);
  const mediaType = validatedMediaType(response);
  if (mediaType === undefined) return undefined;
  const base = sharedPointer ?? `#/paths/${pointerSegment(pathTemplate)}/${method.toLowerCase()}/responses/${key}`;
  return `${base}/content/${pointerSegment(mediaType)}/schema`;
}

const componentSchemaPointer = (name: string): string => `#/components/schemas/${pointerSegment(name)}`;
const eventSchemaPointer = (event: string): string =>
  `#/webhooks/${pointerSegment(event)}/post/requestBody/content/application~1json/schema`;

/**
 * Every schema the contract validates against: each documented
 * response body, each component schema, each event's payload.
 */
export function schemaPointers(): string[] {
  const pointers = new Set<string>();
  for (const [pathTemplate, item] of Object.entries(
    openapi.paths as Record<string, Record<string, Partial<OperationObject>>>,
  )) {
    for (const [method, operation] of Object.entries(item)) {
      for (const key of Object.keys(operation.responses ?? {})) {
        const pointer = responseSchemaPointer(method, pathTemplate, key);
        if (pointer !== undefined) pointers.add(pointer);
      }
    }
  }
  for (const name of Object.keys(openapi.components.schemas)) pointers.add(componentSchemaPointer(name));
  for (const event of Object.keys(openapi.webhooks)) pointers.add(eventSchemaPointer(event));
  return [...pointers];
}

export interface ContractOptions {
  /**
   * Where the compiled validators are kept between processes (precompiled.ts): the suite's cache
   * folder (harness/config/settings.ts), handed down by the run; undefined: nowhere (compile in memory).
   */
  readonly cacheDirectory: string | undefined;
}

export function createContract(options: ContractOptions): Contract {
  const validators = precompiledValidators({
    name: VALIDATORS_FILE,
    document: openapi as object,
    documentId: DOCUMENT_ID,
    pointers: schemaPointers(),
    makeAjv,
    optionsKey: AJV_OPTIONS_KEY,
    directory: options.cacheDirectory,
  });
  const compiled = (pointer: string): ValidateFunction => {
    const validate = validators.get(pointer);
    if (validate === undefined)
      throw new Error(`contract bug: no validator for ${DOCUMENT_ID}${pointer} (schemaPointers)`);
    return validate;
  };

  return {
    documentedStatuses(method, pathTemplate) {
      return Object.keys(operationOf(method, pathTemplate)?.responses ?? {});
    },

    checkResponse(method, pathTemplate, recorded) {
      const operationName = `${method.toUpperCase()} ${pathTemplate}`;
      const operation = operationOf(method, pathTemplate);
      if (operation === undefined) {
        return {
          operation: operationName,
          status: recorded.status,
          documented: false,
          unspecified: false,
          problems: [`${operationName} is not an operation of openapi.json`],
        };
      }
      const statusKey = String(recorded.status);
      const rangeKey = `${statusKey[0]}XX`;
      const key = statusKey in operation.responses ? statusKey : rangeKey in operation.responses ? rangeKey : undefined;
      if (key === undefined) {
        const documented = Object.keys(operation.responses).join(', ');
        return {
          operation: operationName,
          status: recorded.status,
          documented: false,
          unspecified: false,
          problems: [`status ${recorded.status} is not documented for ${operationName} (documented: ${documented})`],
        };
      }
      const { response } = resolveResponse(operation.responses[key]!);
      const problems: string[] = [];
      const mediaTypes = Object.keys(response.content ?? {});
      if (mediaTypes.length === 0) {
        if (recorded.rawBody.length > 0)
          problems.push(`status ${recorded.status} must have no body, got ${recorded.rawBody.length} bytes`);
      } else {
        const contentType = recorded.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
        if (contentType === undefined || !mediaTypes.includes(contentType)) {
          problems.push(`content type is ${contentType ?? 'missing'}, must be ${mediaTypes.join(' or ')}`);
        }
        if (recorded.jsonError !== undefined) {
          problems.push(recorded.jsonError);
        } else if (recorded.json === undefined) {
          problems.push('body is empty, must be JSON');
        } else {
          const validate = compiled(responseSchemaPointer(method, pathTemplate, key)!);
          if (!validate(recorded.json)) problems.push(...formatAjvErrors(validate.errors));
        }
      }
      return {
        operation: operationName,
        status: recorded.status,
        documented: true,
        unspecified: response['x-assumed'] === true,
        problems,
      };
    },

    checkSchema(name, value, root = 'value') {
      if (!(name in openapi.components.schemas)) throw new Error(`openapi.json has no schema ${name}`);
      const validate = compiled(componentSchemaPointer(name));
      return validate(value) ? [] : formatAjvErrors(validate.errors, root);
    },

    checkEvent(event, payload) {
      if (!(event in openapi.webhooks)) return [`${event} is not an event of openapi.json`];
      const validate = compiled(eventSchemaPointer(event));
      return validate(payload) ? [] : formatAjvErrors(validate.errors, 'payload');
    },
  };
}
