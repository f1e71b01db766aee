/**
 * Redaction of values, by what they are, before anything is serialised.
 *
 * - Known secret values: the configured tokens and client secret, control/receiver tokens, and
 *   the secrets the run meets (OAuth access tokens, `whsec_` hook secrets from POST /hooks)
 *   are replaced wherever they occur inside a value.
 * - A `whsec_…` value is a secret by what it is, wherever it occurs.
 * - Credential headers (Authorization, Proxy-Authorization, Cookie, Set-Cookie, API-key
 *   headers) by name; the Authorization scheme word stays for diagnosis.
 * - Credential fields of bodies by structure: JSON bodies are parsed, the values of fields
 *   such as `secret`, `access_token`, `client_secret` replaced, and the body re-serialised;
 *   form bodies and query strings likewise by parameter name.
 *
 * There is deliberately no pattern over prose: a check name such as "a Basic scheme carrying a
 * valid token" or a target's `error_description` passes through unchanged unless it contains
 * an actual secret value. Pure JavaScript (no Node APIs), so the k6 probes can use it too.
 */

export const REDACTED = '[REDACTED]';

/** Field and parameter names whose values are credentials (compared lower-case, `-` as `_`). */
const credentialFields = new Set([
  'secret',
  'client_secret',
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'password',
  'passwd',
  'api_key',
  'apikey',
  'client_assertion',
  'sip_password',
  'sippassword',
  'signing_secret',
  'webhook_secret',
]);

/** Headers whose whole value is a credential. */
const credentialHeaders = new Set(['cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-auth-token']);
const schemeHeaders = new Set(['authorization', 'proxy-authorization']);

/** A `whsec_` value: the prefix and the characters a base64 or URL-safe secret is made of. */
const hookSecretValue = /whsec_[A-Za-z0-9+/=_\-.]+/g;

/** Values shorter than this are never learnt from a response: too likely to be ordinary words. */
const MIN_LEARNT_LENGTH = 8;
/** Configured secrets shorter than this are not scrubbed as substrings (they would eat prose). */
const MIN_KNOWN_LENGTH = 4;

/** Field names seen so far and whether each is a credential: bodies repeat the same few names (every CDR row). */
const credentialFieldMemo = new Map<string, boolean>();
const MEMO_LIMIT = 10_000;

export function isCredentialField(name: string): boolean {
  let known = credentialFieldMemo.get(name);
  if (known === undefined) {
    known = credentialFields.has(name.toLowerCase().replace(/-/g, '_'));
    if (credentialFieldMemo.size < MEMO_LIMIT) credentialFieldMemo.set(name, known);
  }
  return known;
}

export interface Redactor {
  /** One text value (a message, an observation, a header value) with every secret value in it replaced. */
  (text: string): string;
  /** Learn a secret met during the run (a hook secret, an OAuth access token, a minted token). */
  remember(secret: string): void;
  /** Headers with credential headers replaced by name and secrets replaced in the others. */
  headers(headers: Readonly<Record<string, string>>): Record<string, string>;
  /** A body: JSON and form bodies by structure, anything else as text. */
  body(body: string, contentType?: string): string;
  /** A URL with credential query parameters and secret values replaced. */
  url(url: string): string;
  /** A parsed JSON value (or any plain data): credential fields by name, every string as text. */
  value<T>(value: T): T;
  /** Learn a value that is a secret only if it is not a short, ordinary word (a token the suite sends). */
  learn(value: string): void;
  /** Learn the credential fields of a parsed response (hook secrets, access tokens). */
  learnFrom(value: unknown): void;
}

export function createRedactor(knownSecrets: Iterable<string | undefined> = []): Redactor {
  // Longest first, so a secret that contains another is replaced whole.
  const secrets = new Set<string>();
  let ordered: string[] = [];
  /** Length of the shortest secret: a shorter text can't hold one (most values of a body are short). */
  let shortest = Infinity;
  const add = (secret: string, minLength: number): void => {
    if (secret.length < minLength || secrets.has(secret)) return;
    secrets.add(secret);
    ordered = [...secrets].sort((a, b) => b.length - a.length);
    shortest = Math.min(shortest, secret.length);
  };
  for (const secret of knownSecrets) if (secret !== undefined) add(secret, MIN_KNOWN_LENGTH);

  const text = (value: string): string => {
    let out = value;
    if (value.length >= shortest)
      for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out.includes('whsec_') ? out.replace(hookSecretValue, `whsec_${REDACTED}`) : out;
  };

  const value = <T>(input: T): T => {
    const walk = (node: unknown): unknown => {
      if (typeof node === 'string') return text(node);
      if (Array.isArray(node)) return node.map(walk);
      if (node !== null && typeof node === 'object') {
        // fromEntries makes own properties, so a key such as "__proto__" stays a plain field.
        return Object.fromEntries(
          Object.entries(node).map(([key, child]) => [
            text(key),
            isCredentialField(key) && child !== null && child !== undefined && child !== '' ? REDACTED : walk(child),
          ]),
        );
      }
      return node;
    };
    return walk(input) as T;
  };

  const learnFrom = (input: unknown): void => {
    const walk = (node: unknown, depth: number): void => {
      if (depth > 8 || node === null || typeof node !== 'object') return;
      for (const [key, child] of Object.entries(node)) {
        if (typeof child === 'string' && isCredentialField(key)) add(child, MIN_LEARNT_LENGTH);
        else walk(child, depth + 1);
      }
    };
    walk(input, 0);
  };

  const form = (body: string): string =>
    body
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        const name = eq < 0 ? pair : pair.slice(0, eq);
        return eq >= 0 && isCredentialField(decodeComponent(name)) ? `${text(name)}=${REDACTED}` : text(pair);
      })
      .join('&');

  const redactor = text as Redactor;
  redactor.remember = (secret) => add(secret, MIN_KNOWN_LENGTH);
  redactor.learn = (secret) => add(secret, MIN_LEARNT_LENGTH);
  redactor.learnFrom = learnFrom;
  redactor.value = value;
  redactor.headers = (headers) =>
    Object.fromEntries(
      Object.entries(headers).map(([name, headerValue]) => {
        const lower = name.toLowerCase();
        if (schemeHeaders.has(lower)) {
          const scheme = /^\s*(\S+)\s+\S/.exec(headerValue)?.[1];
          return [
            text(name),
            scheme === undefined ? (headerValue.trim() === '' ? headerValue : REDACTED) : `${text(scheme)} ${REDACTED}`,
          ];
        }
        return [text(name), credentialHeaders.has(lower) ? REDACTED : text(headerValue)];
      }),
    );
  redactor.body = (body, contentType) => {
    const type = (contentType ?? '').toLowerCase();
    if (type.includes('application/x-www-form-urlencoded')) return form(body);
    const trimmed = body.trimStart();
    if (type.includes('json') || trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        return JSON.stringify(value(JSON.parse(body) as unknown));
      } catch {
        // not JSON after all: a text like any other
      }
    }
    return text(body);
  };
  redactor.url = (url) => {
    const q = url.indexOf('?');
    if (q < 0) return text(url);
    const hash = url.indexOf('#', q);
    const query = hash < 0 ? url.slice(q + 1) : url.slice(q + 1, hash);
    return `${text(url.slice(0, q))}?${form(query)}${hash < 0 ? '' : text(url.slice(hash))}`;
  };
  return redactor;
}

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
