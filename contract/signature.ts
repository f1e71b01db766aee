/**
 * The one signer and verifier of the webhook signature scheme of the Outbound Calling API v1
 * (spec, Events › Delivery rules):
 *
 *   X-Service-Signature: t=<unix_timestamp>,v1=<hex_hmac_sha256>
 *   signed input = `${t}.` followed by the raw request body bytes
 *   key          = the secret exactly as POST /hooks returned it (`whsec_` prefix included, UTF-8)
 *
 * Decisions the spec leaves open, made here once so every suite agrees:
 * - Header grammar: comma-separated `key=value` parts, optional whitespace around each part.
 *   Parts in any order; unknown schemes (`v0=`, `v2=`…) are ignored; several `v1` are allowed
 *   (secret rotation) and ANY match suffices. Refused: empty header, a part without `=` or with
 *   an empty key (this includes empty parts such as a trailing comma), no `t`, more than one `t`,
 *   a `t` that is not a plain non-negative decimal integer (no sign, no fraction, no exponent,
 *   at most 15 digits so it stays a safe integer), no `v1`, a `v1` that is not exactly 64 hex chars.
 * - Hex case: `v1` is accepted in lower OR upper case (hex is case-insensitive; the comparison
 *   is over the 32 decoded bytes). We always emit lower case, as the spec's example does.
 * - Tolerance: |now - t| <= tolerance is accepted, so a timestamp too far in the future is
 *   refused as well as a stale one (Stripe only checks the past; we are stricter on purpose:
 *   a future timestamp would let a captured delivery be replayed for longer).
 * - Order of checks: header shape, then signature, then timestamp. A delivery refused as
 *   `timestamp_outside_tolerance` is therefore authentic but stale/early (a replay or clock
 *   skew), which tells a tester something different from a wrong secret.
 * - `missing_header` covers both an absent header and an empty/blank value.
 * No message produced here ever contains the secret.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SIGNATURE_SCHEME = 'v1';
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const UNIX_SECONDS = /^[0-9]{1,15}$/;
const PART_KEY = /^[^\s=,]+$/;

export type ParsedSignatureHeader =
  | { ok: true; timestamp: number; signatures: string[] }
  | { ok: false; reason: string };

export type VerifyFailureReason =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_outside_tolerance'
  | 'signature_mismatch';

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: VerifyFailureReason; detail: string };

export interface VerifyInput {
  header: string | undefined;
  rawBody: string | Uint8Array;
  secret: string;
  toleranceSeconds?: number;
  nowSeconds?: number;
}

/** HMAC-SHA256 over `${t}.` + body, fed in two updates so the body is never copied. */
function computeDigest(secret: string, timestampSeconds: number, rawBody: string | Uint8Array): Buffer {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestampSeconds}.`, 'utf8');
  if (typeof rawBody === 'string') hmac.update(rawBody, 'utf8');
  else hmac.update(rawBody);
  return hmac.digest();
}

function assertUnixSeconds(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${what} must be a non-negative integer number of seconds, got ${String(value)}`);
  }
}

/** The header value a sender puts in X-Service-Signature. */
export function signPayload(secret: string, timestampSeconds: number, rawBody: string | Uint8Array): string {
  assertUnixSeconds(timestampSeconds, 'timestampSeconds');
  const digest = computeDigest(secret, timestampSeconds, rawBody).toString('hex');
  return `t=${timestampSeconds},${SIGNATURE_SCHEME}=${digest}`;
}

/** Shape check only; says nothing about authenticity. Signatures are returned lower-cased. */
export function parseSignatureHeader(header: string): ParsedSignatureHeader {
  if (typeof header !== 'string' || header.trim() === '') return { ok: false, reason: 'the header is empty' };
  let timestamp: number | undefined;
  const signatures: string[] = [];
  const parts = header.split(',');
  for (let i = 0; i < parts.length; i++) {
    const part = (parts[i] as string).trim();
    const eq = part.indexOf('=');
    if (eq <= 0) return { ok: false, reason: `part ${i + 1} is not of the form key=value` };
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (!PART_KEY.test(key)) return { ok: false, reason: `part ${i + 1} has an invalid key` };
    if (key === 't') {
      if (timestamp !== undefined) return { ok: false, reason: 'the header has more than one t= part' };
      if (!UNIX_SECONDS.test(value)) return { ok: false, reason: 't= is not a non-negative integer of unix seconds' };
      timestamp = Number(value);
    } else if (key === SIGNATURE_SCHEME) {
      if (!HEX_SHA256.test(value)) return { ok: false, reason: 'a v1= value is not 64 hexadecimal characters' };
      signatures.push(value.toLowerCase());
    }
    // Any other key is another scheme or a future extension: ignored on purpose.
  }
  if (timestamp === undefined) return { ok: false, reason: 'the header has no t= part' };
  if (signatures.length === 0) return { ok: false, reason: 'the header has no v1= signature' };
  return { ok: true, timestamp, signatures };
}

