/**
 * Near misses of constrained strings: every parameter and body field of openapi.json with an
 * enumeration, a pattern, a format or a length bound gets the forms one step from a valid value.
 * Those no standard makes equal are refused with the operation's documented 400 code (an
 * identifier a body names may instead be "not found": the spec gives no order of checks); those a
 * standard declares equal (RFC 9562 UUID case, RFC 3339 offsets) are accepted as the same value;
 * where a standard leaves it to the application (RFC 3339 lower-case t/z, a leading zero of a
 * numeric id, a UUID without hyphens) either answer passes and the one taken is recorded. Pure.
 */
import { elementsOf, isString, type Document, type Element, type Schema } from './document.ts';
import type { Expectation, Refusal } from './expectation.ts';
import { lastBound, shortestMatch } from './exemplar.ts';
import { occurrences, rankedBy, type OperatorInfo, type ValueProbe } from './operator.ts';

/** A string the schema constrains beyond its type. */
export function isConstrained(schema: Schema): boolean {
  return (
    isString(schema) &&
    (schema.enum !== undefined ||
      schema.pattern !== undefined ||
      schema.format !== undefined ||
      schema.maxLength !== undefined ||
      (schema.minLength ?? 0) > 0)
  );
}

/** A string of ASCII digits only (a numeric id): its pattern admits nothing else. */
export function isNumericString(schema: Schema): boolean {
  return isString(schema) && /^\^(\[0-9\]|\\d)[+*](\{\d+,?\d*\})?\$$/.test(schema.pattern ?? '');
}

/** Refused: the operation's documented 400 codes; a numeric id in a body may also name nothing (its 404 codes). */
export function refusalsOf(element: Element): Refusal[] {
  const refusals: Refusal[] = [{ status: 400, codes: element.operation.errorCodes['400'] ?? [] }];
  const notFound = element.operation.errorCodes['404'];
  if (element.location === 'body' && isNumericString(element.schema) && notFound !== undefined)
    refusals.push({ status: 404, codes: notFound });
  return refusals;
}

const refused = (element: Element): Expectation => ({ kind: 'refused', answers: refusalsOf(element) });
/** Only a safe read answers the same body twice: a creation's answer carries a new id. */
const safe = (element: Element) => element.operation.method === 'GET';
const either = (element: Element): Expectation => ({
  kind: 'same-value',
  or: refusalsOf(element),
  sameBody: safe(element),
});
const same = (element: Element): Expectation => ({ kind: 'same-value', sameBody: safe(element) });

const ARABIC_INDIC_ZERO = 0x0660;
const FULL_WIDTH_ZERO = 0xff10;
const digitsFrom = (zero: number) => (seed: string) =>
  seed.replace(/[0-9]/g, (d) => String.fromCodePoint(zero + Number(d)));

/** Hex letters flipped to upper case (the canonical form of a UUID is lower case, RFC 9562 §4). */
const upper = (seed: string) => seed.toUpperCase();

/** The same instant written with another offset: wall time + minutes, then the offset ("+05:30"). */
export function withOffset(seed: string, minutes: number): string {
  const ms = Date.parse(seed);
  if (Number.isNaN(ms)) return seed;
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  const wall = new Date(ms + minutes * 60_000).toISOString().slice(0, 19);
  return `${wall}${offset}`;
}

/** A value of length n built from `seed`: cut, or padded in a way that keeps it of its format. */
function ofLength(seed: string, n: number, schema: Schema): string {
  if (seed.length >= n) return seed.slice(0, n);
  const pad = schema.format === 'uri' ? 'a' : (seed.at(-1) ?? 'a');
  return seed + pad.repeat(n - seed.length);
}

/** Values one step past each length bound of a schema: maxLength/minLength, and a pattern's last {m,n}. */
function lengthProbes(schema: Schema): Array<{ value: (seed: string) => string; what: string }> {
  const out: Array<{ value: (seed: string) => string; what: string }> = [];
  const { maxLength: max, minLength: min } = schema;
  if (max !== undefined)
    out.push({ value: (v) => ofLength(v, max + 1, schema), what: `${max + 1} characters (maxLength ${max})` });
  if (min !== undefined && min > 0)
    out.push({ value: (v) => ofLength(v, min - 1, schema), what: `${min - 1} characters (minLength ${min})` });
  const bound = schema.pattern === undefined ? undefined : lastBound(schema.pattern);
  if (bound === undefined || shortestMatch(schema.pattern!) === undefined) return out;
  const pattern = schema.pattern!;
  if (Number.isFinite(bound.max))
    out.push({ value: () => shortestMatch(pattern, bound.max + 1)!, what: `${bound.max + 1} repetitions (pattern)` });
  if (bound.min > 0)
    out.push({ value: () => shortestMatch(pattern, bound.min - 1)!, what: `${bound.min - 1} repetitions (pattern)` });
  return out;
}

