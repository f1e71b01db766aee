/**
 * Compatibility of a served OpenAPI description with the bundled v1 one (spec, Versioning 2 and
 * 4): breaking changes must ship under a new prefix, additive ones may ship in place. Pure
 * functions over two documents; what counts:
 *
 *   breaking  an operation, a response status, a parameter, a schema property or an enum value
 *             removed; a type changed; a parameter, a request-body property or a request body
 *             newly required (clients that worked yesterday would be refused today).
 *   additive  an operation, a status, an optional parameter, a property or an enum value added;
 *             a response property newly required (a stronger guarantee, nothing breaks).
 *
 * `$ref`s are followed within each document; each (old, new) schema pair is compared once.
 */

type Json = Record<string, unknown>;
type Direction = 'request' | 'response';

export interface Compatibility {
  readonly breaking: string[];
  readonly additions: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows a local `$ref` (#/a/b) inside `doc`; other values are returned as they are. */
export function resolveRef(doc: unknown, value: unknown, depth = 0): unknown {
  if (!isObject(value) || typeof value.$ref !== 'string' || depth > 20) return value;
  if (!value.$ref.startsWith('#/')) return value;
  let node: unknown = doc;
  for (const raw of value.$ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) ? node[key] : undefined;
  }
  return resolveRef(doc, node, depth + 1);
}

function typesOf(schema: Json): string[] {
  const type = schema.type;
  return Array.isArray(type) ? type.map(String).sort() : typeof type === 'string' ? [type] : [];
}

/** Operations of a document as "METHOD /path" → operation object. */
export function operationsOf(doc: unknown): Map<string, Json> {
  const out = new Map<string, Json>();
  const paths = isObject(doc) && isObject(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS)
      if (isObject(item[method])) out.set(`${method.toUpperCase()} ${path}`, item[method] as Json);
  }
  return out;
}

/** Compares two schemas at `where`, pushing findings into `out`. */
export function compareSchemas(
  oldDoc: unknown,
  newDoc: unknown,
  oldSchema: unknown,
  newSchema: unknown,
  where: string,
  direction: Direction,
  out: Compatibility,
  seen = new Set<string>(),
): void {
  const before = resolveRef(oldDoc, oldSchema);
  const after = resolveRef(newDoc, newSchema);
  if (!isObject(before) || !isObject(after)) return;
  const key = `${where}|${direction}`;
  if (seen.has(key)) return;
  seen.add(key);

  const oldTypes = typesOf(before);
  const newTypes = typesOf(after);
  if (oldTypes.length > 0 && newTypes.length > 0) {
    const lost = oldTypes.filter((t) => !newTypes.includes(t));
    if (lost.length > 0) out.breaking.push(`${where}: type ${oldTypes.join('|')} became ${newTypes.join('|')}`);
  }
  if (Array.isArray(before.enum)) {
    const newEnum = Array.isArray(after.enum) ? after.enum : undefined;
    if (newEnum !== undefined) {
      for (const value of before.enum)
        if (!newEnum.includes(value)) out.breaking.push(`${where}: enum value ${JSON.stringify(value)} removed`);
      for (const value of newEnum)
        if (!before.enum.includes(value)) out.additions.push(`${where}: enum value ${JSON.stringify(value)} added`);
    }
  }
  const oldProps = isObject(before.properties) ? before.properties : {};
  const newProps = isObject(after.properties) ? after.properties : {};
  for (const name of Object.keys(oldProps)) {
    if (!(name in newProps)) out.breaking.push(`${where}: property "${name}" removed`);
    else compareSchemas(oldDoc, newDoc, oldProps[name], newProps[name], `${where}.${name}`, direction, out, seen);
  }
  for (const name of Object.keys(newProps))
    if (!(name in oldProps)) out.additions.push(`${where}: property "${name}" added`);
  const oldRequired = Array.isArray(before.required) ? before.required.map(String) : [];
  const newRequired = Array.isArray(after.required) ? after.required.map(String) : [];
  for (const name of newRequired) {
    if (oldRequired.includes(name)) continue;
    if (direction === 'request') out.breaking.push(`${where}: property "${name}" newly required`);
    else out.additions.push(`${where}: property "${name}" now always present`);
  }
  if (before.items !== undefined && after.items !== undefined)
    compareSchemas(oldDoc, newDoc, before.items, after.items, `${where}[]`, direction, out, seen);
  for (const combinator of ['allOf', 'oneOf', 'anyOf'] as const) {
    const a = before[combinator];
    const b = after[combinator];
    if (Array.isArray(a) && Array.isArray(b))
      for (const [i, part] of a.entries())
        compareSchemas(oldDoc, newDoc, part, b[i], `${where}.${combinator}[${i}]`, direction, out, seen);
  }
}

