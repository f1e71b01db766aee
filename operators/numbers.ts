/**
 * Near misses of bounded numbers: every integer or number parameter and body field of openapi.json
 * with a minimum or maximum gets 0, −1, each bound ±1, non-integers, exponent forms and a huge
 * value. A value inside the bounds is honoured; one outside is refused with a documented 400 code,
 * or, where the spec leaves that answer unshown (x-unspecified), answered as the target chooses
 * within the bound: a maximum on the items a list returns is never exceeded, so a value read as
 * "no limit" fails. Pure.
 */
import { elementsOf, isNumeric, resolve, type Document, type Element, type Schema } from './document.ts';
import type { Expectation, Refusal } from './expectation.ts';
import { occurrences, rankedBy, type OperatorInfo, type ValueProbe } from './operator.ts';

/** The array property of an operation's 200 body (the list a `limit` bounds), or undefined. */
export function listOf(doc: Document, element: Element): string | undefined {
  const op = doc.paths[element.operation.path]![element.operation.method.toLowerCase()] as {
    responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  };
  const schema = resolve(doc, op.responses?.['200']?.content?.['application/json']?.schema);
  return Object.entries(schema.properties ?? {}).find(([, s]) => resolve(doc, s).type === 'array')?.[0];
}

export function isBounded(schema: Schema): boolean {
  return isNumeric(schema) && (schema.minimum !== undefined || schema.maximum !== undefined);
}

function outside(doc: Document, element: Element): Expectation {
  const refusals: Refusal[] = [{ status: 400, codes: element.operation.errorCodes['400'] ?? [] }];
  const list = listOf(doc, element);
  // Unshown answer: clamping, the default or a refusal are all readings; more items than the maximum never is.
  if (element.unspecified && list !== undefined && element.schema.maximum !== undefined)
    return { kind: 'within', max: element.schema.maximum, list, or: refusals };
  return { kind: 'refused', answers: refusals };
}

function inside(doc: Document, element: Element, value: number): Expectation {
  const list = listOf(doc, element);
  if (list !== undefined) return { kind: 'within', max: value, list, or: [] };
  return { kind: 'same-value', sameBody: element.operation.method === 'GET' };
}

export const numberOperators: readonly OperatorInfo[] = [
  {
    id: 'NM-NUMBER-BOUNDS',
    family: 'numbers',
    appliesTo: 'every integer or number with a minimum or maximum (GET /cdrs limit)',
    verdict:
      'each bound and the value next to it inside are honoured (a list holds at most that many items); each ' +
      'bound ±1 outside, 0 and −1 are refused with a documented 400, or, where the answer is unshown, answered ' +
      'with at most the maximum: "no limit" fails',
    because: 'GET /cdrs: limit "minimum 1, maximum 1000"; Limits: "CDR rows per request … maximum 1000"',
  },
  {
    id: 'NM-NUMBER-FORMS',
    family: 'numbers',
    appliesTo: 'every integer with a minimum or maximum',
    verdict:
      'a fraction, an exponent form (1e2, one over the maximum as 1e4), hexadecimal, values past 32 bits and ' +
      'a huge value are ' +
      'refused with a ' +
      'documented 400, or answered with at most the maximum where the answer is unshown',
    because: 'limit is an "integer", maximum 1000: a lenient parse must not lift the cap',
  },
];

interface Candidate {
  readonly operator: string;
  readonly value: string;
  readonly what: string;
  readonly within?: number;
}

/** The bound probes of one schema, ranked likeliest slip first: the cap ±1, then values read as "no limit". */
export function boundCandidates(schema: Schema): Candidate[] {
  const { minimum: min, maximum: max } = schema;
  const out: Candidate[] = [];
  const bound = (value: number, what: string, ok: boolean) =>
    out.push({ operator: 'NM-NUMBER-BOUNDS', value: String(value), what, ...(ok ? { within: value } : {}) });
  if (max !== undefined) {
    bound(max + 1, `${max + 1} (maximum + 1)`, false);
    bound(max, `${max} (the maximum)`, true);
    bound(max - 1, `${max - 1} (maximum − 1)`, true);
  }
  if (min !== undefined) {
    bound(min - 1, `${min - 1} (minimum − 1)`, false);
    bound(min, `${min} (the minimum)`, true);
    bound(min + 1, `${min + 1} (minimum + 1)`, true);
  }
  for (const [value, what] of [
    [0, '0'],
    [-1, '−1'],
  ] as const)
    if (!out.some((c) => c.value === String(value)) && (min ?? -Infinity) > value) bound(value, what, false);
  if (schema.type === 'integer') {
    const over = max === undefined ? undefined : `1e${String(max).length}`;
    out.push({ operator: 'NM-NUMBER-FORMS', value: '1.5', what: '1.5 (not an integer)' });
    out.push({ operator: 'NM-NUMBER-FORMS', value: '1e2', what: '1e2 (an exponent form)' });
    if (over !== undefined) out.push({ operator: 'NM-NUMBER-FORMS', value: over, what: `${over} (over the maximum)` });
    if (max !== undefined) {
      out.push({ operator: 'NM-NUMBER-FORMS', value: `${max + 1}.0`, what: `${max + 1}.0 (over it, a fraction)` });
      const hex = `0x${(max + 1).toString(16)}`;
      out.push({ operator: 'NM-NUMBER-FORMS', value: hex, what: `${hex} (over it, in hexadecimal)` });
    }
    // Past 32 bits: a cast to a signed 32-bit integer reads 2^31 as negative and 2^32 − 1 as −1.
    if (max === undefined || max < 2 ** 31) {
      const past = (value: number, what: string) =>
        out.push({ operator: 'NM-NUMBER-FORMS', value: String(value), what });
      past(2 ** 31, '2^31 (negative as a 32-bit integer)');
      past(2 ** 32 - 1, '2^32 − 1 (−1 as a 32-bit integer)');
    }
    out.push({ operator: 'NM-NUMBER-FORMS', value: '9'.repeat(20), what: 'twenty 9s (beyond 64 bits)' });
  }
  return out;
}

/** Every bounded-number probe of `doc`. */
export function numberProbes(doc: Document): ValueProbe[] {
  return elementsOf(doc)
    .filter((element) => isBounded(element.schema))
    .flatMap((element) =>
      boundCandidates(element.schema).map((c) => {
        const expect = c.within === undefined ? outside(doc, element) : inside(doc, element, c.within);
        return {
          operator: c.operator,
          element,
          value: () => c.value,
          what: c.what,
          expect,
          mayBeAccepted: expect.kind !== 'refused',
        };
      }),
    );
}

/**
 * The bounded-number probes ranked likeliest slip first, for the request budget: each element's
 * candidates in boundCandidates' order (a missing or off-by-one cap first, then values a lenient
 * parse reads as "no limit"), the n-th candidate of every element before the (n+1)-th of any.
 */
export function rankNumbers(probes: readonly ValueProbe[]): ValueProbe[] {
  const elements = [...new Set(probes.map((p) => p.element.id))];
  const nth = occurrences(probes, (p) => p.element.id);
  return rankedBy(probes, (p) => [nth.get(p) ?? 0, elements.indexOf(p.element.id)]);
}
