/**
 * Secret scrubbing for everything that can reach a log, a report or an error message.
 *
 * Two layers: the exact secrets the configuration knows (tokens, client secret, hook secrets
 * learnt during the run), and patterns that catch secrets we were never told about (any bearer
 * credential, any `whsec_` value, OAuth client secrets and access tokens in bodies).
 */

export const REDACTED = '[REDACTED]';

const patterns: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${REDACTED}`],
  [/whsec_[A-Za-z0-9+/=_\-.]+/g, `whsec_${REDACTED}`],
  [/("(?:client_secret|access_token|refresh_token|secret|password|sipPassword|token)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi, `$1"${REDACTED}"`],
  [/\b(client_secret|access_token|refresh_token)=[^&\s"]*/gi, `$1=${REDACTED}`],
];

export interface Redactor {
  /** Scrub one text. */
  (text: string): string;
  /** Learn a secret met during the run (a hook secret, an OAuth access token). */
  remember(secret: string): void;
}

export function createRedactor(knownSecrets: readonly string[] = []): Redactor {
  // Longest first, so a secret that contains another is scrubbed whole.
  const secrets = new Set<string>();
  let ordered: string[] = [];
  const remember = (secret: string): void => {
    if (secret.length < 4 || secrets.has(secret)) return;
    secrets.add(secret);
    ordered = [...secrets].sort((a, b) => b.length - a.length);
  };
  knownSecrets.forEach(remember);

  const redact = ((text: string): string => {
    let out = text;
    for (const secret of ordered) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    for (const [pattern, replacement] of patterns) out = out.replace(pattern, replacement);
    return out;
  }) as Redactor;
  redact.remember = remember;
  return redact;
}

const sensitiveHeaders = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-service-signature']);

/** Header values with credentials replaced; the scheme word of Authorization is kept for diagnosis. */
export function redactHeaders(headers: Readonly<Record<string, string>>, redact: Redactor): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower === 'proxy-authorization') {
      const scheme = /^\s*(\S+)\s+\S/.exec(value)?.[1];
      out[name] = scheme === undefined ? (value.trim() === '' ? value : REDACTED) : `${scheme} ${REDACTED}`;
    } else if (sensitiveHeaders.has(lower)) {
      out[name] = lower === 'x-service-signature' ? value.replace(/v1=[0-9a-fA-F]+/g, `v1=${REDACTED}`) : REDACTED;
    } else {
      out[name] = redact(value);
    }
  }
  return out;
}
