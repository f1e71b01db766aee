/**
 * The receiver deployed as a service next to the target: `npm run receiver` with
 * RECEIVER_TOKEN, in its own process, and the suite's ReceiverClient against its pull API. The
 * service stores bytes and headers as received and never holds a secret; the suite verifies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../harness/config/config.ts';
import {
  checkReceiverService,
  createReceiverClient,
  DeliveryRefused,
  type ReceiverClient,
} from '../../../harness/seams/receiver-client.ts';
import { parseCliConfig } from '../../../harness/webhooks/receiver-cli.ts';
import { startReceiver } from '../../../harness/webhooks/receiver.ts';
import { signPayload } from '../../../contract/signature.ts';

const TOKEN = 'rcv_test_token_0123456789abcdef';
const SECRET = 'whsec_service_test_T7x';
const now = (): number => Math.floor(Date.now() / 1000);

interface Service {
  url: string;
  process: ChildProcess;
}

/** `npm run -s receiver` as an operator starts it: plain HTTP on loopback (as behind a TLS proxy). */
async function startService(extra: Record<string, string>): Promise<Service> {
  const child = spawn('npm', ['run', '-s', 'receiver'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      RECEIVER_TOKEN: TOKEN,
      RECEIVER_PLAIN_HTTP: 'true',
      ...extra,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) resolve(match[1]!);
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`npm run receiver exited ${code}: ${stderr}`)));
  });
  return { url, process: child };
}

function stop(service: Service): void {
  if (service.process.exitCode === null) process.kill(-service.process.pid!, 'SIGTERM');
}

async function deliver(url: string, body: string | Buffer, header: string | undefined): Promise<number> {
  const response = await request(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...(header === undefined ? {} : { 'X-Service-Signature': header }) },
  });
  await response.body.dump();
  return response.statusCode;
}

