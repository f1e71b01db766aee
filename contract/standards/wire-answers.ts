/**
 * The answers one connection carried, read off its bytes (RFC 9112 §6.3, the message body length):
 * interim (1xx) answers, each ended by its header section; final answers, each ended by its
 * Content-Length, by the zero-size chunk and its trailer section, at its header section (a 1xx, 204
 * or 304, or an answer to HEAD), or by the close (neither given). What a client library hides (an
 * interim answer it skips, a second answer on a connection it thought closed) shows here. Pure.
 */

export interface WireHead {
  /** The status line's version, e.g. "HTTP/1.1". */
  readonly version: string;
  readonly status: number;
  /** Field lines, names lower-cased, a repeated name once per line. */
  readonly fields: ReadonlyArray<readonly [string, string]>;
}

export interface WireAnswers {
  /** Interim answers, in order (before any final one). */
  readonly interim: readonly WireHead[];
  /** Final answers that ended within the bytes (or at their close, when delimited by it). */
  readonly finals: readonly WireHead[];
  /** Whether the bytes end inside an answer (one begun, not yet whole). */
  readonly partial: boolean;
}

function headOf(text: string): WireHead | undefined {
  const [line = '', ...lines] = text.split('\r\n');
  const m = /^(HTTP\/[0-9.]+) ([0-9]{3})/.exec(line);
  if (m === null) return undefined;
  const fields = lines.flatMap((l): Array<[string, string]> => {
    const colon = l.indexOf(':');
    return colon > 0 ? [[l.slice(0, colon).trim().toLowerCase(), l.slice(colon + 1).trim()]] : [];
  });
  return { version: m[1]!, status: Number(m[2]), fields };
}

const field = (head: WireHead, name: string) => head.fields.find(([n]) => n === name)?.[1];

/** Where a chunked body that starts at `at` ends (after its trailer section), or -1 while it has not. */
function chunkedEnd(bytes: Buffer, at: number): number {
  let p = at;
  for (;;) {
    const line = bytes.indexOf('\r\n', p);
    if (line < 0) return -1;
    const size = Number.parseInt(bytes.subarray(p, line).toString('latin1').split(';', 1)[0]!.trim(), 16);
    if (!Number.isFinite(size)) return -1;
    if (size === 0) {
      // "0" CRLF, the trailer section, CRLF: the first empty line from the size line's own CRLF on.
      const end = bytes.indexOf('\r\n\r\n', line);
      return end < 0 ? -1 : end + 4;
    }
    p = line + 2 + size + 2;
    if (p > bytes.length) return -1;
  }
}

/**
 * The answers in `bytes`, read as answers to requests of `method` (HEAD: no content follows);
 * `closed`: the server closed the connection after them (an answer delimited by the close is whole).
 */
export function wireAnswers(bytes: Buffer, method: string, closed: boolean): WireAnswers {
  const interim: WireHead[] = [];
  const finals: WireHead[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf('\r\n\r\n', at);
    const head = end < 0 ? undefined : headOf(bytes.subarray(at, end).toString('latin1'));
    if (head === undefined) return { interim, finals, partial: true };
    let next = end + 4;
    if (head.status < 200) {
      interim.push(head);
      at = next;
      continue;
    }
    const length = field(head, 'content-length');
    const chunked = /(^|,)\s*chunked\s*$/i.test(field(head, 'transfer-encoding') ?? '');
    if (method === 'HEAD' || head.status === 204 || head.status === 304) next = end + 4;
    else if (chunked) next = chunkedEnd(bytes, end + 4);
    else if (length !== undefined && /^[0-9]+$/.test(length)) next = end + 4 + Number(length);
    else next = closed ? bytes.length : -1;
    if (next < 0 || next > bytes.length) return { interim, finals, partial: true };
    finals.push(head);
    at = next;
  }
  return { interim, finals, partial: false };
}
