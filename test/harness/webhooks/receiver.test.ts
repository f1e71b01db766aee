import { createHmac } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  generateTlsMaterial,
  startReceiver,
  takeStep,
  validatePlan,
  type Delivery,
  type Receiver,
} from '../../../harness/webhooks/receiver.ts';
import { signPayload } from '../../../contract/signature.ts';

const SECRET = 'whsec_receiverTest_Q8vL2mN7';
const now = (): number => Math.floor(Date.now() / 1000);

// Signed independently of the module under test, straight from the spec's wording.
function sign(secret: string, t: number, body: string): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

let receiver: Receiver;
let agent: Agent;
let counter = 0;
const freshPath = (): string => `/hooks/t${++counter}`;

interface Answer {
  status: number;
  text: string;
  json: unknown;
}

async function send(
  path: string,
  init: {
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    timeoutMs?: number;
    base?: string;
    dispatcher?: Agent;
  } = {},
): Promise<Answer> {
  const res = await request(`${init.base ?? receiver.url}${path}`, {
    method: (init.method ?? 'POST') as 'POST',
    body: init.body,
    headers: { 'content-type': 'application/json', ...init.headers },
    dispatcher: init.dispatcher ?? agent,
    headersTimeout: init.timeoutMs ?? 5000,
    bodyTimeout: init.timeoutMs ?? 5000,
  });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, text, json };
}

function deliver(path: string, payload: unknown, secret = SECRET, t = now()): Promise<Answer> {
  const body = JSON.stringify(payload);
  return send(path, { body, headers: { 'X-Service-Signature': sign(secret, t, body) } });
}

const lastDelivery = (path: string): Delivery => {
  const all = receiver.deliveries(path);
  expect(all.length).toBeGreaterThan(0);
  return all[all.length - 1] as Delivery;
};

beforeAll(async () => {
  receiver = await startReceiver({ maxBodyBytes: 4096 });
  agent = new Agent({ connect: { ca: receiver.caCertPem }, keepAliveTimeout: 1000 });
});

afterAll(async () => {
  await agent.close();
  await receiver.close();
});

afterEach(() => receiver.clear());