describe('npm run receiver as a service (RECEIVER_TOKEN), the suite polling it', () => {
  let service: Service;
  let client: ReceiverClient;
  beforeAll(async () => {
    service = await startService({});
    client = createReceiverClient({
      queryUrl: service.url,
      publicUrl: 'https://hooks.example.com',
      token: TOKEN,
      remote: true,
    });
  }, 120_000);
  afterAll(() => stop(service));

  it('refuses the pull API without the token or with a wrong one, and says which variable to fix', async () => {
    for (const authorization of [undefined, 'Bearer wrong_token_0123456789', `Basic ${TOKEN}`]) {
      const response = await request(`${service.url}/_receiver/deliveries`, {
        headers: authorization === undefined ? {} : { authorization },
      });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="receiver"');
      expect(await response.body.text()).not.toContain(TOKEN);
    }
    await expect(checkReceiverService(service.url, 'wrong_token_0123456789')).rejects.toThrow(
      /^RECEIVER_TOKEN: the receiver at http:\/\/127\.0\.0\.1:\d+ refused it \(401\)/,
    );
    await expect(checkReceiverService(service.url, TOKEN)).resolves.toBeUndefined();
    const stranger = createReceiverClient({
      queryUrl: service.url,
      publicUrl: 'https://hooks.example.com',
      token: 'wrong_token_0123456789',
      remote: true,
    });
    await expect(stranger.deliveries('/hooks/x')).rejects.toThrow(
      /refused the suite's token \(401\); set RECEIVER_TOKEN/,
    );
  });

  it('never takes a secret: the client keeps it, and a PUT carrying one is refused', async () => {
    await client.register('/hooks/call.ended/s1', { secret: SECRET });
    const paths = await request(`${service.url}/_receiver/paths`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const listed = (await paths.body.json()) as { paths: Array<{ path: string; hasSecret: boolean }> };
    expect(listed.paths.find((p) => p.path === '/hooks/call.ended/s1')).toMatchObject({ hasSecret: false });
    const put = await request(`${service.url}/_receiver/paths?path=/hooks/leak`, {
      method: 'PUT',
      body: JSON.stringify({ secret: SECRET }),
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    });
    expect(put.statusCode).toBe(400);
    expect(await put.body.text()).toMatch(/store-only and never takes a secret/);
  });

  it('keeps bytes and headers as received; the suite parses good ones, refuses a bad one with its reason', async () => {
    const path = '/hooks/call.ended/s2';
    await client.register(path, { secret: SECRET });
    const good = Buffer.from('{"eventId":"evt_s2","callId":"c2","note":"caf\u00e9 \u260e"}', 'utf8');
    expect(await deliver(`${service.url}${path}`, good, signPayload(SECRET, now(), good))).toBe(200);
    const list = await client.waitFor(path, (l) => l.some((d) => d.eventId === 'evt_s2'), 5_000);
    expect(list[0]!.json).toMatchObject({ callId: 'c2', note: 'caf\u00e9 \u260e' });
    expect(Buffer.from(list[0]!.bodyBase64, 'base64').equals(good)).toBe(true);
    // Header names as the sender wrote them, in order.
    expect(list[0]!.rawHeaders).toContain('X-Service-Signature');

    // A target that signs with the secret minus its prefix: the service still answers 200 (it
    // can't know), the suite fails the wait at once and names the part.
    const bad = '{"eventId":"evt_bad","callId":"c3"}';
    expect(await deliver(`${service.url}${path}`, bad, signPayload(SECRET.replace(/^whsec_/, ''), now(), bad))).toBe(
      200,
    );
    const error = await client
      .waitFor(path, (l) => l.some((d) => d.eventId === 'evt_bad'), 30_000)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryRefused);
    expect((error as Error).message).toMatch(
      /fails the suite's signature verification: signature_mismatch: .*the key is the secret without its whsec_ prefix/,
    );
  });

  it('answers by a response plan registered over the pull API: 500 three times, then 200', async () => {
    const path = '/hooks/call.ended/plan';
    await client.register(path, { secret: SECRET, plan: [{ status: 500, times: 3 }, { status: 200 }] });
    const body = '{"eventId":"evt_plan"}';
    const answers: number[] = [];
    for (let i = 0; i < 5; i++)
      answers.push(await deliver(`${service.url}${path}`, body, signPayload(SECRET, now(), body)));
    expect(answers).toEqual([500, 500, 500, 200, 200]);
    const list = await client.deliveries(path);
    expect(list.map((d) => [d.answeredStatus, d.duplicate, d.refusal])).toEqual([
      [500, false, undefined],
      [500, true, undefined],
      [500, true, undefined],
      [200, true, undefined],
      [200, true, undefined],
    ]);
  });
});

