/**
 * The verdict rules of near-miss operators, and the pure judge that applies one to an answer.
 *
 * - `refused`: one of the listed statuses, each with one of its documented codes;
 * - `same-value`: the answer the canonical form of the value gets (a standard declares the two
 *   equal): its status and error code, and for a safe read its body; or, where `or` lists
 *   refusals, one of those: the spec allows either reading;
 * - `json-if-body`: the status is the target's choice among HTTP's readings; any body it carries is
 *   JSON, an error body has a string `error`, and a HEAD answer has no body;
 * - `within`: 200 with at most `max` items in `list`, or one of the refusals in `or`.
 */

export interface Refusal {
  readonly status: number;
  /** The codes a conforming target may give with it; empty: any JSON error body. */
  readonly codes: readonly string[];
}

export type Expectation =
  | { readonly kind: 'refused'; readonly answers: readonly Refusal[] }
  | {
      readonly kind: 'same-value';
      readonly or?: readonly Refusal[];
      /** A safe read answers the same body; a creation answers the same status (its new id differs). */
      readonly sameBody?: boolean;
    }
  | { readonly kind: 'json-if-body'; readonly method: string }
  | { readonly kind: 'within'; readonly max: number; readonly list: string; readonly or: readonly Refusal[] };

/** What the judge reads of an HTTP answer. */
export interface Answer {
  readonly status: number | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly rawBody: string;
  readonly json: unknown;
}

export interface Judgement {
  readonly ok: boolean;
  /** Which reading the target took (e.g. "400 invalid_input", "the same value"), for the observation. */
  readonly reading: string;
  readonly problem?: string;
}

function codeOf(answer: Answer): string | undefined {
  const error = (answer.json as { error?: unknown } | undefined)?.error;
  return typeof error === 'string' ? error : undefined;
}

/** "400 invalid_input", "204", "no answer". */
export function describeAnswer(answer: Answer): string {
  if (answer.status === undefined) return 'no answer';
  const code = codeOf(answer);
  return code === undefined ? String(answer.status) : `${answer.status} ${code}`;
}

function matchesRefusal(answer: Answer, refusals: readonly Refusal[]): boolean {
  return refusals.some(
    (r) => answer.status === r.status && (r.codes.length === 0 || r.codes.includes(codeOf(answer) ?? '')),
  );
}

function describeRefusals(refusals: readonly Refusal[]): string {
  return refusals.map((r) => `${r.status}${r.codes.length === 0 ? '' : ` ${r.codes.join('|')}`}`).join(' or ');
}

function isJsonType(header: string | undefined): boolean {
  const type = header?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** Why a body an answer carries is not the spec's JSON (an error body: with a string `error`), or undefined. */
export function bodyProblem(answer: Answer, method: string): string | undefined {
  if (method === 'HEAD')
    return answer.rawBody === '' ? undefined : `a HEAD answer carries ${answer.rawBody.length} body bytes`;
  if (answer.rawBody === '') return undefined;
  const type = answer.headers['content-type'];
  if (!isJsonType(type)) return `the body is ${type ?? 'untyped'}, not JSON`;
  if (answer.json === undefined) return 'the body is not JSON';
  if ((answer.status ?? 0) >= 400 && codeOf(answer) === undefined) return 'the error body has no string `error`';
  return undefined;
}

/** A JSON value with every array in a canonical order: the spec gives no order to a list (CDRS-ORDER). */
function unordered(value: unknown): unknown {
  if (Array.isArray(value))
    return value.map(unordered).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unordered(v)]));
}

function sameBody(a: Answer, b: Answer): boolean {
  return JSON.stringify(unordered(a.json)) === JSON.stringify(unordered(b.json));
}

/** The verdict of `expectation` on `answer` (`canonical`: the answer to the canonical form, for same-value). */
export function judge(expectation: Expectation, answer: Answer, canonical?: Answer): Judgement {
  const got = describeAnswer(answer);
  if (answer.status === undefined) return { ok: false, reading: got, problem: 'no answer arrived' };
  switch (expectation.kind) {
    case 'refused': {
      const ok = matchesRefusal(answer, expectation.answers);
      return ok
        ? { ok, reading: got }
        : { ok, reading: got, problem: `expected ${describeRefusals(expectation.answers)}, got ${got}` };
    }
    case 'same-value': {
      if (canonical === undefined) throw new Error('same-value needs the canonical answer');
      const same =
        answer.status === canonical.status &&
        ((answer.status ?? 0) >= 300
          ? codeOf(answer) === codeOf(canonical)
          : expectation.sameBody !== true || sameBody(answer, canonical));
      if (same) return { ok: true, reading: 'the same value' };
      if (matchesRefusal(answer, expectation.or ?? [])) return { ok: true, reading: `refused: ${got}` };
      const alternatives = expectation.or === undefined ? '' : ` or ${describeRefusals(expectation.or)}`;
      return {
        ok: false,
        reading: got,
        problem: `expected the answer of the canonical form (${describeAnswer(canonical)}${
          (canonical.status ?? 0) < 300 && expectation.sameBody === true ? ', the same body' : ''
        })${alternatives}, got ${got}`,
      };
    }
    case 'json-if-body': {
      const problem = bodyProblem(answer, expectation.method);
      return problem === undefined ? { ok: true, reading: got } : { ok: false, reading: got, problem };
    }
    case 'within': {
      if (matchesRefusal(answer, expectation.or)) return { ok: true, reading: got };
      const items = (answer.json as Record<string, unknown> | undefined)?.[expectation.list];
      if (answer.status === 200 && Array.isArray(items))
        return items.length <= expectation.max
          ? { ok: true, reading: `200 with ${items.length} items` }
          : {
              ok: false,
              reading: `200 with ${items.length} items`,
              problem: `${items.length} items in ${expectation.list}, more than ${expectation.max}`,
            };
      const refusals = expectation.or.length === 0 ? '' : ` or ${describeRefusals(expectation.or)}`;
      return {
        ok: false,
        reading: got,
        problem: `expected 200 with a ${expectation.list} list${refusals}, got ${got}`,
      };
    }
  }
}