interface StringOperator extends OperatorInfo {
  readonly applies: (schema: Schema) => boolean;
  readonly probes: (element: Element) => ReadonlyArray<Omit<ValueProbe, 'operator' | 'element' | 'mayBeAccepted'>>;
}

const patternOrFormat = (s: Schema) => isConstrained(s) && (s.pattern !== undefined || s.format !== undefined);
/** A string constrained by an enumeration, a pattern or a format: what a stray character must fall outside of. */
const enumPatternOrFormat = (s: Schema) => isConstrained(s) && (s.enum !== undefined || patternOrFormat(s));

/** Ranked likeliest slip first: `$` matching before a final newline and trimming are the commonest. */
export const stringOperators: readonly StringOperator[] = [
  {
    id: 'NM-TRAILING-NEWLINE',
    family: 'constrained strings',
    appliesTo: 'every string with an enumeration, pattern or format',
    verdict: 'refused with the documented 400 code (or, for a numeric id in a body, the 404 not-found code)',
    because: 'Errors: 400 `invalid_input` when "a field fails validation"; `invalid_timestamp` when not parseable',
    applies: enumPatternOrFormat,
    probes: (e) => [{ value: (v) => `${v}\n`, what: 'a trailing newline', expect: refused(e) }],
  },
  {
    id: 'NM-SURROUNDING-SPACE',
    family: 'constrained strings',
    appliesTo: 'every string with an enumeration, pattern or format',
    verdict: 'refused with the documented 400 code (or the 404 not-found code for a numeric id in a body)',
    because: 'a value with a space is outside the enumeration, pattern or format the contract gives it',
    applies: enumPatternOrFormat,
    probes: (e) => [
      { value: (v) => ` ${v}`, what: 'a leading space', expect: refused(e) },
      { value: (v) => `${v} `, what: 'a trailing space', expect: refused(e) },
    ],
  },
  {
    id: 'NM-NON-ASCII-DIGITS',
    family: 'constrained strings',
    appliesTo: 'every string whose pattern or format has digits (numeric ids, E.164, UUIDs, date-times)',
    verdict: 'refused with the documented 400 code (or the 404 not-found code for a numeric id in a body)',
    because: 'the pattern says [0-9]; E.164, RFC 9562 and RFC 3339 digits are ASCII (a Unicode-aware \\d is a slip)',
    applies: (s) =>
      patternOrFormat(s) && (/\[0-9\]|\\d|\[1-9\]/.test(s.pattern ?? '') || ['uuid', 'date-time'].includes(s.format!)),
    probes: (e) => [
      { value: digitsFrom(ARABIC_INDIC_ZERO), what: 'Arabic-Indic digits', expect: refused(e) },
      { value: digitsFrom(FULL_WIDTH_ZERO), what: 'full-width digits', expect: refused(e) },
    ],
  },
  {
    id: 'NM-NUL',
    family: 'constrained strings',
    appliesTo: 'every string with an enumeration, pattern or format',
    verdict: 'refused with the documented 400 code (or the 404 not-found code for a numeric id in a body)',
    because: 'a NUL is in no enumeration, pattern or format of the contract (a C-string cut is a slip)',
    applies: enumPatternOrFormat,
    probes: (e) => [{ value: (v) => `${v}\u0000`, what: 'a trailing NUL', expect: refused(e) }],
  },
  {
    id: 'NM-ENUM-CASE',
    family: 'constrained strings',
    appliesTo: 'every enumeration of strings',
    verdict: 'refused with the documented 400 code',
    because: 'POST /hooks: 400 `invalid_input` for an "event outside the enumeration" (JSON strings compare exactly)',
    applies: (s) => s.enum?.some((v) => typeof v === 'string' && /[a-z]/i.test(v)) === true,
    probes: (e) => [
      { value: upper, what: 'in upper case', expect: refused(e) },
      { value: (v) => v.charAt(0).toUpperCase() + v.slice(1), what: 'capitalised', expect: refused(e) },
    ],
  },
  {
    id: 'NM-LENGTH-BOUND',
    family: 'constrained strings',
    appliesTo: 'every string with maxLength, a minLength above 0, or a pattern ending in a bounded repetition',
    verdict:
      'one character over maxLength or under minLength, and one repetition over or under a pattern bound ' +
      '(E.164: 16 digits, 1 digit), is refused with the documented 400 code',
    because:
      'Limits: target_url "at most 512 characters"; E.164 "2 to 15 digits"; 400 `invalid_input` when a field ' +
      'fails validation',
    applies: (s) => isString(s) && lengthProbes(s).length > 0,
    probes: (e) => lengthProbes(e.schema).map((p) => ({ ...p, expect: refused(e) })),
  },
  {
    id: 'NM-NUMERIC-LENIENT',
    family: 'constrained strings',
    appliesTo: 'every numeric string (a pattern of ASCII digits only), e.g. aiAgentId',
    verdict:
      'a sign, a fraction or a hexadecimal prefix is refused (400, or the 404 not-found code); a leading zero ' +
      'is refused, not found, or the same id: the reading taken is recorded',
    because:
      'CallCreate: aiAgentId is a "string (numeric)": "+70418" is not one; whether "070418" names 70418 is unshown',
    applies: isNumericString,
    probes: (e) => [
      { value: (v) => `+${v}`, what: 'a plus sign before the digits', expect: refused(e) },
      { value: (v) => `${v}.0`, what: 'a fraction ".0" after the digits', expect: refused(e) },
      { value: (v) => `0x${v}`, what: 'a 0x prefix', expect: refused(e) },
      { value: (v) => `0${v}`, what: 'a leading zero', expect: either(e) },
    ],
  },
  {
    id: 'NM-UUID-FORMS',
    family: 'constrained strings',
    appliesTo: 'every string of format uuid',
    verdict:
      'upper case is the same UUID; a urn:uuid: prefix is refused; 32 hex digits without hyphens is refused ' +
      'or the same UUID (recorded)',
    because: 'RFC 9562 §4: hex digits "are case insensitive on input"; its string form is 8-4-4-4-12 (§4)',
    applies: (s) => isString(s) && s.format === 'uuid',
    probes: (e) => [
      { value: upper, what: 'in upper case', expect: same(e) },
      { value: (v) => `urn:uuid:${v}`, what: 'with a urn:uuid: prefix', expect: refused(e) },
      { value: (v) => v.replaceAll('-', ''), what: 'without hyphens', expect: either(e) },
    ],
  },
  {
    id: 'NM-DATETIME-EQUIVALENT',
    family: 'constrained strings',
    appliesTo: 'every string of format date-time',
    verdict:
      'the same instant with a +00:00 or +05:30 offset or a zero fraction is the same value; lower-case t and z ' +
      'are the same value or refused (recorded)',
    because: 'RFC 3339 §5.6 (time-offset, time-secfrac); its note lets an application require upper-case T and Z',
    applies: (s) => isString(s) && s.format === 'date-time',
    probes: (e) => [
      { value: (v) => v.replace(/Z$/, '+00:00'), what: 'the offset +00:00 for Z', expect: same(e) },
      { value: (v) => withOffset(v, 330), what: 'the same instant at +05:30', expect: same(e) },
      { value: (v) => v.replace(/Z$/, '.000Z'), what: 'a zero fraction .000', expect: same(e) },
      { value: (v) => v.toLowerCase(), what: 'lower-case t and z', expect: either(e) },
    ],
  },
];

