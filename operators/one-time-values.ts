/**
 * Near-miss family "one-time values" (NM-ONE-TIME-VALUE-REPEATED): a value the contract says is
 * returned once is never returned again, whatever the second request looks like, including the
 * identical request.
 *
 * Derived from openapi.json: every response property whose description says it is returned only
 * in that response ("returned only in this response", "never returned again") is a one-time value
 * of that operation; the operation's other required properties are the record's identity.
 */
import { openapi, type OperationKey } from '../contract/openapi.ts';

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

export type SecondReading = 'a new record' | 'refused';

export interface SecondVerdict {
  /** undefined when the second answer keeps the value one-time. */
  readonly problem: string | undefined;
  /** Which reading the target took (recorded; both are allowed). */
  readonly reading: SecondReading | undefined;
}

/**
 * The verdict on the answer to a second, identical request. The spec allows a new record (its
 * own identity and value) or a refusal; never the first value again, nor the first record's
 * identity with a value (that would be the first record given out twice).
 */
export function judgeSecondAnswer(
  value: OneTimeValue,
  first: Record<string, unknown>,
  second: { status: number | undefined; json: unknown; rawBody: string },
): SecondVerdict {
  const secret = first[value.field];
  if (typeof secret === 'string' && secret !== '' && second.rawBody.includes(secret))
    return {
      problem:
        `a second identical ${value.operation} answered ${second.status} carrying the first response's ` +
        `${value.field}: it is returned only once`,
      reading: undefined,
    };
  if (second.status === undefined || second.status < 200 || second.status >= 300)
    return { problem: undefined, reading: 'refused' };
  const body = (second.json ?? {}) as Record<string, unknown>;
  const same = value.identity.filter((name) => first[name] !== undefined && body[name] === first[name]);
  if (same.length > 0)
    return {
      problem:
        `a second identical ${value.operation} answered ${second.status} with the first record's ` +
        `${same.join(', ')} and a ${value.field}: the first record's ${value.field} was given out again`,
      reading: undefined,
    };
  return { problem: undefined, reading: 'a new record' };
}
