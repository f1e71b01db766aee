/**
 * A valid value of a constrained string schema, for elements the caller gives no seed of its own
 * (a field added to the document): its example, its first enumerated value, a value of its format,
 * or the shortest string its pattern matches (a small subset of regular expressions). Pure.
 */
import type { Schema } from './document.ts';

const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  uuid: '3f0a1c52-9b7e-4d21-8c55-6a2f0e9d4b17',
  'date-time': '2026-01-15T10:00:00Z',
  uri: 'https://example.invalid/nm',
  email: 'nm@example.invalid',
  date: '2026-01-15',
};

/** The first character a bracket class admits ("[1-9]" → "1", "[Hh]" → "H"), or undefined for a negated one. */
function firstOfClass(body: string): string | undefined {
  if (body.startsWith('^')) return undefined;
  if (body.startsWith('\\d')) return '0';
  return body.startsWith('\\') ? body[1] : body[0];
}

/** The last bounded quantifier ({m} or {m,n}) of a pattern: the count a length near miss changes. */
export function lastBound(pattern: string): { min: number; max: number } | undefined {
  const all = [...pattern.matchAll(/\{(\d+)(,(\d*))?\}/g)];
  const last = all.at(-1);
  if (last === undefined) return undefined;
  const min = Number(last[1]);
  const max = last[2] === undefined ? min : last[3] === '' ? Number.POSITIVE_INFINITY : Number(last[3]);
  return { min, max };
}

/**
 * The shortest string matching a pattern of literals, escapes, classes and quantifiers (undefined
 * beyond that subset); with `lastCount`, its last bounded quantifier repeats that many times
 * instead (one over or under the bound: a length near miss).
 */
export function shortestMatch(pattern: string, lastCount?: number): string | undefined {
  const source = pattern.replace(/^\^/, '').replace(/\$$/, '');
  const bounded = [...source.matchAll(/\{\d+(,\d*)?\}/g)].at(-1)?.index;
  let out = '';
  let i = 0;
  while (i < source.length) {
    let atom: string | undefined;
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1];
      atom = next === 'd' ? '0' : next === 'w' ? 'a' : next;
      i += 2;
    } else if (c === '[') {
      const end = source.indexOf(']', i + 1);
      if (end < 0) return undefined;
      atom = firstOfClass(source.slice(i + 1, end));
      i = end + 1;
    } else if ('()|.^$'.includes(c)) {
      return undefined;
    } else {
      atom = c;
      i += 1;
    }
    if (atom === undefined) return undefined;
    const quantifier = /^(\{(\d+)(,\d*)?\}|[+*?])/.exec(source.slice(i));
    let times = 1;
    if (quantifier !== null) {
      times = quantifier[2] !== undefined ? Number(quantifier[2]) : quantifier[0] === '+' ? 1 : 0;
      if (lastCount !== undefined && i === bounded) times = lastCount;
      i += quantifier[0].length;
    }
    out += atom.repeat(times);
  }
  return out;
}

/** A valid value of `schema`, or undefined when none can be made. */
export function exemplar(schema: Schema): string | undefined {
  if (typeof schema.example === 'string') return schema.example;
  if (schema.enum !== undefined && typeof schema.enum[0] === 'string') return schema.enum[0];
  if (schema.format !== undefined && schema.format in FORMAT_EXAMPLES) return FORMAT_EXAMPLES[schema.format];
  if (schema.pattern !== undefined) {
    const value = shortestMatch(schema.pattern);
    if (value === undefined) return undefined;
    return value.length >= (schema.minLength ?? 0) ? value : undefined;
  }
  return schema.minLength === undefined && schema.maxLength === undefined
    ? undefined
    : 'a'.repeat(schema.minLength || 1);
}