describe('the service keeps a bounded store', () => {
  it('RECEIVER_MAX_DELIVERIES keeps the newest; RECEIVER_MAX_AGE_S forgets older deliveries and paths', async () => {
    const service = await startService({ RECEIVER_MAX_DELIVERIES: '3', RECEIVER_MAX_AGE_S: '1' });
    try {
      const client = createReceiverClient({
        queryUrl: service.url,
        publicUrl: 'https://hooks.example.com',
        token: TOKEN,
        remote: true,
      });
      await client.register('/hooks/b', { secret: SECRET });
      for (let i = 1; i <= 5; i++) {
        const body = `{"eventId":"evt_${i}"}`;
        await deliver(`${service.url}/hooks/b`, body, signPayload(SECRET, now(), body));
      }
      expect((await client.deliveries('/hooks/b')).map((d) => d.eventId)).toEqual(['evt_3', 'evt_4', 'evt_5']);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await client.deliveries('/hooks/b')).toEqual([]);
      // The registration expired too: a late delivery is refused as an unknown path.
      expect(await deliver(`${service.url}/hooks/b`, '{}', undefined)).toBe(404);
    } finally {
      stop(service);
    }
  }, 120_000);

  it('also serves TLS: the generated certificate, the pull API behind the same token', async () => {
    const receiver = await startReceiver({ token: TOKEN, storeOnly: true });
    try {
      expect(receiver.localUrl).toMatch(/^https:/);
      const client = createReceiverClient({
        queryUrl: receiver.localUrl,
        publicUrl: receiver.url,
        caPem: receiver.caCertPem,
        token: TOKEN,
        remote: false,
      });
      await client.register('/hooks/tls', { plan: [{ status: 202 }] });
      expect(receiver.deliveries()).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describe('configuration of a deployed receiver, one line each', () => {
  const remote = {
    API_BASE_URL: 'https://api.example.com/v1',
    TOKEN_ALL: 'tok_all_x',
    WEBHOOK_PUBLIC_URL: 'https://hooks.example.com',
  };
  const errorOf = (env: Record<string, string>): ConfigError => {
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error;
    }
    throw new Error('expected a ConfigError');
  };

  it('takes RECEIVER_URL + RECEIVER_TOKEN for a remote target, and treats the token as a secret', () => {
    const config = loadConfig({ ...remote, RECEIVER_URL: 'https://receiver.example.com/', RECEIVER_TOKEN: TOKEN });
    expect(config.receiverService).toEqual({ url: 'https://receiver.example.com', token: TOKEN });
    expect(config.secrets).toContain(TOKEN);
  });

  it.each([
    [{ ...remote, RECEIVER_URL: 'https://receiver.example.com' }, 'RECEIVER_URL', /without RECEIVER_TOKEN/],
    [
      { ...remote, RECEIVER_URL: 'http://receiver.example.com', RECEIVER_TOKEN: TOKEN },
      'RECEIVER_URL',
      /must use https/,
    ],
    [
      { ...remote, RECEIVER_URL: 'https://receiver.example.com/hooks', RECEIVER_TOKEN: TOKEN },
      'RECEIVER_URL',
      /origin only/,
    ],
    [
      { API_BASE_URL: remote.API_BASE_URL, RECEIVER_URL: 'https://receiver.example.com', RECEIVER_TOKEN: TOKEN },
      'RECEIVER_URL',
      /without WEBHOOK_PUBLIC_URL/,
    ],
    [{ RECEIVER_URL: 'https://receiver.example.com', RECEIVER_TOKEN: TOKEN }, 'RECEIVER_URL', /without API_BASE_URL/],
    [{ ...remote, RECEIVER_TOKEN: TOKEN }, 'RECEIVER_TOKEN', /without RECEIVER_URL/],
    [
      { ...remote, RECEIVER_URL: 'https://receiver.example.com', RECEIVER_TOKEN: 'short' },
      'RECEIVER_TOKEN',
      /at least 16 characters/,
    ],
  ])('refuses %j naming %s', (env, variable, message) => {
    const error = errorOf(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(message);
    expect(error.message.split('\n')).toHaveLength(1);
    expect(error.message).not.toContain(TOKEN);
  });

  it('npm run receiver refuses a non-loopback host without a token, and bad bounds', () => {
    expect(parseCliConfig({ RECEIVER_HOST: '0.0.0.0' }, [])).toEqual({
      ok: false,
      message:
        'RECEIVER_HOST=0.0.0.0 is not loopback: set RECEIVER_TOKEN so the deliveries and the pull API ' +
        'are not open to anyone who can reach it',
    });
    expect(parseCliConfig({ RECEIVER_HOST: '0.0.0.0', RECEIVER_TOKEN: TOKEN }, [])).toMatchObject({
      ok: true,
      options: { token: TOKEN, storeOnly: true, maxAgeMs: 3_600_000 },
    });
    expect(parseCliConfig({ RECEIVER_MAX_AGE_S: '0' }, [])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^RECEIVER_MAX_AGE_S="0" must be a whole number/),
    });
    expect(parseCliConfig({ RECEIVER_MAX_DELIVERIES: 'lots' }, [])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^RECEIVER_MAX_DELIVERIES="lots"/),
    });
    expect(
      parseCliConfig(
        { RECEIVER_PLAIN_HTTP: 'true', RECEIVER_TLS_CERT: '/a.pem', RECEIVER_TLS_KEY: '/a.key' },
        [],
        () => ({ ok: true, pem: 'x' }),
      ),
    ).toMatchObject({ ok: false, message: expect.stringMatching(/exclude each other/) });
    expect(parseCliConfig({ RECEIVER_PLAIN_HTTP: 'maybe' }, [])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/must be true or false/),
    });
  });
});