describe('TLS with the run-time CA', () => {
  it('is trusted by undici given only `ca` (default rejectUnauthorized), on 127.0.0.1 and localhost', async () => {
    expect(receiver.caCertPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(receiver.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect((await send('/_receiver/health', { method: 'GET' })).status).toBe(200);
    const viaName = receiver.url.replace('127.0.0.1', 'localhost');
    expect((await send('/_receiver/health', { method: 'GET', base: viaName })).status).toBe(200);
  });

  it('is refused without the CA, proving verification is really on', async () => {
    const untrusting = new Agent();
    try {
      await expect(send('/_receiver/health', { method: 'GET', dispatcher: untrusting })).rejects.toThrow(
        /certificate|self.signed|issuer/i,
      );
    } finally {
      await untrusting.close();
    }
  });

  it('is trusted by node:https given only `ca`', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(`${receiver.url}/_receiver/health`, { ca: receiver.caCertPem, timeout: 5000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.end();
    });
    expect(status).toBe(200);
  });

  it('covers ::1 too', async () => {
    const v6 = await startReceiver({ host: '::1' }).catch(() => undefined);
    if (!v6) return; // no IPv6 loopback on this machine: nothing to prove here
    const v6Agent = new Agent({ connect: { ca: v6.caCertPem } });
    try {
      expect(v6.localUrl).toMatch(/^https:\/\/\[::1\]:\d+$/);
      expect((await send('/_receiver/health', { method: 'GET', base: v6.url, dispatcher: v6Agent })).status).toBe(200);
    } finally {
      await v6Agent.close();
      await v6.close();
    }
  });

  it('serves a user-supplied certificate and then exposes no CA', async () => {
    const material = await generateTlsMaterial();
    const own = await startReceiver({ tls: { cert: material.cert, key: material.key } });
    const ownAgent = new Agent({ connect: { ca: material.caCertPem } });
    try {
      expect(own.caCertPem).toBeUndefined();
      expect((await send('/_receiver/health', { method: 'GET', base: own.url, dispatcher: ownAgent })).status).toBe(
        200,
      );
    } finally {
      await ownAgent.close();
      await own.close();
    }
  });

  it('reports publicUrl as url and keeps localUrl; refuses a non-https publicUrl', async () => {
    const pub = await startReceiver({ publicUrl: 'https://abc.tunnel.example/' });
    try {
      expect(pub.url).toBe('https://abc.tunnel.example');
      expect(pub.localUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await pub.close();
    }
    await expect(startReceiver({ publicUrl: 'http://abc.tunnel.example' })).rejects.toThrow(/https/);
  });
});

describe('valid deliveries', () => {
  it('answers 200, recording the raw body, lower-case headers, parsed JSON, eventId, signature timestamp', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET });
    const t = now();
    const answer = await deliver(path, { eventId: 'evt-1', callId: 'c-1' }, SECRET, t);
    expect(answer.status).toBe(200);
    const d = lastDelivery(path);
    expect(d).toMatchObject({
      path,
      method: 'POST',
      rawBody: '{"eventId":"evt-1","callId":"c-1"}',
      json: { eventId: 'evt-1', callId: 'c-1' },
      signature: { ok: true, timestamp: t },
      eventId: 'evt-1',
      duplicate: false,
      answeredStatus: 200,
    });
    expect(d.headers['x-service-signature']).toBe(sign(SECRET, t, d.rawBody));
    expect(Object.keys(d.headers).every((k) => k === k.toLowerCase())).toBe(true);
    expect(Math.abs(d.receivedAt - Date.now())).toBeLessThan(10_000);
  });

  it('verifies the exact bytes: non-ASCII bodies and whitespace are preserved', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET });
    const body = '{ "eventId" : "évt-☎", "phone": "+15550100" }\n';
    const answer = await send(path, { body, headers: { 'x-service-signature': signPayload(SECRET, now(), body) } });
    expect(answer.status).toBe(200);
    expect(lastDelivery(path)).toMatchObject({ rawBody: body, eventId: 'évt-☎' });
  });

  it('accepts a rotated secret header where any v1 matches', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET });
    const body = '{"eventId":"rot"}';
    const t = now();
    const header = `t=${t},v1=${'0'.repeat(64)},v1=${sign(SECRET, t, body).split('v1=')[1]}`;
    expect((await send(path, { body, headers: { 'x-service-signature': header } })).status).toBe(200);
  });

  it('flags a repeated eventId as duplicate, per path, and answers it by the plan', async () => {
    const a = freshPath();
    const b = freshPath();
    receiver.register(a, { secret: SECRET });
    receiver.register(b, { secret: SECRET });
    await deliver(a, { eventId: 'same' });
    await deliver(a, { eventId: 'other' });
    expect((await deliver(a, { eventId: 'same' })).status).toBe(200);
    await deliver(b, { eventId: 'same' });
    expect(receiver.deliveries(a).map((d) => d.duplicate)).toEqual([false, false, true]);
    expect(receiver.deliveries(b).map((d) => d.duplicate)).toEqual([false]);
  });

  it('does not let a forged delivery poison duplicate detection', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET });
    expect((await deliver(path, { eventId: 'x' }, 'whsec_forger')).status).toBe(401);
    expect((await deliver(path, { eventId: 'x' })).status).toBe(200);
    expect(receiver.deliveries(path).map((d) => [d.eventId, d.duplicate])).toEqual([
      [undefined, false],
      ['x', false],
    ]);
  });
});

