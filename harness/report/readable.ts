/**
 * Target text made safe to *show* (report.md, report.html, console lines), without changing
 * what it says: JSON and JUnit keep the exact text (each with its own escaping).
 *
 * - C0 control characters and DEL (ESC sequences that would drive a terminal, NUL that a
 *   Markdown or HTML reader silently turns into U+FFFD) become their Unicode control pictures
 *   (U+2400…U+2421), e.g. NUL → ␀; tab, line feed and carriage return stay.
 * - Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069), which can make a line
 *   read differently from what it holds, are written as [U+202E].
 * - Lone surrogates (a target's invalid UTF-8 decoded to a broken pair) become U+FFFD.
 */

const control = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;
const bidi = /[\u202A-\u202E\u2066-\u2069]/g;
/** Half of a surrogate pair standing alone (text a target's broken UTF-16 or UTF-8 left behind). */
export const LONE_SURROGATE = '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const loneSurrogate = new RegExp(LONE_SURROGATE, 'g');

export function readable(text: string): string {
  return text
    .replace(control, (c) => String.fromCharCode(c === '\u007F' ? 0x2421 : 0x2400 + c.charCodeAt(0)))
    .replace(bidi, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase()}]`)
    .replace(loneSurrogate, '\uFFFD');
}

/** A copy of plain data with every string (keys included) made readable. */
export function readableData<T>(value: T): T {
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return readable(node);
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [readable(key), walk(child)]));
    }
    return node;
  };
  return walk(value) as T;
}

/** At most `max` characters, never splitting a surrogate pair, saying how much was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}
