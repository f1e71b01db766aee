/**
 * The ABNF of the standards, as the lint's rules need it: RFC 9110 §5.6 (tokens, quoted strings,
 * lists), §8.3.1 (media types), §5.6.7 (IMF-fixdate), §8.8.3 (entity tags), §11.6.1 (challenges);
 * RFC 3986 §4.1 (URI-reference, its characters); RFC 6749 Appendix A (VSCHAR, NQCHAR, NQSCHAR).
 * Pure.
 */

/** RFC 9110 §5.6.2: token = 1*tchar. */
export const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
/** RFC 9110 §5.6.4: quoted-string, with quoted-pair. */
export const QUOTED = '"(?:[\\t \\x21\\x23-\\x5B\\x5D-\\x7E\\x80-\\xFF]|\\\\[\\t \\x20-\\x7E\\x80-\\xFF])*"';
const OWS = '[ \\t]*';

const anchored = (source: string) => new RegExp(`^${source}$`);
const tokenRe = anchored(TOKEN);

export const isToken = (value: string): boolean => tokenRe.test(value);

/** RFC 9110 §8.3.1: media-type = type "/" subtype parameters; parameters = *( OWS ";" OWS [ parameter ] ). */
const mediaTypeRe = anchored(`${TOKEN}/${TOKEN}(?:${OWS};${OWS}(?:${TOKEN}=(?:${TOKEN}|${QUOTED}))?)*`);
export const isMediaType = (value: string): boolean => mediaTypeRe.test(value);

/** RFC 9110 §5.6.1: #element lists of tokens (Allow = #method), empty elements allowed. */
const tokenListRe = anchored(`(?:${TOKEN})?(?:${OWS},${OWS}(?:${TOKEN})?)*`);
export const isTokenList = (value: string): boolean => tokenListRe.test(value);

/** The tokens of a #token list. */
export const tokensOf = (value: string): string[] =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const fixdateRe = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;

/**
 * RFC 9110 §5.6.7: IMF-fixdate = day-name "," SP date1 SP time-of-day SP GMT, a real date whose
 * day-name is its day of the week (second 60 allowed: a leap second). The epoch ms, or undefined.
 */
export function imfFixdate(value: string): number | undefined {
  const m = fixdateRe.exec(value);
  if (!m) return undefined;
  const [, day, dd, mon, yyyy, hh, mi, ss] = m as unknown as string[];
  const month = MONTHS.indexOf(mon!);
  if (month < 0 || Number(hh) > 23 || Number(mi) > 59 || Number(ss) > 60) return undefined;
  const ms = Date.UTC(Number(yyyy), month, Number(dd), Number(hh), Number(mi), Math.min(Number(ss), 59));
  const date = new Date(ms);
  if (date.getUTCDate() !== Number(dd) || date.getUTCMonth() !== month) return undefined;
  return DAYS[date.getUTCDay()] === day ? ms : undefined;
}

/** RFC 3986 §4.1: URI-reference, by its characters: unreserved, reserved, pct-encoded, nothing else. */
const uriReferenceRe = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
export const isUriReference = (value: string): boolean => uriReferenceRe.test(value);

/** RFC 9110 §8.8.3: entity-tag = [ weak ] opaque-tag; opaque-tag = DQUOTE *etagc DQUOTE. */
const entityTagRe = /^(?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*"$/;
export const isEntityTag = (value: string): boolean => entityTagRe.test(value);

/** RFC 6749 Appendix A: VSCHAR = %x20-7E; NQCHAR = %x21 / %x23-5B / %x5D-7E; NQSCHAR = %x20-21 / %x23-5B / %x5D-7E. */
export const isVschars = (value: string): boolean => /^[\x20-\x7E]+$/.test(value);
export const isNqchars = (value: string): boolean => /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(value);
export const isNqschars = (value: string): boolean => /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/.test(value);

export interface Challenge {
  /** As sent; compare case-insensitively (RFC 9110 §11.1). */
  readonly scheme: string;
  readonly token68?: string;
  /** auth-params, names lower-cased, values unquoted. */
  readonly params: ReadonlyArray<readonly [string, string]>;
}

const unquote = (value: string) => (value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value);
const paramAt = new RegExp(`^(${TOKEN})${OWS}=${OWS}(${TOKEN}|${QUOTED})`);
const token68At = /^[A-Za-z0-9\-._~+/]+=*(?=[ \t]*(?:,|$))/;
const schemeAt = new RegExp(`^(${TOKEN})`);

/**
 * RFC 9110 §11.6.1: WWW-Authenticate = #challenge; challenge = auth-scheme [ 1*SP ( token68 /
 * #auth-param ) ]. The challenges of a field value, or a string saying where it stops parsing.
 */
export function parseChallenges(value: string): Challenge[] | string {
  const challenges: Challenge[] = [];
  let rest = value;
  const skip = (re: RegExp) => {
    rest = rest.replace(re, '');
  };
  while (true) {
    skip(/^[ \t,]*/);
    if (rest === '') return challenges.length > 0 ? challenges : 'no challenge';
    const scheme = schemeAt.exec(rest)?.[1];
    if (scheme === undefined) return `no auth-scheme at "${rest.slice(0, 40)}"`;
    rest = rest.slice(scheme.length);
    const params: Array<readonly [string, string]> = [];
    if (/^ +/.test(rest) && !/^ +,/.test(rest)) {
      skip(/^ +/);
      const t68 = token68At.exec(rest)?.[0];
      if (t68 !== undefined && !paramAt.test(rest)) {
        rest = rest.slice(t68.length);
        challenges.push({ scheme, token68: t68, params });
        continue;
      }
      while (true) {
        const param = paramAt.exec(rest);
        if (!param) return `no auth-param at "${rest.slice(0, 40)}"`;
        params.push([param[1]!.toLowerCase(), unquote(param[2]!)]);
        rest = rest.slice(param[0].length);
        const next = /^[ \t]*,[ \t]*/.exec(rest);
        if (!next || !paramAt.test(rest.slice(next[0].length))) break;
        rest = rest.slice(next[0].length);
      }
    }
    challenges.push({ scheme, params });
    if (!/^[ \t]*(,|$)/.test(rest)) return `unexpected "${rest.slice(0, 40)}" after a challenge`;
  }
}

/**
 * The member names an object of a JSON text repeats (RFC 8259 §4), e.g. ["error"]; [] when none or
 * when the text is not JSON. A scanner of strings and brackets, no parse.
 */
export function repeatedNames(text: string): string[] {
  const repeated = new Set<string>();
  const stack: Array<Set<string> | undefined> = [];
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') {
      stack.push(new Set());
      expectName = true;
    } else if (c === '[') {
      stack.push(undefined);
      expectName = false;
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectName = false;
    } else if (c === ',') expectName = stack.at(-1) !== undefined;
    else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const names = stack.at(-1);
      if (expectName && names) {
        let name: string;
        try {
          name = JSON.parse(text.slice(i, j + 1)) as string;
        } catch {
          return [];
        }
        if (names.has(name)) repeated.add(name);
        names.add(name);
      }
      expectName = false;
      i = j;
    }
  }
  return [...repeated];
}