describe('refusals: clear status, JSON {error, message}, recorded, never a crash', () => {
  const expectRefusal = (answer: Answer, status: number, error: string): void => {
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject({ error });
    expect(typeof (answer.json as { message: unknown }).message).toBe('string');
    expect(answer.text).not.toContain(SECRET);
    expect(answer.text).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
  };

  it('missing header → 401 missing_header', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET });
    expectRefusal(await send(path, { body: '{"eventId":"m"}' }), 401, 'missing_header');
    expect(lastDelivery(path)).toMatchObject({
      signature: { ok: false, reason: 'missing_header' },
      answeredStatus: 401,
      rawBody: '{"eventId":"m"}',
    });
    expect(lastDelivery(path).json).toBeUndefined();
    expect(lastDelivery(path).eventId).toBeUndefined();
  });

  it('malformed header → 401 malformed_header', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET });
    expectRefusal(
      await send(path, { body: '{}', headers: { 'x-service-signature': 't=soon,v1=abc' } }),
      401,
      'malformed_header',
    );
    // The detail names which part is wrong, for the sender (401 body) and the report.
    expect(lastDelivery(path).signature).toEqual({
      ok: false,
      reason: 'malformed_header',
      detail: 'The x-service-signature header is malformed: t= is not a non-negative integer of unix seconds.',
    });
  });

  it('mismatch (tampered body or wrong secret) → 401 signature_mismatch, JSON not parsed', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET });
    const t = now();
    const header = sign(SECRET, t, '{"eventId":"a"}');
    expectRefusal(
      await send(path, { body: '{"eventId":"b"}', headers: { 'x-service-signature': header } }),
      401,
      'signature_mismatch',
    );
    expectRefusal(await deliver(path, { eventId: 'c' }, 'whsec_wrong'), 401, 'signature_mismatch');
    expect(receiver.deliveries(path).map((d) => [d.signature.ok, d.json])).toEqual([
      [false, undefined],
      [false, undefined],
    ]);
  });

  it('replay outside tolerance, past or future → 401 timestamp_outside_tolerance', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET });
    expectRefusal(await deliver(path, { eventId: 'old' }, SECRET, now() - 301 - 5), 401, 'timestamp_outside_tolerance');
    expectRefusal(await deliver(path, { eventId: 'new' }, SECRET, now() + 301 + 5), 401, 'timestamp_outside_tolerance');
    expect((await deliver(path, { eventId: 'ok' }, SECRET, now() - 200)).status).toBe(200);
  });

  it('honours a custom toleranceSeconds', async () => {
    const strict = await startReceiver({ toleranceSeconds: 5 });
    const strictAgent = new Agent({ connect: { ca: strict.caCertPem } });
    try {
      strict.register('/hooks/s', { secret: SECRET });
      const body = '{"eventId":"s"}';
      const answer = await send('/hooks/s', {
        body,
        base: strict.url,
        dispatcher: strictAgent,
        headers: { 'x-service-signature': sign(SECRET, now() - 60, body) },
      });
      expect(answer.status).toBe(401);
    } finally {
      await strictAgent.close();
      await strict.close();
    }
  });

  // A path registered without its secret is reserved, not refused: receiver-reserved.test.ts.

  it('body over maxBodyBytes → 413 (declared length and chunked)', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET });
    const big = JSON.stringify({ eventId: 'big', pad: 'x'.repeat(5000) });
    expectRefusal(
      await send(path, { body: big, headers: { 'x-service-signature': sign(SECRET, now(), big) } }),
      413,
      'payload_too_large',
    );
    const chunked = await request(`${receiver.url}${path}`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'x-service-signature': sign(SECRET, now(), big) },
      body: Readable.from(
        (function* () {
          for (let i = 0; i < 10; i++) yield Buffer.from(big.slice(i * 600, (i + 1) * 600));
        })(),
      ),
      headersTimeout: 5000,
    }).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    // The receiver answers 413 as soon as the limit is crossed; the client may also see the reset.
    if (!(chunked instanceof Error)) {
      expect(chunked.statusCode).toBe(413);
      await chunked.body.dump();
    }
    const recorded = receiver.deliveries(path);
    expect(recorded.length).toBe(2);
    expect(recorded.every((d) => d.answeredStatus === 413 && d.error === 'payload_too_large')).toBe(true);
  });

  it('invalid JSON after a valid signature → 400 invalid_json, with jsonError recorded', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET });
    const body = '{"eventId": "j",';
    expectRefusal(
      await send(path, { body, headers: { 'x-service-signature': sign(SECRET, now(), body) } }),
      400,
      'invalid_json',
    );
    const d = lastDelivery(path);
    expect(d.signature.ok).toBe(true);
    expect(d.json).toBeUndefined();
    expect(d.jsonError).toMatch(/JSON/);
    expect(d.answeredStatus).toBe(400);
  });

  it('unregistered path → 404; non-POST → 405 with Allow', async () => {
    expectRefusal(await deliver('/hooks/never-registered', { eventId: 'u' }), 404, 'not_found');
    const path = freshPath();
    receiver.register(path, { secret: SECRET });
    expectRefusal(await send(path, { method: 'GET' }), 405, 'method_not_allowed');
    expectRefusal(await send(path, { method: 'PUT', body: '{}' }), 405, 'method_not_allowed');
    expect(receiver.deliveries('/hooks/never-registered')[0]?.answeredStatus).toBe(404);
    expect(receiver.deliveries(path).map((d) => [d.method, d.answeredStatus])).toEqual([
      ['GET', 405],
      ['PUT', 405],
    ]);
  });

  it('refused deliveries do not consume the plan', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET, plan: [{ status: 503 }, { status: 202 }] });
    await send(path, { body: '{}' });
    await deliver(path, { eventId: 'p' }, 'whsec_wrong');
    expect((await deliver(path, { eventId: 'p' })).status).toBe(503);
    expect((await deliver(path, { eventId: 'p' })).status).toBe(202);
  });
});

