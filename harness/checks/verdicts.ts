/**
 * Small pure verdicts shared by the conformance suites, plus `expectError`, the one assertion
 * every error answer goes through (status, code, and the spec's error body in JSON).
 */
import { openapi } from '../../contract/openapi.ts';
import type { Exchange } from '../http/client.ts';
import type { CheckTools } from './check.ts';

/** application/json or any +json media type; parameters ignored. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** What is wrong with an error answer's body and content type (spec, Errors); empty when right. */
export function errorBodyProblems(exchange: Pick<Exchange, 'responseHeaders' | 'json' | 'rawBody'>): string[] {
  const problems: string[] = [];
  const type = exchange.responseHeaders['content-type'];
  if (!isJsonContentType(type)) problems.push(`content type is ${type ?? 'missing'}, must be application/json`);
  const body = exchange.json;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    problems.push(`body is ${JSON.stringify(exchange.rawBody.slice(0, 60))}, must be a JSON object {error, message?}`);
    return problems;
  }
  const { error, message } = body as { error?: unknown; message?: unknown };
  if (typeof error !== 'string' || error === '')
    problems.push(`error is ${JSON.stringify(error)}, must be a non-empty string code`);
  if (message !== undefined && typeof message !== 'string')
    problems.push(`message is ${JSON.stringify(message)}, must be a string when present`);
  return problems;
}

/** The status and code the spec requires, and an error body of the spec's shape. */
export function expectError(t: CheckTools, exchange: Exchange, status: number, code: string): void {
  t.expectStatus(exchange, status, code);
  const problems = errorBodyProblems(exchange);
  const path = new URL(exchange.url).pathname;
  t.ensure(
    problems.length === 0,
    `${exchange.method} ${path} answered ${status} ${code} but its error body breaks the spec: ${problems.join('; ')}`,
  );
}

/** The error code of an answer, for messages. */
export function codeOf(exchange: Exchange): string {
  const code = (exchange.json as { error?: unknown } | undefined)?.error;
  return `${exchange.status ?? 'no response'}${typeof code === 'string' ? ` ${code}` : ''}`;
}

/**
 * What is wrong with a CdrList's `count` (spec: "count (integer, required)", nothing more);
 * undefined when it holds under a reading the spec allows: the number of records returned, or,
 * when `limit` truncated the answer (calls holds exactly `limit`), the larger number of records
 * in the window.
 */
export function cdrCountProblem(
  list: { count: unknown; calls: readonly unknown[] },
  limit: number,
): string | undefined {
  const { count, calls } = list;
  if (typeof count !== 'number' || !Number.isInteger(count))
    return `count is ${JSON.stringify(count)}, must be an integer`;
  if (count === calls.length) return undefined;
  if (calls.length === limit && count > calls.length) return undefined;
  const holds = `count is ${count} but calls holds ${calls.length} records`;
  return calls.length === limit
    ? `${holds} (= limit): count must be the records returned or the larger total in the window`
    : `${holds}, fewer than limit ${limit}: count must equal the records returned`;
}

/** Which reading of `count` a target uses, for the observation (undefined when it cannot tell). */
export function cdrCountReading(
  list: { count: unknown; calls: readonly unknown[] },
  limit: number,
): string | undefined {
  if (list.calls.length !== limit) return undefined;
  return list.count === list.calls.length
    ? 'count is the number of records returned (limit reached)'
    : `count is the total in the window (${String(list.count)} for ${list.calls.length} returned)`;
}

/** Keys of `value` that components.schemas[schema] does not name (CONTRACT-UNKNOWN-FIELDS). */
export function extraFields(value: unknown, schema: keyof typeof openapi.components.schemas): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  const known = Object.keys(
    (openapi.components.schemas[schema] as { properties?: Record<string, unknown> }).properties ?? {},
  );
  return Object.keys(value).filter((key) => !known.includes(key));
}

/** Whether `instantMs` lies in the half-open window [fromMs, tillMs], widened by `slackMs` on both sides. */
export function isInsideWindow(instantMs: number, fromMs: number, tillMs: number, slackMs = 0): boolean {
  return Number.isFinite(instantMs) && instantMs >= fromMs - slackMs && instantMs <= tillMs + slackMs;
}

/** Attempt times → intervals, and the backoff rule (shared with the k6 webhook-retry probe). */
export { ARRIVAL_JITTER_MS, backoffReading, intervals, intervalsGrow } from './backoff.ts';

/** Values that occur more than once. */
export function duplicates<T>(values: readonly T[]): T[] {
  const seen = new Set<T>();
  const twice = new Set<T>();
  for (const value of values) (seen.has(value) ? twice : seen).add(value);
  return [...twice];
}

/** Sorted ascending (by the given key), for the order observations. */
export function orderOf(values: readonly number[]): 'ascending' | 'descending' | 'unordered' | 'single' {
  if (values.length < 2) return 'single';
  if (values.every((v, i) => i === 0 || v >= values[i - 1]!)) return 'ascending';
  if (values.every((v, i) => i === 0 || v <= values[i - 1]!)) return 'descending';
  return 'unordered';
}

/**
 * How many records a window holds at least, from one answer: its rows, or `count` when the target
 * reads count as the window's total (a reading the spec allows) and it says more.
 */
export function heldAtLeast(answer: { readonly count: unknown; readonly calls: readonly unknown[] }): number {
  return Math.max(answer.calls.length, Number.isInteger(answer.count) ? (answer.count as number) : 0);
}

/** What a limited answer must hold: exactly min(limit, held) rows. Undefined when it does. */
export function limitProblem(
  answer: { readonly count: unknown; readonly calls: readonly unknown[] },
  limit: number,
  held: number,
  what: string,
): string | undefined {
  const expected = Math.min(limit, held);
  return answer.calls.length === expected
    ? undefined
    : `GET /cdrs ${what} over a window holding at least ${held} records ` +
        `returned ${answer.calls.length}, must be exactly ${expected}`;
}
