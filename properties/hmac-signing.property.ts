/**
 * Properties of the webhook signature scheme (contract/signature.ts), pure, no network.
 * Cross-checked against the independent `stripe` package, whose webhook scheme is the same
 * construction (`t=<unix>,v1=<hex HMAC-SHA256 of "t." + body>`), so the two implementations
 * must agree in both directions.
 */
import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TOLERANCE_SECONDS,
  parseSignatureHeader,
  signPayload,
  verifySignature,
} from '../contract/signature.ts';

const stripe = new Stripe('sk_test_x');
const RUNS = { numRuns: 150 };

const HEX = '0123456789abcdef';
const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

/**
 * The key block HMAC-SHA256 really uses (RFC 2104): a key longer than the 64-byte block is hashed
 * first, and either way it is padded with zero bytes to the block. Two secrets with the same block
 * (`whsec_a` and `whsec_a\0`) sign alike, and no verifier can tell them apart.
 */
function hmacKeyBlock(secret: string): Buffer {
  const bytes = utf8(secret);
  const key = bytes.length > 64 ? createHash('sha256').update(bytes).digest() : bytes;
  return Buffer.concat([key, Buffer.alloc(64 - key.length)]);
}

// Secrets: the real shape (whsec_ + anything) and arbitrary unicode, lone surrogates included.
const whsecSecret = fc.string({ unit: 'binary', maxLength: 64 }).map((s) => `whsec_${s}`);
const anySecret = fc.oneof(whsecSecret, fc.string({ unit: 'binary', maxLength: 64 }));
const timestamp = fc.integer({ min: 0, max: 2 ** 40 });
// Bodies: bytes (empty, small, and occasionally up to 64 KiB) and unicode strings.
const bigBytes = fc
  .integer({ min: 32 * 1024, max: 64 * 1024 })
  .chain((n) => fc.uint8Array({ minLength: n, maxLength: n }));
const body = fc.oneof(
  { arbitrary: fc.uint8Array({ maxLength: 2048 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 2048 }), weight: 4 },
  { arbitrary: fc.constant(new Uint8Array(0)), weight: 1 },
  { arbitrary: bigBytes, weight: 1 },
);
const bytesOf = (b: string | Uint8Array): Buffer => (typeof b === 'string' ? utf8(b) : Buffer.from(b));
const v1Of = (header: string): string => header.slice(header.indexOf('v1=') + 3);

