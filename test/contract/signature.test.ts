import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  parseSignatureHeader,
  signPayload,
  verifySignature,
} from '../../contract/signature.ts';

const SECRET = 'whsec_test_5ZbM3k9Qn2';
const T = 1_700_000_000;
const BODY = '{"eventId":"evt_1","callId":"c1","phone":"+15550100"}';

// Independent computation, straight from the spec's wording, not through the module under test.
function referenceHex(secret: string, t: number, body: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${t}.`, 'utf8'), Buffer.from(body)]))
    .digest('hex');
}

const GOOD = referenceHex(SECRET, T, BODY);
const OTHER = 'ab'.repeat(32);

describe('constants', () => {
  it('names the header in lower case and defaults tolerance to 300 s', () => {
    expect(SIGNATURE_HEADER).toBe('x-service-signature');
    expect(DEFAULT_TOLERANCE_SECONDS).toBe(300);
  });
});

describe('signPayload', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the title quotes the signed input's form, `${t}.` + body
  it('matches an independently computed HMAC-SHA256 of `${t}.` + body keyed with the whole secret', () => {
    expect(signPayload(SECRET, T, BODY)).toBe(`t=${T},v1=${GOOD}`);
  });

  it('matches fixed known vectors (guards against both sides drifting together)', () => {
    // printf '1700000000.{}' | openssl dgst -sha256 -hmac whsec_abc
    expect(signPayload('whsec_abc', T, '{}')).toBe(
      `t=${T},v1=bad9ac117e973d721c232d46744158d75e3f1b44e36771e13d01b9e6a580bc72`,
    );
    // printf '1700000000.{"eventId":"evt_1"}' | openssl dgst -sha256 -hmac whsec_MfKQ9r2Lp
    expect(signPayload('whsec_MfKQ9r2Lp', T, '{"eventId":"evt_1"}')).toBe(
      `t=${T},v1=7f3081366805a62235c41250c5eb0e8b9e916c78311102e77391ab28b4e7cd30`,
    );
  });

  it('signs string and byte bodies identically, including empty and non-ASCII bodies', () => {
    for (const body of ['', 'héllo ☎ 📞', BODY]) {
      expect(signPayload(SECRET, T, new TextEncoder().encode(body))).toBe(signPayload(SECRET, T, body));
      expect(signPayload(SECRET, T, body)).toBe(`t=${T},v1=${referenceHex(SECRET, T, body)}`);
    }
  });

  it('keys with the prefix included: signing with the secret minus whsec_ gives another signature', () => {
    expect(signPayload(SECRET.slice('whsec_'.length), T, BODY)).not.toBe(signPayload(SECRET, T, BODY));
  });

  it('refuses a timestamp that is not a non-negative integer', () => {
    expect(() => signPayload(SECRET, 1.5, BODY)).toThrow(RangeError);
    expect(() => signPayload(SECRET, -1, BODY)).toThrow(RangeError);
    expect(() => signPayload(SECRET, Number.NaN, BODY)).toThrow(RangeError);
  });
});

describe('parseSignatureHeader', () => {
  it('reads t and v1', () => {
    expect(parseSignatureHeader(`t=${T},v1=${GOOD}`)).toEqual({ ok: true, timestamp: T, signatures: [GOOD] });
  });

  it('accepts parts in any order', () => {
    expect(parseSignatureHeader(`v1=${GOOD},t=${T}`)).toEqual({ ok: true, timestamp: T, signatures: [GOOD] });
  });

  it('accepts several v1 values in order and ignores unknown schemes', () => {
    expect(parseSignatureHeader(`v0=zzz,t=${T},v1=${OTHER},v2=abc,v1=${GOOD}`)).toEqual({
      ok: true,
      timestamp: T,
      signatures: [OTHER, GOOD],
    });
  });

  it('tolerates whitespace around parts', () => {
    expect(parseSignatureHeader(`  t=${T} ,\tv1=${GOOD}  `)).toEqual({ ok: true, timestamp: T, signatures: [GOOD] });
  });

  it('accepts upper-case hex and normalises it to lower case', () => {
    expect(parseSignatureHeader(`t=${T},v1=${GOOD.toUpperCase()}`)).toEqual({
      ok: true,
      timestamp: T,
      signatures: [GOOD],
    });
  });

  const refused: Array<[string, string]> = [
    ['empty header', ''],
    ['blank header', '   '],
    ['missing t', `v1=${GOOD}`],
    ['non-numeric t', `t=abc,v1=${GOOD}`],
    ['fractional t', `t=1700000000.5,v1=${GOOD}`],
    ['negative t', `t=-5,v1=${GOOD}`],
    ['signed t', `t=+5,v1=${GOOD}`],
    ['exponent t', `t=1e9,v1=${GOOD}`],
    ['empty t', `t=,v1=${GOOD}`],
    ['t beyond a safe integer', `t=9999999999999999,v1=${GOOD}`],
    ['two t parts', `t=${T},t=${T},v1=${GOOD}`],
    ['no v1', `t=${T}`],
    ['only an unknown scheme', `t=${T},v0=${GOOD}`],
    ['v1 too short', `t=${T},v1=${GOOD.slice(1)}`],
    ['v1 too long', `t=${T},v1=${GOOD}0`],
    ['v1 not hex', `t=${T},v1=${'g'.repeat(64)}`],
    ['one bad v1 among good ones', `t=${T},v1=${GOOD},v1=xyz`],
    ['empty v1', `t=${T},v1=`],
    ['part without =', `t=${T},v1=${GOOD},garbage`],
    ['empty part (trailing comma)', `t=${T},v1=${GOOD},`],
    ['empty key', `t=${T},=x,v1=${GOOD}`],
    ['whitespace inside a key', `t=${T},v 1=${GOOD}`],
    ['semicolon separators', `t=${T};v1=${GOOD}`],
  ];
  it.each(refused)('refuses %s', (_name, header) => {
    const result = parseSignatureHeader(header);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason.length).toBeGreaterThan(0);
  });
});

describe('verifySignature', () => {
  const header = `t=${T},v1=${GOOD}`;
  const base = { header, rawBody: BODY, secret: SECRET, nowSeconds: T };

  it('accepts a correctly signed delivery (string and bytes)', () => {
    expect(verifySignature(base)).toEqual({ ok: true, timestamp: T });
    expect(verifySignature({ ...base, rawBody: Buffer.from(BODY) })).toEqual({ ok: true, timestamp: T });
  });

  it('accepts what signPayload produces', () => {
    expect(verifySignature({ ...base, header: signPayload(SECRET, T, BODY) }).ok).toBe(true);
  });

  it('reports a missing or blank header as missing_header', () => {
    expect(verifySignature({ ...base, header: undefined })).toMatchObject({ ok: false, reason: 'missing_header' });
    expect(verifySignature({ ...base, header: '' })).toMatchObject({ ok: false, reason: 'missing_header' });
  });

  it('reports a malformed header as malformed_header', () => {
    expect(verifySignature({ ...base, header: `t=x,v1=${GOOD}` })).toMatchObject({
      ok: false,
      reason: 'malformed_header',
    });
  });

  it('rejects a changed body, a changed timestamp, a wrong secret', () => {
    expect(verifySignature({ ...base, rawBody: `${BODY} ` })).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifySignature({ ...base, header: `t=${T + 1},v1=${GOOD}`, nowSeconds: T + 1 })).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifySignature({ ...base, secret: `${SECRET}x` })).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verifySignature({ ...base, secret: SECRET.slice(6) })).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('accepts when any of several v1 matches (rotation), in any position, upper-case too', () => {
    expect(verifySignature({ ...base, header: `t=${T},v1=${OTHER},v1=${GOOD}` }).ok).toBe(true);
    expect(verifySignature({ ...base, header: `v1=${GOOD},v0=nonsense,t=${T},v1=${OTHER}` }).ok).toBe(true);
    expect(verifySignature({ ...base, header: `t=${T},v1=${GOOD.toUpperCase()}` }).ok).toBe(true);
    expect(verifySignature({ ...base, header: `t=${T},v1=${OTHER},v1=${'cd'.repeat(32)}` })).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('ignores a matching signature under another scheme', () => {
    expect(verifySignature({ ...base, header: `t=${T},v0=${GOOD},v1=${OTHER}` })).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('applies the default 300 s tolerance both ways, boundaries inclusive', () => {
    expect(verifySignature({ ...base, nowSeconds: T + 300 }).ok).toBe(true);
    expect(verifySignature({ ...base, nowSeconds: T - 300 }).ok).toBe(true);
    expect(verifySignature({ ...base, nowSeconds: T + 301 })).toMatchObject({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
    expect(verifySignature({ ...base, nowSeconds: T - 301 })).toMatchObject({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
  });

  it('honours a custom tolerance, including 0', () => {
    expect(verifySignature({ ...base, toleranceSeconds: 10, nowSeconds: T + 10 }).ok).toBe(true);
    expect(verifySignature({ ...base, toleranceSeconds: 10, nowSeconds: T + 11 })).toMatchObject({
      reason: 'timestamp_outside_tolerance',
    });
    expect(verifySignature({ ...base, toleranceSeconds: 0 }).ok).toBe(true);
    expect(verifySignature({ ...base, toleranceSeconds: 0, nowSeconds: T - 1 })).toMatchObject({
      reason: 'timestamp_outside_tolerance',
    });
  });

  it('uses the clock when nowSeconds is not given', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifySignature({ header: signPayload(SECRET, now, BODY), rawBody: BODY, secret: SECRET }).ok).toBe(true);
    expect(
      verifySignature({ header: signPayload(SECRET, now - 3600, BODY), rawBody: BODY, secret: SECRET }),
    ).toMatchObject({
      reason: 'timestamp_outside_tolerance',
    });
  });

  it('checks the signature before the timestamp: a forged stale delivery is a mismatch, not a replay', () => {
    expect(verifySignature({ ...base, header: `t=${T},v1=${OTHER}`, nowSeconds: T + 10_000 })).toMatchObject({
      reason: 'signature_mismatch',
    });
  });

  it('never puts the secret in a detail, and each detail is one sentence', () => {
    const cases = [
      verifySignature({ ...base, header: undefined }),
      verifySignature({ ...base, header: 'nonsense' }),
      verifySignature({ ...base, secret: 'whsec_other' }),
      verifySignature({ ...base, nowSeconds: T + 10_000 }),
      verifySignature({ ...base, nowSeconds: T - 10_000 }),
    ];
    for (const result of cases) {
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.detail).not.toContain(SECRET);
      expect(result.detail).not.toContain('whsec_other');
      expect(result.detail).toMatch(/^[A-Z].*\.$/);
      expect(result.detail).not.toContain('\n');
    }
  });

  it('refuses a nonsensical tolerance as a programming error', () => {
    expect(() => verifySignature({ ...base, toleranceSeconds: -1 })).toThrow(RangeError);
  });
});