/**
 * Which part of the signature a sender got wrong, when a v1 value matches one of the usual
 * mistakes: the signed input (body alone, no dot, re-serialised JSON) or the key (the secret
 * minus its whsec_ prefix). Only run after a mismatch, so it costs nothing on the happy path.
 */
export function likelyMistake(
  secret: string,
  timestamp: number,
  rawBody: string | Uint8Array,
  signatures: readonly string[],
): string | undefined {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const hex = (key: string, ...parts: Array<string | Buffer>): string => {
    const hmac = createHmac('sha256', key);
    for (const part of parts) hmac.update(part);
    return hmac.digest('hex');
  };
  let reserialised: string | undefined;
  try {
    reserialised = JSON.stringify(JSON.parse(body.toString('utf8')));
  } catch {
    reserialised = undefined;
  }
  const candidates: Array<[string, () => string]> = [
    ['the signed input is the raw body alone, without the `t.` prefix', () => hex(secret, body)],
    ['the signed input is `t` + the raw body without the dot between them', () => hex(secret, String(timestamp), body)],
    [
      'the key is the secret without its whsec_ prefix, not the secret exactly as POST /hooks returned it',
      () => hex(secret.replace(/^whsec_/, ''), `${timestamp}.`, body),
    ],
  ];
  if (reserialised !== undefined && reserialised !== body.toString('utf8')) {
    candidates.push([
      'the signed input is the JSON re-serialised, not the raw body bytes as sent',
      () => hex(secret, `${timestamp}.`, reserialised),
    ]);
  }
  for (const [mistake, digest] of candidates) if (signatures.includes(digest())) return mistake;
  return undefined;
}

/** A v1 carrying the right HMAC in base64 instead of hex is a common slip worth naming. */
function base64Hint(header: string, secret: string, rawBody: string | Uint8Array): string {
  const t = /(?:^|,)\s*t=([0-9]{1,15})\s*(?:,|$)/.exec(header)?.[1];
  if (t === undefined) return '';
  const expected = computeDigest(secret, Number(t), rawBody).toString('base64');
  const values = [...header.matchAll(/(?:^|,)\s*v1=([^,]*)/g)].map((m) => (m[1] ?? '').trim().replace(/=+$/, ''));
  return values.includes(expected.replace(/=+$/, ''))
    ? ' (the v1 value is the right HMAC, but in base64; the scheme is hex)'
    : '';
}

/**
 * Verifies a delivery as a receiver must: on the raw body, before any JSON parsing.
 * Constant-time comparison of equal-length 32-byte buffers; accepts when any v1 matches.
 */
export function verifySignature(input: VerifyInput): VerifyResult {
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new RangeError('toleranceSeconds must be a finite number >= 0');
  }
  const header = input.header;
  if (header === undefined || header.trim() === '') {
    return { ok: false, reason: 'missing_header', detail: `The ${SIGNATURE_HEADER} header is absent or empty.` };
  }
  const parsed = parseSignatureHeader(header);
  if (!parsed.ok) {
    const hint = base64Hint(header, input.secret, input.rawBody);
    return {
      ok: false,
      reason: 'malformed_header',
      detail: `The ${SIGNATURE_HEADER} header is malformed: ${parsed.reason}${hint}.`,
    };
  }
  const expected = computeDigest(input.secret, parsed.timestamp, input.rawBody);
  let matched = false;
  // No early exit: every candidate is compared so timing does not reveal which one matched.
  for (const candidate of parsed.signatures) {
    if (timingSafeEqual(Buffer.from(candidate, 'hex'), expected)) matched = true;
  }
  if (!matched) {
    const mistake = likelyMistake(input.secret, parsed.timestamp, input.rawBody, parsed.signatures);
    const because = mistake === undefined ? '' : `: ${mistake}`;
    return {
      ok: false,
      reason: 'signature_mismatch',
      detail:
        `No v1 signature among ${parsed.signatures.length} matches the HMAC-SHA256 of \`t.\` + the raw body ` +
        `with this path's secret${because}.`,
    };
  }
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  const skew = now - parsed.timestamp;
  if (Math.abs(skew) > tolerance) {
    const direction = skew > 0 ? `${skew} s in the past` : `${-skew} s in the future`;
    return {
      ok: false,
      reason: 'timestamp_outside_tolerance',
      detail: `The signed timestamp is ${direction}, outside the tolerance of ${tolerance} s.`,
    };
  }
  return { ok: true, timestamp: parsed.timestamp };
}