/** Every constrained-string probe of `doc`: each operator on each element it applies to. */
export function stringProbes(doc: Document): ValueProbe[] {
  return elementsOf(doc).flatMap((element) =>
    stringOperators
      .filter((op) => op.applies(element.schema))
      .flatMap((op) =>
        op.probes(element).map((probe) => ({
          ...probe,
          operator: op.id,
          element,
          mayBeAccepted: probe.expect.kind !== 'refused',
        })),
      ),
  );
}

/**
 * Elements whose constraint a hand-written pattern checks first (where `$`, `\d` and anchors slip),
 * then those a format parser checks, then enumerations.
 */
const elementRank = (schema: Schema) =>
  schema.pattern !== undefined ? 0 : schema.format !== undefined ? 1 : schema.enum !== undefined ? 2 : 3;

/**
 * The constrained-string probes ranked likeliest slip first, for the request budget: by operator in
 * the order of stringOperators (a `$` matching before a final newline, then trimming, Unicode
 * digits, a C string's NUL, enumeration case, length bounds, lenient numbers, UUID and date-time
 * forms), each operator's probes in their order, and within one probe the elements by elementRank,
 * each in the document's order.
 */
export function rankStrings(probes: readonly ValueProbe[]): ValueProbe[] {
  const elements = [...new Set(probes.map((p) => p.element.id))];
  const nth = occurrences(probes, (p) => `${p.operator} ${p.element.id}`);
  return rankedBy(probes, (p) => [
    stringOperators.findIndex((op) => op.id === p.operator),
    nth.get(p) ?? 0,
    elementRank(p.element.schema),
    elements.indexOf(p.element.id),
  ]);
}
