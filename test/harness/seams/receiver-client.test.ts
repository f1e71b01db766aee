/**
 * The suite's receiver client: signatures verified in the suite's process on the exact bytes the
 * receiver stored, refusals carried with their reason, and `waitFor` failing at once on one.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createReceiverClient,
  DeliveryRefused,
  judgeDelivery,
  type ReceiverClient,
} from '../../../harness/seams/receiver-client.ts';
import { startReceiver, type Delivery, type Receiver } from '../../../harness/webhooks/receiver.ts';
import { signPayload } from '../../../contract/signature.ts';

const SECRET = 'whsec_client_test_Q2d8';
const T = 1_700_000_000;

function stored(body: Buffer | string, header: string | undefined, extra: Partial<Delivery> = {}): Delivery {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return {
    seq: 1,
    path: '/hooks/x',
    method: 'POST',
    receivedAt: T * 1000,
    headers: header === undefined ? {} : { 'x-service-signature': header },
    rawHeaders: [],
    rawBody: bytes.toString('utf8'),
    bodyBase64: bytes.toString('base64'),
    json: undefined,
    signature: { ok: false, reason: 'not_verified' },
    duplicate: false,
    answeredStatus: 200,
    ...extra,
  };
}

describe('judgeDelivery: the suite verifies what the receiver stored', () => {
  it('accepts a good signature, judged at the time the receiver got it, and only then parses the body', () => {
    const body = '{"eventId":"evt_1","callId":"c1"}';
    const judged = judgeDelivery(stored(body, signPayload(SECRET, T - 10, body)), SECRET);
    expect(judged.refusal).toBeUndefined();
    expect(judged.signature).toEqual({ ok: true, timestamp: T - 10 });
    expect(judged.json).toEqual({ eventId: 'evt_1', callId: 'c1' });
    expect(judged.eventId).toBe('evt_1');
  });

  it('verifies the exact bytes: a body that is not valid UTF-8 survives the trip through base64', () => {
    const bytes = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]); // {"a":"\xff\xfe"}
    const judged = judgeDelivery(stored(bytes, signPayload(SECRET, T, bytes)), SECRET);
    expect(judged.signature.ok).toBe(true);
    // The UTF-8 reading replaced the bad bytes; verifying that instead would have failed.
    expect(judgeDelivery(stored(bytes.toString('utf8'), signPayload(SECRET, T, bytes)), SECRET).refusal?.reason).toBe(
      'signature_mismatch',
    );
  });

  it.each([
    ['missing header', undefined, 'missing_header', /absent or empty/],
    ['malformed header', 't=now,v1=zz', 'malformed_header', /t= is not a non-negative integer/],
    [
      'body alone signed',
      `t=${T},v1=${signPayload(SECRET, T, '').split('v1=')[1]}`,
      'signature_mismatch',
      /No v1 signature/,
    ],
    [
      'stale timestamp',
      signPayload(SECRET, T - 301, '{"eventId":"e"}'),
      'timestamp_outside_tolerance',
      /301 s in the past/,
    ],
  ])('%s → a refusal by the suite naming the part, with no JSON', (_, header, reason, detail) => {
    const judged = judgeDelivery(stored('{"eventId":"e"}', header), SECRET);
    expect(judged.refusal).toMatchObject({ by: 'suite', reason, detail: expect.stringMatching(detail) });
    expect(judged.json).toBeUndefined();
    expect(judged.eventId).toBeUndefined();
    expect(JSON.stringify(judged)).not.toContain(SECRET);
  });

  it('names a mistake it recognises: the key without the whsec_ prefix', () => {
    const body = '{"eventId":"e"}';
    const judged = judgeDelivery(stored(body, signPayload(SECRET.slice('whsec_'.length), T, body)), SECRET);
    expect(judged.refusal?.detail).toMatch(/the key is the secret without its whsec_ prefix/);
  });

  it("keeps the receiver's own refusal, with its reason", () => {
    const judged = judgeDelivery(stored('{}', undefined, { error: 'payload_too_large', answeredStatus: 413 }), SECRET);
    expect(judged.refusal).toEqual({
      by: 'receiver',
      fault: 'receiver',
      reason: 'payload_too_large',
      detail: "the body is over the receiver's size limit.",
    });
  });

  it('a validly signed body that is not JSON is refused as invalid_json', () => {
    const judged = judgeDelivery(stored('not json', signPayload(SECRET, T, 'not json')), SECRET);
    expect(judged.refusal).toMatchObject({ by: 'suite', fault: 'target', reason: 'invalid_json' });
  });
});

describe('waitFor against a real receiver', () => {
  let receiver: Receiver;
  let client: ReceiverClient;
  beforeAll(async () => {
    receiver = await startReceiver();
    client = createReceiverClient({
      queryUrl: receiver.localUrl,
      publicUrl: receiver.url,
      caPem: receiver.caCertPem,
      remote: false,
    });
  });
  afterAll(async () => {
    await receiver.close();
  });

  const deliver = (path: string, body: string, header: string) =>
    request(`${receiver.localUrl}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-service-signature': header },
      dispatcher: new Agent({ connect: { ca: receiver.caCertPem } }),
    }).then((r) => r.body.text());

  it('fails at once, with the reason, when a delivery to the path was refused', async () => {
    const path = '/hooks/call.ended/refused';
    await client.register(path, { secret: SECRET });
    const now = Math.floor(Date.now() / 1000);
    const body = '{"eventId":"evt_9","callId":"c9"}';
    await deliver(path, body, signPayload('whsec_someone_else', now, body));
    const started = Date.now();
    const error = await client
      .waitFor(path, (list) => list.some((d) => d.eventId === 'evt_9'), 30_000)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryRefused);
    expect((error as Error).message).toMatch(
      new RegExp(
        /^a delivery to \/hooks\/call\.ended\/refused \(received .*\) /.source +
          /was refused by the receiver with 401: signature_mismatch: No v1 signature/.source,
      ),
    );
    expect((error as Error).message).not.toContain(SECRET);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('returns as soon as the predicate holds, refused deliveries visible in the list', async () => {
    const path = '/hooks/call.ended/mixed';
    await client.register(path, { secret: SECRET, plan: [{ status: 200 }] });
    const now = Math.floor(Date.now() / 1000);
    const good = '{"eventId":"evt_ok"}';
    await deliver(path, good, signPayload(SECRET, now, good));
    await deliver(path, good, signPayload(SECRET, now, good));
    await deliver(path, '{"eventId":"evt_bad"}', `t=${now},v1=${'0'.repeat(64)}`);
    const list = await client.waitFor(path, (l) => l.some((d) => d.eventId === 'evt_ok'), 5_000);
    expect(list.map((d) => [d.eventId, d.duplicate, d.refusal?.reason])).toEqual([
      ['evt_ok', false, undefined],
      ['evt_ok', true, undefined],
      [undefined, false, 'signature_mismatch'],
    ]);
  });
});
