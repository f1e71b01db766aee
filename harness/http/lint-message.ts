/**
 * An exchange of the API client as the protocol lint reads it (contract/standards/message.ts):
 * which party answered (the API below the base URL, or the token endpoint of the auth host), the
 * field lines and octets that came back, and the methods the contract documents for the path. Pure.
 */
import { openapi } from '../../contract/openapi.ts';
import { matchPathTemplate } from '../../contract/validator.ts';
import type { BodyFacts, LintedMessage } from '../../contract/standards/message.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Paths = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** The methods a document (openapi.json) documents for a path below the base URL (upper case), or undefined. */
export function documentedMethodsOf(
  relativePath: string,
  paths: Paths = openapi.paths as unknown as Paths,
): string[] | undefined {
  const template = matchPathTemplate(relativePath, paths);
  if (template === undefined) return undefined;
  const item = paths[template] ?? {};
  return Object.keys(item)
    .filter((key) => METHODS.includes(key))
    .map((key) => key.toUpperCase());
}

/** Field lines from a header object whose repeated names hold arrays (undici's). */
export function fieldLinesOf(headers: Record<string, string | string[] | undefined>): Array<[string, string]> {
  return Object.entries(headers).flatMap(([name, value]) =>
    value === undefined
      ? []
      : (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name.toLowerCase(), v]),
  );
}

export function lintedExchange(
  baseUrl: string,
  request: { url: URL; method: string; headers: Record<string, string> },
  answer: { status: number; fields: ReadonlyArray<readonly [string, string]>; body: BodyFacts },
): LintedMessage {
  const base = new URL(baseUrl);
  const below = request.url.origin === base.origin && request.url.pathname.startsWith(base.pathname);
  const relative = below ? request.url.pathname.slice(base.pathname.replace(/\/+$/, '').length) : undefined;
  const token = !below && request.method === 'POST' && /\/oauth\/token\/?$/.test(request.url.pathname);
  const documentedMethods = relative === undefined ? undefined : documentedMethodsOf(relative);
  const template = relative === undefined ? undefined : matchPathTemplate(relative);
  const operation = documentedMethods?.includes(request.method) ? `${request.method} ${template}` : undefined;
  return {
    channel: token ? 'token' : 'api',
    method: request.method,
    path: request.url.pathname,
    requestHeaders: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v])),
    status: answer.status,
    fields: answer.fields,
    body: answer.body,
    ...(documentedMethods ? { documentedMethods } : {}),
    ...(operation ? { operation } : {}),
  };
}