describe('sign then verify', () => {
  it('a signed delivery verifies, for string and byte forms of the same body, and matches node:crypto', () => {
    fc.assert(
      fc.property(anySecret, timestamp, body, (secret, t, raw) => {
        const header = signPayload(secret, t, raw);
        const expected = createHmac('sha256', utf8(secret))
          .update(Buffer.concat([utf8(`${t}.`), bytesOf(raw)]))
          .digest('hex');
        expect(header).toBe(`t=${t},v1=${expected}`);
        expect(verifySignature({ header, rawBody: raw, secret, nowSeconds: t })).toEqual({ ok: true, timestamp: t });
        expect(verifySignature({ header, rawBody: bytesOf(raw), secret, nowSeconds: t }).ok).toBe(true);
      }),
      RUNS,
    );
  });

  it('flipping any bit pattern of any body byte → signature_mismatch', () => {
    const nonEmpty = fc.uint8Array({ minLength: 1, maxLength: 4096 });
    fc.assert(
      fc.property(
        whsecSecret,
        timestamp,
        nonEmpty,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (secret, t, raw, at, mask) => {
          const header = signPayload(secret, t, raw);
          const tampered = Uint8Array.from(raw);
          const i = at % tampered.length;
          tampered[i] = (tampered[i] as number) ^ mask;
          expect(verifySignature({ header, rawBody: tampered, secret, nowSeconds: t })).toMatchObject({
            ok: false,
            reason: 'signature_mismatch',
          });
        },
      ),
      RUNS,
    );
  });

  it('appending or dropping bytes → signature_mismatch', () => {
    fc.assert(
      fc.property(whsecSecret, timestamp, fc.uint8Array({ minLength: 1, maxLength: 1024 }), (secret, t, raw) => {
        const header = signPayload(secret, t, raw);
        expect(verifySignature({ header, rawBody: raw.subarray(1), secret, nowSeconds: t }).ok).toBe(false);
        expect(
          verifySignature({ header, rawBody: Buffer.concat([raw, Buffer.from([0])]), secret, nowSeconds: t }).ok,
        ).toBe(false);
      }),
      RUNS,
    );
  });

  it('changing the timestamp (even within tolerance) → signature_mismatch', () => {
    fc.assert(
      fc.property(whsecSecret, timestamp, timestamp, body, (secret, t, other, raw) => {
        fc.pre(other !== t);
        const header = `t=${other},v1=${v1Of(signPayload(secret, t, raw))}`;
        expect(verifySignature({ header, rawBody: raw, secret, nowSeconds: other })).toMatchObject({
          ok: false,
          reason: 'signature_mismatch',
        });
      }),
      RUNS,
    );
  });

  it('changing any hex char of the signature → signature_mismatch', () => {
    fc.assert(
      fc.property(
        whsecSecret,
        timestamp,
        body,
        fc.integer({ min: 0, max: 63 }),
        fc.integer({ min: 1, max: 15 }),
        (secret, t, raw, at, shift) => {
          const sig = v1Of(signPayload(secret, t, raw));
          const changed = HEX[(HEX.indexOf(sig[at] as string) + shift) % 16] as string;
          const header = `t=${t},v1=${sig.slice(0, at)}${changed}${sig.slice(at + 1)}`;
          expect(verifySignature({ header, rawBody: raw, secret, nowSeconds: t })).toMatchObject({
            ok: false,
            reason: 'signature_mismatch',
          });
        },
      ),
      RUNS,
    );
  });

  it('another secret → signature_mismatch, and the detail never contains either secret', () => {
    fc.assert(
      fc.property(whsecSecret, whsecSecret, timestamp, body, (secret, other, t, raw) => {
        // Distinct as HMAC keys: two strings with different lone surrogates encode alike, and
        // trailing zero bytes vanish in the padded key block.
        fc.pre(!hmacKeyBlock(secret).equals(hmacKeyBlock(other)));
        const result = verifySignature({
          header: signPayload(secret, t, raw),
          rawBody: raw,
          secret: other,
          nowSeconds: t,
        });
        expect(result).toMatchObject({ ok: false, reason: 'signature_mismatch' });
        if (!result.ok) {
          expect(result.detail).not.toContain(secret);
          expect(result.detail).not.toContain(other);
        }
      }),
      RUNS,
    );
  });
});

