/**
 * The elements of an OpenAPI document that near-miss operators apply to: its operations, every
 * parameter and top-level body field with its schema ($ref resolved), and the error codes each
 * operation documents per status. Pure: every function takes the document it reads, so a copy
 * of openapi.json with one more field derives that field's near misses with no new code.
 */

/** The parts of a JSON Schema the operators read. */
export interface Schema {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly pattern?: string;
  readonly format?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly example?: unknown;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly items?: Schema;
  readonly allOf?: readonly Schema[];
  readonly 'x-unspecified'?: boolean;
}

/** An OpenAPI 3.1 document, as loosely as the operators read it. */
export interface Document {
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components?: {
    readonly schemas?: Readonly<Record<string, Schema>>;
    readonly securitySchemes?: Readonly<Record<string, SecurityScheme>>;
    readonly responses?: Readonly<Record<string, unknown>>;
  };
}

export interface SecurityScheme {
  readonly type: string;
  readonly scheme?: string;
  readonly in?: string;
  readonly name?: string;
}

/** The HTTP methods an OpenAPI path item may declare. */
export const DECLARABLE_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface Operation {
  /** Upper case, e.g. "DELETE". */
  readonly method: string;
  /** The path template, e.g. "/hooks/{id}". */
  readonly path: string;
  readonly key: string;
  readonly security: readonly Readonly<Record<string, readonly string[]>>[];
  /** The error codes each documented status enumerates ({} for a status without an `error` enumeration). */
  readonly errorCodes: Readonly<Record<string, readonly string[]>>;
  /** The documented statuses, e.g. ["200", "400", "401"]. */
  readonly statuses: readonly string[];
}

export type Location = 'query' | 'path' | 'body';

/** One parameter or top-level body field of one operation. */
export interface Element {
  /** "GET /cdrs query from", "POST /calls body toNumber", "DELETE /hooks/{id} path id". */
  readonly id: string;
  readonly operation: Operation;
  readonly location: Location;
  readonly name: string;
  readonly schema: Schema;
  readonly required: boolean;
  /** The spec leaves the answer to a value outside the schema unshown (x-unspecified on the parameter). */
  readonly unspecified: boolean;
}

/** The schema a local $ref names, merged with the keywords beside it; other schemas as they are. */
export function resolve(doc: Document, schema: Schema | undefined): Schema {
  if (schema === undefined) return {};
  if (schema.$ref === undefined) return schema;
  const name = /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1];
  const target = name === undefined ? undefined : doc.components?.schemas?.[name];
  if (target === undefined) throw new Error(`unresolvable $ref ${schema.$ref}`);
  const { $ref: _ref, ...beside } = schema;
  return { ...resolve(doc, target), ...beside };
}

function resolveResponse(doc: Document, response: unknown): Record<string, unknown> {
  const ref = (response as { $ref?: string } | undefined)?.$ref;
  const name = ref === undefined ? undefined : /^#\/components\/responses\/(.+)$/.exec(ref)?.[1];
  const target = name === undefined ? response : doc.components?.responses?.[name];
  return (target ?? {}) as Record<string, unknown>;
}

/** The `error` codes a response's JSON schema enumerates (through allOf). */
function codesOf(doc: Document, response: unknown): string[] {
  const content = resolveResponse(doc, response).content as Record<string, { schema?: Schema }> | undefined;
  const schema = resolve(doc, content?.['application/json']?.schema);
  const parts = [schema, ...(schema.allOf ?? []).map((part) => resolve(doc, part))];
  return parts.flatMap((part) => (part.properties?.error?.enum ?? []).map(String));
}

/** Every operation of the document, in document order. */
export function operationsOf(doc: Document): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    DECLARABLE_METHODS.filter((method) => item[method] !== undefined).map((method) => {
      const op = item[method] as { security?: Record<string, string[]>[]; responses?: Record<string, unknown> };
      const responses = op.responses ?? {};
      return {
        method: method.toUpperCase(),
        path,
        key: `${method.toUpperCase()} ${path}`,
        security: op.security ?? [],
        errorCodes: Object.fromEntries(Object.entries(responses).map(([status, r]) => [status, codesOf(doc, r)])),
        statuses: Object.keys(responses),
      };
    }),
  );
}

interface RawParameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly schema?: Schema;
  readonly 'x-unspecified'?: boolean;
}

/** Every query and path parameter and every top-level JSON body field of every operation. */
export function elementsOf(doc: Document): Element[] {
  return operationsOf(doc).flatMap((operation) => {
    const op = doc.paths[operation.path]![operation.method.toLowerCase()] as {
      parameters?: RawParameter[];
      requestBody?: { content?: Record<string, { schema?: Schema }> };
    };
    const parameters = (op.parameters ?? [])
      .filter((p) => p.in === 'query' || p.in === 'path')
      .map((p) => ({
        id: `${operation.key} ${p.in} ${p.name}`,
        operation,
        location: p.in as Location,
        name: p.name,
        schema: resolve(doc, p.schema),
        required: p.required === true,
        unspecified: p['x-unspecified'] === true,
      }));
    const body = resolve(doc, op.requestBody?.content?.['application/json']?.schema);
    const fields = Object.entries(body.properties ?? {}).map(([name, schema]) => ({
      id: `${operation.key} body ${name}`,
      operation,
      location: 'body' as const,
      name,
      schema: resolve(doc, schema),
      required: (body.required ?? []).includes(name),
      unspecified: resolve(doc, schema)['x-unspecified'] === true,
    }));
    return [...parameters, ...fields];
  });
}

/** The first documented status of a class ("2" → "200" or "204"), as a number. */
export function firstStatus(operation: Operation, leading: string): number | undefined {
  const status = operation.statuses.find((s) => s.startsWith(leading) && /^\d{3}$/.test(s));
  return status === undefined ? undefined : Number(status);
}

/** A string is typed "string" (alone or with null). */
export function isString(schema: Schema): boolean {
  return schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));
}

/** A number is typed "integer" or "number". */
export function isNumeric(schema: Schema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes('integer') || types.includes('number');
}