describe('response plans', () => {
  it('500 ×3 then 200 forever', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET, plan: [{ status: 500, times: 3 }, { status: 200 }] });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await deliver(path, { eventId: 'retry' })).status);
    expect(statuses).toEqual([500, 500, 500, 200, 200, 200]);
    expect(receiver.deliveries(path).map((d) => d.duplicate)).toEqual([false, true, true, true, true, true]);
  });

  it('perEvent: each eventId goes through the plan from its first step, whatever else arrives', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET, plan: [{ status: 500, times: 1 }, { status: 200 }], perEvent: true });
    const statuses: number[] = [];
    for (const eventId of ['other', 'ours', 'other', 'ours']) statuses.push((await deliver(path, { eventId })).status);
    expect(statuses).toEqual([500, 500, 200, 200]);
    // A secret-only update keeps it; a new plan without perEvent is the path's again.
    receiver.register(path, { secret: SECRET });
    expect((await deliver(path, { eventId: 'third' })).status).toBe(500);
    receiver.register(path, { plan: [{ status: 500, times: 1 }, { status: 200 }] });
    expect((await deliver(path, { eventId: 'fourth' })).status).toBe(500);
    expect((await deliver(path, { eventId: 'fifth' })).status).toBe(200);
  });

  it('always 404', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET, plan: [{ status: 404 }] });
    for (let i = 0; i < 3; i++) expect((await deliver(path, { eventId: `g${i}` })).status).toBe(404);
  });

  it('setPlan restarts the plan', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET });
    expect((await deliver(path, { eventId: 'a' })).status).toBe(200);
    receiver.setPlan(path, [{ status: 410, times: 1 }, { status: 201 }]);
    expect((await deliver(path, { eventId: 'b' })).status).toBe(410);
    expect((await deliver(path, { eventId: 'c' })).status).toBe(201);
    expect(() => receiver.setPlan('/hooks/unknown', [{ status: 200 }])).toThrow(/not registered/);
  });

  it('hang: never answers, the client times out, then the next step answers', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET, plan: [{ hang: true }, { status: 200 }] });
    const body = '{"eventId":"h"}';
    const started = Date.now();
    await expect(
      send(path, { body, timeoutMs: 300, headers: { 'x-service-signature': sign(SECRET, now(), body) } }),
    ).rejects.toThrow(/timeout/i);
    // The client's 300 ms ended it, not a hang guard: the hang itself never ends.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(lastDelivery(path)).toMatchObject({ answeredStatus: 'no-answer', signature: { ok: true } });
    expect((await deliver(path, { eventId: 'h' })).status).toBe(200);
    expect(lastDelivery(path).duplicate).toBe(true);
  });

  it('close() destroys held sockets so nothing hangs', async () => {
    const r = await startReceiver();
    const a = new Agent({ connect: { ca: r.caCertPem } });
    r.register('/hooks/h', { secret: SECRET, plan: [{ hang: true }] });
    const body = '{"eventId":"held"}';
    const pending = request(`${r.url}/hooks/h`, {
      method: 'POST',
      body,
      dispatcher: a,
      headers: { 'x-service-signature': sign(SECRET, now(), body) },
      headersTimeout: 20_000,
    }).then(
      () => 'answered',
      () => 'socket closed',
    );
    for (let i = 0; i < 100 && r.deliveries().length === 0; i++) await new Promise((res) => setTimeout(res, 20));
    expect(r.deliveries()).toHaveLength(1);
    const started = Date.now();
    await r.close();
    expect(await pending).toBe('socket closed');
    // Closed by close(), not by the request's 20 s headers timeout, which would also say 'socket closed'.
    expect(Date.now() - started).toBeLessThan(10_000);
    await a.close();
  });

  it('validates plans', () => {
    expect(validatePlan([{ status: 200 }, { hang: true, times: 2 }]).ok).toBe(true);
    for (const bad of [
      [],
      [{}],
      [{ status: 99 }],
      [{ status: 700 }],
      [{ status: 200, times: 0 }],
      [{ hang: false }],
      [{ status: 200, hang: true }],
      'x',
      null,
    ]) {
      expect(validatePlan(bad).ok).toBe(false);
    }
    expect(() => receiver.register('/hooks/bad', { plan: [] })).toThrow();
    expect(() => receiver.register('/_receiver/x', {})).toThrow(/reserved/);
    expect(() => receiver.register('hooks/no-slash', {})).toThrow();
  });

  it('takeStep consumes steps in order and repeats the last forever', () => {
    const cursor = {
      plan: [{ status: 500, times: 2 }, { hang: true as const }, { status: 200 }],
      index: 0,
      usedInStep: 0,
    };
    const taken = Array.from({ length: 6 }, () => takeStep(cursor));
    expect(taken).toEqual([
      { status: 500, times: 2 },
      { status: 500, times: 2 },
      { hang: true },
      { status: 200 },
      { status: 200 },
      { status: 200 },
    ]);
  });
});

