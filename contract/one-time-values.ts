/**
 * The values the contract returns once. Derived from openapi.json: every response property whose
 * description says it is returned only in that response ("returned only in this response", "never
 * returned again") is a one-time value of that operation; the operation's other required
 * properties are the record's identity. The near-miss operator (operators/one-time-values.ts) asks
 * for one twice; the run's watch (harness/http/one-time-watch.ts) looks for each on every channel
 * the target speaks on after it.
 */
import { openapi, type OperationKey } from './openapi.ts';

export interface OneTimeValue {
  readonly operation: OperationKey;
  /** The property given once (e.g. the whsec_ secret). */
  readonly field: string;
  /** The other required properties of the same response (e.g. the subscription id). */
  readonly identity: readonly string[];
}

const ONCE = /returned only in this response|never returned again|returned once/i;

interface Schema {
  readonly $ref?: string;
  readonly required?: readonly string[];
  readonly properties?: Record<string, { readonly description?: string }>;
}

type Doc = {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  components: { schemas: Record<string, Schema> };
};

function resolveSchema(doc: Doc, schema: Schema | undefined): Schema | undefined {
  if (schema?.$ref === undefined) return schema;
  return doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
}

/** Every one-time value of `doc` (default: the project's openapi.json), by operation and 2xx response. */
export function oneTimeValues(doc: Doc = openapi as unknown as Doc): OneTimeValue[] {
  const found: OneTimeValue[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (!status.startsWith('2')) continue;
        const content = (response as { content?: Record<string, { schema?: Schema }> }).content;
        const schema = resolveSchema(doc, content?.['application/json']?.schema);
        for (const [field, property] of Object.entries(schema?.properties ?? {})) {
          if (!ONCE.test(property.description ?? '')) continue;
          const identity = (schema?.required ?? []).filter((name) => name !== field);
          found.push({ operation: `${method.toUpperCase()} ${path}` as OperationKey, field, identity });
        }
      }
    }
  }
  return found;
}