describe('tolerance', () => {
  const tolerance = fc.integer({ min: 0, max: 100_000 });
  const t = fc.integer({ min: 200_000, max: 2 ** 40 });

  it('inside the window, either direction, boundary included → accepted', () => {
    fc.assert(
      fc.property(whsecSecret, t, tolerance, fc.double({ min: -1, max: 1, noNaN: true }), (secret, ts, tol, frac) => {
        const skew = Math.trunc(frac * tol);
        const header = signPayload(secret, ts, '{}');
        expect(
          verifySignature({ header, rawBody: '{}', secret, toleranceSeconds: tol, nowSeconds: ts + skew }).ok,
        ).toBe(true);
        expect(verifySignature({ header, rawBody: '{}', secret, toleranceSeconds: tol, nowSeconds: ts + tol }).ok).toBe(
          true,
        );
        expect(verifySignature({ header, rawBody: '{}', secret, toleranceSeconds: tol, nowSeconds: ts - tol }).ok).toBe(
          true,
        );
      }),
      RUNS,
    );
  });

  it('outside the window, past or future → timestamp_outside_tolerance', () => {
    fc.assert(
      fc.property(
        whsecSecret,
        t,
        tolerance,
        fc.integer({ min: 1, max: 100_000 }),
        fc.boolean(),
        (secret, ts, tol, beyond, future) => {
          const now = future ? ts - tol - beyond : ts + tol + beyond;
          const header = signPayload(secret, ts, '{}');
          expect(
            verifySignature({ header, rawBody: '{}', secret, toleranceSeconds: tol, nowSeconds: now }),
          ).toMatchObject({
            ok: false,
            reason: 'timestamp_outside_tolerance',
          });
        },
      ),
      RUNS,
    );
  });

  it('defaults to 300 s', () => {
    fc.assert(
      fc.property(t, fc.integer({ min: -600, max: 600 }), (ts, skew) => {
        const header = signPayload('whsec_x', ts, 'b');
        const ok = verifySignature({ header, rawBody: 'b', secret: 'whsec_x', nowSeconds: ts + skew }).ok;
        expect(ok).toBe(Math.abs(skew) <= DEFAULT_TOLERANCE_SECONDS);
      }),
      RUNS,
    );
  });
});

describe('header parsing', () => {
  const ws = fc.constantFrom('', ' ', '  ', '\t', ' \t ');
  const wrongSig = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
  // Other schemes and extensions: any key that is not t / v1, any value without a comma.
  const unknownPart = fc
    .tuple(fc.stringMatching(/^[a-z0-9_-]{1,8}$/), fc.stringMatching(/^[^,\s]{0,20}$/))
    .filter(([k]) => k !== 't' && k !== 'v1')
    .map(([k, v]) => `${k}=${v}`);

  it('accepts reordered parts, extra unknown schemes, several v1 (any match suffices), whitespace, hex case', () => {
    fc.assert(
      fc.property(
        whsecSecret,
        timestamp,
        body,
        fc.array(wrongSig, { maxLength: 4 }),
        fc.array(unknownPart, { maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
        fc.array(ws, { minLength: 24, maxLength: 24 }),
        fc.boolean(),
        (secret, t, raw, wrong, unknown, order, pads, upper) => {
          const good = v1Of(signPayload(secret, t, raw));
          const parts = [
            `t=${t}`,
            `v1=${upper ? good.toUpperCase() : good}`,
            ...wrong.map((w) => `v1=${w}`),
            ...unknown,
          ];
          // Deterministic shuffle driven by the generated order keys.
          const shuffled = parts
            .map((p, i) => ({ p, k: order[i % order.length] as number }))
            .sort((a, b) => a.k - b.k)
            .map((x) => x.p);
          const header = shuffled.map((p, i) => `${pads[2 * i] ?? ''}${p}${pads[2 * i + 1] ?? ''}`).join(',');
          const parsed = parseSignatureHeader(header);
          expect(parsed).toMatchObject({ ok: true, timestamp: t });
          if (parsed.ok) expect(parsed.signatures).toHaveLength(1 + wrong.length);
          expect(verifySignature({ header, rawBody: raw, secret, nowSeconds: t })).toEqual({ ok: true, timestamp: t });
          // Without the matching one, the rest never suffices.
          if (wrong.length > 0) {
            const withoutGood = [`t=${t}`, ...wrong.map((w) => `v1=${w}`), ...unknown].join(',');
            expect(verifySignature({ header: withoutGood, rawBody: raw, secret, nowSeconds: t })).toMatchObject({
              reason: 'signature_mismatch',
            });
          }
        },
      ),
      RUNS,
    );
  });

  it('rejects headers that break a rule: no t, two t, bad t, no v1, bad v1, shapeless or empty parts', () => {
    const breakers: Array<fc.Arbitrary<(t: number, sig: string) => string>> = [
      fc.constant((_t: number, sig: string) => `v1=${sig}`),
      fc.integer({ min: 0, max: 2 ** 40 }).map((t2) => (t: number, sig: string) => `t=${t},v1=${sig},t=${t2}`),
      fc
        .stringMatching(/^[^,\s]*$/)
        .filter((v) => !/^[0-9]{1,15}$/.test(v))
        .map((bad) => (_t: number, sig: string) => `t=${bad},v1=${sig}`),
      fc.array(unknownPart, { maxLength: 3 }).map((extra) => (t: number) => [`t=${t}`, ...extra].join(',')),
      fc
        .stringMatching(/^[^,\s]*$/)
        .filter((v) => !/^[0-9a-fA-F]{64}$/.test(v))
        .map((bad) => (t: number, sig: string) => `t=${t},v1=${sig},v1=${bad}`),
      fc.stringMatching(/^[^,=]*$/).map((junk) => (t: number, sig: string) => `t=${t},v1=${sig},${junk}`),
      fc.constant((t: number, sig: string) => `t=${t},,v1=${sig}`),
      fc.constant(() => ''),
    ];
    fc.assert(
      fc.property(whsecSecret, timestamp, body, fc.oneof(...breakers), (secret, t, raw, breaker) => {
        const header = breaker(t, v1Of(signPayload(secret, t, raw)));
        expect(parseSignatureHeader(header).ok).toBe(false);
        const result = verifySignature({ header, rawBody: raw, secret, nowSeconds: t });
        expect(result.ok).toBe(false);
        if (!result.ok) expect(['malformed_header', 'missing_header']).toContain(result.reason);
      }),
      RUNS,
    );
  });

  it('never throws on arbitrary input and never accepts a random header', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), whsecSecret, body, (header, secret, raw) => {
        expect(() => parseSignatureHeader(header)).not.toThrow();
        expect(verifySignature({ header, rawBody: raw, secret }).ok).toBe(false);
      }),
      RUNS,
    );
  });
});

