/**
 * Near-miss family "framing" (NM-FRAMING): "a successful hook deletion returns no body" and a 204
 * carries none on the wire (RFC 9110 §15.3.5: a 204 response cannot contain content; RFC 9112
 * §6.3: it ends at the header section). A client library hides bytes after a 204's header section
 * (it reads them as garbage or as the next response), so the verdict reads the raw bytes.
 *
 * Applied to every answer of openapi.json documented without content (DELETE /hooks/{id} 204) and
 * to every answer's Content-Length, which must agree with the bytes that follow.
 */
import { openapi } from '../contract/openapi.ts';

export interface BodilessAnswer {
  readonly method: string;
  readonly path: string;
  readonly status: string;
}

type Doc = { paths: Record<string, Record<string, { responses?: Record<string, { content?: unknown }> }>> };

/** Every documented answer without content (a 2xx the document gives no `content`). */
export function bodilessAnswers(doc: Doc = openapi as unknown as Doc): BodilessAnswer[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) =>
      Object.entries(op.responses ?? {})
        .filter(([status, response]) => status.startsWith('2') && response.content === undefined)
        .map(([status]) => ({ method: method.toUpperCase(), path, status })),
    ),
  );
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Every byte that followed the header section until the connection closed. */
  readonly after: Buffer;
}

/** Parses the raw bytes of one HTTP/1.1 response read until the server closed the connection. */
export function parseRaw(bytes: Buffer): RawResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, after: bytes.subarray(end + 4) };
}

/**
 * The framing problems of a raw answer to a request that asked for `Connection: close`: a
 * bodiless status with bytes after its header section, a Content-Length other than the bytes sent.
 */
export function framingProblems(raw: RawResponse): string[] {
  const problems: string[] = [];
  const bodiless = raw.status === 204 || raw.status === 304 || (raw.status >= 100 && raw.status < 200);
  if (bodiless && raw.after.length > 0)
    problems.push(`a ${raw.status} answer carried ${raw.after.length} body bytes on the wire, must carry none`);
  const declared = raw.headers['content-length'];
  if (declared !== undefined && raw.headers['transfer-encoding'] === undefined) {
    if (bodiless && declared !== '0')
      problems.push(`a ${raw.status} answer declared Content-Length: ${declared}; it has no content`);
    else if (!bodiless && Number(declared) !== raw.after.length)
      problems.push(`Content-Length: ${declared} but ${raw.after.length} bytes followed the header section`);
  }
  return problems;
}
