/**
 * A path reserved before its secret (registered with its plan only; harness/seams/subscriptions.ts
 * `onReceiver` gives the secret once POST /hooks answers): what arrives in between is kept whole,
 * answered by the plan, and judged once the secret comes, as if it had arrived after. And a
 * refusal for the receiver's own reason (a path it does not know) is never the target's.
 */
import { createHmac } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../../harness/webhooks/receiver.ts';
import { createReceiverClient, DeliveryRefused, type ReceiverClient } from '../../../harness/seams/receiver-client.ts';

const SECRET = 'whsec_reservedTest_3kPq9Zx';
const now = (): number => Math.floor(Date.now() / 1000);
const sign = (secret: string, t: number, body: string): string =>
  `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

let receiver: Receiver;
let agent: Agent;
let client: ReceiverClient;
let counter = 0;
const freshPath = (): string => `/hooks/reserved${++counter}`;

async function deliver(path: string, body: string, header: string, base = receiver.url): Promise<number> {
  const res = await request(`${base}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-service-signature': header },
    dispatcher: agent,
  });
  await res.body.dump();
  return res.statusCode;
}

beforeAll(async () => {
  // 3 s: a delivery signed just before it is sent is fresh on arrival even on a busy host (t is whole seconds).
  receiver = await startReceiver({ toleranceSeconds: 3 });
  agent = new Agent({ connect: { ca: receiver.caCertPem } });
  client = createReceiverClient({
    queryUrl: receiver.localUrl,
    publicUrl: receiver.url,
    caPem: receiver.caCertPem,
    remote: false,
  });
});
afterAll(async () => {
  await agent.close();
  await receiver.close();
});