function parametersOf(doc: unknown, operation: Json, pathItem: unknown): Map<string, Json> {
  const out = new Map<string, Json>();
  const lists = [isObject(pathItem) ? pathItem.parameters : undefined, operation.parameters];
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const parameter = resolveRef(doc, raw);
      if (isObject(parameter) && typeof parameter.name === 'string')
        out.set(`${String(parameter.in)} ${parameter.name}`, parameter);
    }
  }
  return out;
}

function jsonSchemaOf(doc: unknown, holder: unknown): unknown {
  const resolved = resolveRef(doc, holder);
  if (!isObject(resolved) || !isObject(resolved.content)) return undefined;
  const media = resolved.content['application/json'] ?? Object.values(resolved.content)[0];
  return isObject(media) ? media.schema : undefined;
}

/** Breaking changes and additions of `served` relative to `bundled`. */
export function compareDocuments(bundled: unknown, served: unknown): Compatibility {
  const out: Compatibility = { breaking: [], additions: [] };
  const seen = new Set<string>();
  const oldOps = operationsOf(bundled);
  const newOps = operationsOf(served);
  const pathItem = (doc: unknown, key: string) => {
    const path = key.slice(key.indexOf(' ') + 1);
    return isObject(doc) && isObject(doc.paths) ? doc.paths[path] : undefined;
  };
  for (const [key, before] of oldOps) {
    const after = newOps.get(key);
    if (after === undefined) {
      out.breaking.push(`${key}: operation removed`);
      continue;
    }
    const oldParams = parametersOf(bundled, before, pathItem(bundled, key));
    const newParams = parametersOf(served, after, pathItem(served, key));
    for (const [name, parameter] of oldParams) {
      const now = newParams.get(name);
      if (now === undefined) out.breaking.push(`${key}: parameter ${name} removed`);
      else {
        if (now.required === true && parameter.required !== true)
          out.breaking.push(`${key}: parameter ${name} newly required`);
        compareSchemas(bundled, served, parameter.schema, now.schema, `${key} parameter ${name}`, 'request', out, seen);
      }
    }
    for (const [name, parameter] of newParams) {
      if (oldParams.has(name)) continue;
      if (parameter.required === true) out.breaking.push(`${key}: new required parameter ${name}`);
      else out.additions.push(`${key}: optional parameter ${name} added`);
    }
    const oldBody = resolveRef(bundled, before.requestBody);
    const newBody = resolveRef(served, after.requestBody);
    if (isObject(newBody) && newBody.required === true && !(isObject(oldBody) && oldBody.required === true))
      out.breaking.push(`${key}: request body newly required`);
    if (oldBody !== undefined && newBody !== undefined)
      compareSchemas(
        bundled,
        served,
        jsonSchemaOf(bundled, oldBody),
        jsonSchemaOf(served, newBody),
        `${key} request body`,
        'request',
        out,
        seen,
      );
    const oldResponses = isObject(before.responses) ? before.responses : {};
    const newResponses = isObject(after.responses) ? after.responses : {};
    for (const status of Object.keys(oldResponses)) {
      if (!(status in newResponses)) out.breaking.push(`${key}: response ${status} removed`);
      else
        compareSchemas(
          bundled,
          served,
          jsonSchemaOf(bundled, oldResponses[status]),
          jsonSchemaOf(served, newResponses[status]),
          `${key} ${status}`,
          'response',
          out,
          seen,
        );
    }
    for (const status of Object.keys(newResponses))
      if (!(status in oldResponses)) out.additions.push(`${key}: response ${status} added`);
  }
  for (const key of newOps.keys()) if (!oldOps.has(key)) out.additions.push(`${key}: operation added`);

  // Event payloads are responses in the sense that matters: clients read them.
  const oldHooks = isObject(bundled) && isObject(bundled.webhooks) ? bundled.webhooks : {};
  const newHooks = isObject(served) && isObject(served.webhooks) ? served.webhooks : {};
  for (const [event, item] of Object.entries(oldHooks)) {
    const now = newHooks[event];
    if (now === undefined) {
      out.breaking.push(`webhook ${event} removed`);
      continue;
    }
    const post = (i: unknown) => (isObject(i) && isObject(i.post) ? i.post.requestBody : undefined);
    compareSchemas(
      bundled,
      served,
      jsonSchemaOf(bundled, post(item)),
      jsonSchemaOf(served, post(now)),
      `webhook ${event}`,
      'response',
      out,
      seen,
    );
  }
  return { breaking: [...new Set(out.breaking)], additions: [...new Set(out.additions)] };
}
