/**
 * A ready `curl` command that replays one exchange, for the reports: each failing exchange
 * carries one. Secrets are never in it: a token or client secret the suite knows by the variable
 * that holds it is written as that variable (`"$TOKEN_READ_BALANCE"`), so the command runs as is
 * in a shell where the run's configuration (.env) is exported; any other secret the redactor knows
 * is redacted. Built from the raw exchange, where the values can still be recognised. Pure.
 */
import { tokenVariable, type TokenName } from '../config/tokens.ts';

/** Secret value → the environment variable that holds it (TOKEN_…, OAUTH_CLIENT_SECRET). */
export function secretVariables(
  tokens: Readonly<Partial<Record<TokenName, string>>>,
  oauth?: { readonly clientSecret: string } | undefined,
): Map<string, string> {
  const variables = new Map<string, string>();
  for (const [name, value] of Object.entries(tokens) as [TokenName, string | undefined][]) {
    if (value !== undefined && value !== '') variables.set(value, tokenVariable(name));
  }
  if (oauth !== undefined && oauth.clientSecret !== '') variables.set(oauth.clientSecret, 'OAUTH_CLIENT_SECRET');
  return variables;
}

/** Single-quoted for POSIX shells: nothing inside is expanded. */
function quoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * One shell word for `text`: the literal parts single-quoted (and redacted), each known secret
 * written as its variable in double quotes, all concatenated.
 */
function shellWord(text: string, variables: ReadonlyMap<string, string>, redact: (text: string) => string): string {
  const secrets = [...variables.keys()]
    .filter((s) => s.length > 0 && text.includes(s))
    .sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return quoted(redact(text));
  const parts: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    let at = -1;
    let found = '';
    for (const secret of secrets) {
      const i = rest.indexOf(secret);
      if (i !== -1 && (at === -1 || i < at)) {
        at = i;
        found = secret;
      }
    }
    if (at === -1) {
      parts.push(quoted(redact(rest)));
      break;
    }
    if (at > 0) parts.push(quoted(redact(rest.slice(0, at))));
    parts.push(`"$${variables.get(found)!}"`);
    rest = rest.slice(at + found.length);
  }
  return parts.join('');
}

export interface Replayable {
  readonly method: string;
  readonly url: string;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly requestBody: string | undefined;
}

/**
 * `curl -sS -i -X POST 'https://…/v1/calls' -H … --data-binary '…'`: prints the status line, headers and body.
 */
export function curlCommand(
  exchange: Replayable,
  variables: ReadonlyMap<string, string>,
  redact: (text: string) => string = (t) => t,
): string {
  const word = (text: string) => shellWord(text, variables, redact);
  const parts = ['curl', '-sS', '-i'];
  // HEAD through -X would wait for a body that never comes; -I asks for the head only.
  if (exchange.method === 'HEAD') parts.push('-I');
  else parts.push('-X', exchange.method);
  parts.push(word(exchange.url));
  for (const [name, value] of Object.entries(exchange.requestHeaders)) {
    // HTTP Basic (the OAuth client credentials): the secret is inside base64, so give curl the
    // pair with -u and let it encode, the secret as its variable.
    const basic = name.toLowerCase() === 'authorization' ? /^Basic ([A-Za-z0-9+/=]+)$/.exec(value) : null;
    const pair = basic === null ? undefined : Buffer.from(basic[1]!, 'base64').toString('utf8');
    if (pair?.includes(':')) parts.push('-u', word(pair));
    else parts.push('-H', word(`${name}: ${value}`));
  }
  if (exchange.requestBody !== undefined) parts.push('--data-binary', word(exchange.requestBody));
  return parts.join(' ');
}