describe('a delivery before its secret', () => {
  it('is kept whole, answered by the plan, and judged once the secret comes', async () => {
    const path = freshPath();
    receiver.register(path, { plan: [{ status: 202 }] });
    const body = '{"eventId":"evt_early","callId":"c1"}';
    expect(await deliver(path, body, sign(SECRET, now(), body))).toBe(202);
    const [kept] = receiver.deliveries(path);
    expect(kept).toMatchObject({ beforeSecret: true, answeredStatus: 202, rawBody: body, duplicate: false });
    expect(kept!.signature).toMatchObject({ ok: false, reason: 'secret_pending' });
    expect(kept!.json).toBeUndefined();
    expect(kept!.error).toBeUndefined();
    receiver.register(path, { secret: SECRET });
    const [judged] = receiver.deliveries(path);
    expect(judged).toMatchObject({ beforeSecret: true, answeredStatus: 202, eventId: 'evt_early', duplicate: false });
    expect(judged!.signature.ok).toBe(true);
    expect(judged!.json).toEqual({ eventId: 'evt_early', callId: 'c1' });
    // The same event again, after the secret: a duplicate of the one judged late.
    expect(await deliver(path, body, sign(SECRET, now(), body))).toBe(202);
    expect(receiver.deliveries(path).map((d) => d.duplicate)).toEqual([false, true]);
  });

  it('signed wrong, it keeps the answer it was given and is judged as wrong once the secret comes', async () => {
    const path = freshPath();
    receiver.register(path, {});
    const body = '{"eventId":"evt_wrong"}';
    expect(await deliver(path, body, sign('whsec_someone_else', now(), body))).toBe(200);
    receiver.register(path, { secret: SECRET });
    const [judged] = receiver.deliveries(path);
    expect(judged).toMatchObject({ answeredStatus: 200, signature: { ok: false, reason: 'signature_mismatch' } });
    expect(judged!.eventId).toBeUndefined();
    expect(judged!.error).toBeUndefined();
  });

  it('its freshness is judged against when it arrived, not when the secret came', async () => {
    const path = freshPath();
    receiver.register(path, {});
    const fresh = '{"eventId":"evt_fresh"}';
    const stale = '{"eventId":"evt_stale"}';
    await deliver(path, fresh, sign(SECRET, now(), fresh));
    await deliver(path, stale, sign(SECRET, now() - 30, stale));
    // Past the 3 s tolerance of the first one's arrival: a judgement at this time would call it stale.
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    receiver.register(path, { secret: SECRET });
    expect(receiver.deliveries(path).map((d) => (d.signature.ok ? d.eventId : d.signature.reason))).toEqual([
      'evt_fresh',
      'timestamp_outside_tolerance',
    ]);
  });

  it('under perEvent, takes the plan step of the eventId it carries', async () => {
    const path = freshPath();
    receiver.register(path, { plan: [{ status: 503, times: 1 }, { status: 200 }], perEvent: true });
    const a = '{"eventId":"evt_a"}';
    const b = '{"eventId":"evt_b"}';
    const answers = [];
    for (const body of [a, a, b]) answers.push(await deliver(path, body, sign(SECRET, now(), body)));
    expect(answers).toEqual([503, 200, 503]);
  });

  it('whose secret comes while its body is read, is judged at once', async () => {
    const path = freshPath();
    receiver.register(path, {});
    const body = '{"eventId":"evt_slow"}';
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(`${receiver.url}${path}`, {
        method: 'POST',
        ca: receiver.caCertPem,
        headers: { 'content-type': 'application/json', 'x-service-signature': sign(SECRET, now(), body) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(body.slice(0, 5));
      setTimeout(() => {
        receiver.register(path, { secret: SECRET });
        req.end(body.slice(5));
      }, 150);
    });
    expect(status).toBe(200);
    const [judged] = receiver.deliveries(path);
    expect(judged!.beforeSecret).toBeUndefined();
    expect(judged).toMatchObject({ eventId: 'evt_slow', signature: { ok: true } });
  });

  it("through the query API and the suite's client: kept, then judged by the suite with the secret", async () => {
    const good = freshPath();
    const bad = freshPath();
    await client.register(good, { plan: [{ status: 200 }] });
    await client.register(bad, { plan: [{ status: 200 }] });
    const body = '{"eventId":"evt_q"}';
    await deliver(good, body, sign(SECRET, now(), body));
    await deliver(bad, body, sign('whsec_someone_else', now(), body));
    // Before the secret: nothing to judge, nothing refused.
    expect((await client.deliveries(good))[0]!.refusal).toBeUndefined();
    await client.register(good, { secret: SECRET });
    await client.register(bad, { secret: SECRET });
    expect((await client.deliveries(good))[0]).toMatchObject({ eventId: 'evt_q', signature: { ok: true } });
    expect((await client.deliveries(bad))[0]!.refusal).toMatchObject({
      by: 'suite',
      fault: 'target',
      reason: 'signature_mismatch',
    });
    const waited = client.waitFor(bad, (list) => list.some((d) => d.eventId === 'evt_q'), 10_000);
    await expect(waited).rejects.toBeInstanceOf(DeliveryRefused);
  });
});

describe("a refusal for the receiver's own reason", () => {
  it("an unknown path (e.g. a check that ended): 404, the receiver's fault, never thrown at the wait", async () => {
    const path = freshPath();
    const body = '{"eventId":"evt_lost"}';
    expect(await deliver(path, body, sign(SECRET, now(), body))).toBe(404);
    const [refused] = await client.deliveries(path);
    expect(refused!.refusal).toMatchObject({ by: 'receiver', fault: 'receiver', reason: 'not_found' });
    const list = await client.waitFor(path, (l) => l.some((d) => d.eventId === 'evt_lost'), 100);
    expect(list).toHaveLength(1);
  });

  it("the receiver's size limit is its own; a wrong signature it refused at once is the target's", async () => {
    const small = await startReceiver({ maxBodyBytes: 64 });
    const smallAgent = agent;
    agent = new Agent({ connect: { ca: small.caCertPem } });
    try {
      const smallClient = createReceiverClient({
        queryUrl: small.localUrl,
        publicUrl: small.url,
        caPem: small.caCertPem,
        remote: false,
      });
      await smallClient.register('/hooks/s', { secret: SECRET });
      const big = JSON.stringify({ eventId: 'evt_big', pad: 'x'.repeat(100) });
      expect(await deliver('/hooks/s', big, sign(SECRET, now(), big), small.url)).toBe(413);
      const body = '{"eventId":"evt_w"}';
      expect(await deliver('/hooks/s', body, sign('whsec_other', now(), body), small.url)).toBe(401);
      const faults = (await smallClient.deliveries('/hooks/s')).map((d) => [d.refusal?.reason, d.refusal?.fault]);
      expect(faults).toEqual([
        ['payload_too_large', 'receiver'],
        ['signature_mismatch', 'target'],
      ]);
    } finally {
      await agent.close();
      agent = smallAgent;
      await small.close();
    }
  });
});