describe('cross-check with the stripe package (JSON bodies)', () => {
  // Stripe refuses blank secrets and treats timestamp 0 as "now"; both are outside what it models.
  const stripeSecret = anySecret.filter((s) => !/^[ \t\r\n\f\v]*$/.test(s));
  const stripeTime = fc.integer({ min: 1, max: 2 ** 40 });
  const jsonBody = fc.jsonValue().map((v) => JSON.stringify(v));
  const age = fc.integer({ min: 0, max: DEFAULT_TOLERANCE_SECONDS });

  it('ours verifies what Stripe signs', () => {
    fc.assert(
      fc.property(stripeSecret, stripeTime, jsonBody, age, (secret, t, payload, delay) => {
        const header = stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: t });
        expect(verifySignature({ header, rawBody: payload, secret, nowSeconds: t + delay })).toEqual({
          ok: true,
          timestamp: t,
        });
        expect(verifySignature({ header, rawBody: utf8(payload), secret, nowSeconds: t + delay }).ok).toBe(true);
      }),
      RUNS,
    );
  });

  it('Stripe verifies what ours signs, and both refuse a tampered body', () => {
    fc.assert(
      fc.property(stripeSecret, stripeTime, jsonBody, age, (secret, t, payload, delay) => {
        const header = signPayload(secret, t, payload);
        expect(header).toBe(stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: t }));
        const event = stripe.webhooks.constructEvent(
          payload,
          header,
          secret,
          DEFAULT_TOLERANCE_SECONDS,
          undefined,
          (t + delay) * 1000,
        );
        expect(event).toEqual(JSON.parse(payload));
        const tampered = `${payload} `;
        expect(() =>
          stripe.webhooks.constructEvent(
            tampered,
            header,
            secret,
            DEFAULT_TOLERANCE_SECONDS,
            undefined,
            (t + delay) * 1000,
          ),
        ).toThrow();
        expect(verifySignature({ header, rawBody: tampered, secret, nowSeconds: t + delay }).ok).toBe(false);
      }),
      RUNS,
    );
  });
});