describe('bounded log', () => {
  it('keeps only the last maxDeliveries, seq still counting', async () => {
    const r = await startReceiver({ maxDeliveries: 3 });
    const a = new Agent({ connect: { ca: r.caCertPem } });
    try {
      r.register('/hooks/ring', { secret: SECRET });
      for (let i = 1; i <= 5; i++) {
        const body = JSON.stringify({ eventId: `r${i}` });
        await send('/hooks/ring', {
          body,
          base: r.url,
          dispatcher: a,
          headers: { 'x-service-signature': sign(SECRET, now(), body) },
        });
      }
      expect(r.deliveries().map((d) => [d.seq, d.eventId])).toEqual([
        [3, 'r3'],
        [4, 'r4'],
        [5, 'r5'],
      ]);
    } finally {
      await a.close();
      await r.close();
    }
  });
});

describe('loopback query port', () => {
  it('serves the query API over plain HTTP on 127.0.0.1, and nothing else', async () => {
    const r = await startReceiver({ loopbackQueryPort: true });
    try {
      expect(r.queryUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const put = await request(`${r.queryUrl}/_receiver/paths?path=/hooks/q`, {
        method: 'PUT',
        body: JSON.stringify({ secret: SECRET }),
        headers: { 'content-type': 'application/json' },
      });
      expect(put.statusCode).toBe(200);
      await put.body.dump();
      const delivery = await request(`${r.queryUrl}/hooks/q`, { method: 'POST', body: '{}' });
      expect(delivery.statusCode).toBe(404);
      await delivery.body.dump();
      expect(r.deliveries()).toEqual([]); // a delivery to the query port is not recorded
      const list = await request(`${r.queryUrl}/_receiver/deliveries`);
      expect(await list.body.json()).toEqual({ deliveries: [] });
    } finally {
      await r.close();
    }
    const plain = await startReceiver();
    expect(plain.queryUrl).toBeUndefined();
    await plain.close();
  });
});

describe('query API under /_receiver/', () => {
  it('PUT paths registers secret and plan, never echoing the secret', async () => {
    const path = freshPath();
    const put = await send(`/_receiver/paths?path=${encodeURIComponent(path)}`, {
      method: 'PUT',
      body: JSON.stringify({ secret: SECRET, plan: [{ status: 500, times: 1 }, { status: 200 }] }),
    });
    expect(put.status).toBe(200);
    expect(put.json).toEqual({
      path,
      hasSecret: true,
      plan: [{ status: 500, times: 1 }, { status: 200 }],
      perEvent: false,
    });
    expect(put.text).not.toContain(SECRET);
    expect((await deliver(path, { eventId: 'q' })).status).toBe(500);
    expect((await deliver(path, { eventId: 'q' })).status).toBe(200);

    // A plan-only update keeps the secret.
    const update = await send(`/_receiver/paths?path=${encodeURIComponent(path)}`, {
      method: 'PUT',
      body: '{"plan":[{"status":202}]}',
    });
    expect(update.json).toMatchObject({ hasSecret: true, plan: [{ status: 202 }] });
    expect((await deliver(path, { eventId: 'q2' })).status).toBe(202);

    const list = await send('/_receiver/paths', { method: 'GET' });
    expect(list.status).toBe(200);
    expect((list.json as { paths: Array<{ path: string }> }).paths.map((p) => p.path)).toContain(path);
    expect(list.text).not.toContain(SECRET);
  });

  it('PUT paths refuses bad input with 400', async () => {
    const bad = [
      ['/_receiver/paths', '{}'],
      ['/_receiver/paths?path=nope', '{}'],
      ['/_receiver/paths?path=/_receiver/x', '{}'],
      ['/_receiver/paths?path=/hooks/z', 'not json'],
      ['/_receiver/paths?path=/hooks/z', '[1]'],
      ['/_receiver/paths?path=/hooks/z', '{"secret":""}'],
      ['/_receiver/paths?path=/hooks/z', '{"plan":[{"status":"200"}]}'],
      ['/_receiver/paths?path=/hooks/z', '{"perEvent":"yes"}'],
    ] as const;
    for (const [url, body] of bad) {
      const answer = await send(url, { method: 'PUT', body });
      expect(answer.status, `${url} ${body}`).toBe(400);
      expect(answer.json).toMatchObject({ error: 'invalid_input' });
    }
  });

  it('GET deliveries filters by path and since; DELETE clears', async () => {
    const a = freshPath();
    const b = freshPath();
    receiver.register(a, { secret: SECRET });
    receiver.register(b, { secret: SECRET });
    await deliver(a, { eventId: 'a1' });
    await deliver(b, { eventId: 'b1' });
    await deliver(a, { eventId: 'a2' });

    const all = await send('/_receiver/deliveries', { method: 'GET' });
    const list = (all.json as { deliveries: Delivery[] }).deliveries;
    expect(list.map((d) => d.eventId)).toEqual(['a1', 'b1', 'a2']);

    const onlyA = (await send(`/_receiver/deliveries?path=${encodeURIComponent(a)}`, { method: 'GET' })).json as {
      deliveries: Delivery[];
    };
    expect(onlyA.deliveries.map((d) => d.eventId)).toEqual(['a1', 'a2']);

    const since = (await send(`/_receiver/deliveries?since=${list[0]?.seq}`, { method: 'GET' })).json as {
      deliveries: Delivery[];
    };
    expect(since.deliveries.map((d) => d.eventId)).toEqual(['b1', 'a2']);

    expect((await send('/_receiver/deliveries?since=-1', { method: 'GET' })).status).toBe(400);

    expect((await send('/_receiver/deliveries', { method: 'DELETE' })).status).toBe(204);
    expect(receiver.deliveries()).toEqual([]);
    expect(
      ((await send('/_receiver/deliveries', { method: 'GET' })).json as { deliveries: unknown[] }).deliveries,
    ).toEqual([]);
    // Clearing forgets seen eventIds too, but keeps registrations.
    expect((await deliver(a, { eventId: 'a1' })).status).toBe(200);
    expect(lastDelivery(a).duplicate).toBe(false);
  });

  it('control requests are not recorded as deliveries; unknown routes are 404, wrong methods 405', async () => {
    await send('/_receiver/health', { method: 'GET' });
    expect(receiver.deliveries()).toEqual([]);
    expect((await send('/_receiver/nope', { method: 'GET' })).status).toBe(404);
    expect((await send('/_receiver/deliveries', { method: 'POST', body: '{}' })).status).toBe(405);
  });

  it('no secret in anything returned or recorded', async () => {
    const path = freshPath();
    receiver.register(path, { secret: SECRET, plan: [{ status: 500 }] });
    await deliver(path, { eventId: 's1' });
    await deliver(path, { eventId: 's2' }, 'whsec_wrong');
    await send(path, { body: '{}', headers: { 'x-service-signature': 'garbage' } });
    await deliver(path, { eventId: 's3' }, SECRET, now() - 10_000);
    const everything = [
      JSON.stringify(receiver.deliveries()),
      (await send('/_receiver/deliveries', { method: 'GET' })).text,
      (await send('/_receiver/paths', { method: 'GET' })).text,
    ].join('\n');
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(SECRET.slice('whsec_'.length));
  });
});
