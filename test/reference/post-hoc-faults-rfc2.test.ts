/**
 * The third post-hoc set (reference/post-hoc-faults-rfc2.ts): the list is well formed and apart
 * from every other list, each names a sentence of the spec and a section of a standard, and each
 * changes the behaviour it names: not with it off, yes with it on (through the control API). What
 * a client library hides (an interim answer, the framing of an HTTP/1.0 exchange, a connection
 * kept open, two Host lines) is read off a raw socket; deliveries by an HTTPS server of this file.
 */
import { createServer, type Server } from 'node:https';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTlsMaterial } from '../../harness/webhooks/receiver.ts';
import { faults, FaultSet, unknownFaultIds } from '../../reference/faults.ts';
import { postHocFaults } from '../../reference/post-hoc-faults.ts';
import { rfcPostHocFaults } from '../../reference/post-hoc-faults-rfc.ts';
import { rfc2PostHocFaults, type Rfc2PostHocFaultId } from '../../reference/post-hoc-faults-rfc2.ts';
import { startReferenceServer } from '../../reference/server.ts';
import type { ReferenceServer } from '../../reference/server.ts';
import { expectWellFormedSet, firstDelivery } from './post-hoc-sets.ts';
import { api, http, postJson, reset } from './helpers.ts';
import type { Res } from './helpers.ts';

let server: ReferenceServer;
let hooks: Server;
let hooksPort: number;
/** The raw header lines of each delivery, by path. */
const arrivals = new Map<string, string[][]>();

beforeAll(async () => {
  const tls = await generateTlsMaterial();
  hooks = createServer({ cert: tls.cert, key: tls.key }, (request, response) => {
    request.resume();
    request.on('end', () => {
      arrivals.set(request.url ?? '', [...(arrivals.get(request.url ?? '') ?? []), request.rawHeaders]);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => hooks.listen(0, '127.0.0.1', done));
  hooksPort = (hooks.address() as AddressInfo).port;
  server = await startReferenceServer({ rateLimit: false, clockScale: 0, trustedCaPem: [tls.caCertPem] });
});
afterAll(async () => {
  await server?.close();
  await new Promise((done) => hooks?.close(done));
});

type S = ReferenceServer;
const tk = (s: S) => s.fixtures.tokens;
const json = (r: Res) => r.json as Record<string, unknown>;
const UNREACHABLE = 'https://127.0.0.1:1/never';

/** How many final answers `text` holds whole, interim (1xx) ones skipped. */
function wholeAnswers(text: string): number {
  let at = 0;
  let n = 0;
  for (;;) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end === -1) return n;
    const head = text.slice(at, end).toLowerCase();
    let next = end + 4;
    const length = /\r\ncontent-length: *([0-9]+)/.exec(head);
    if (/^http\/1\.[01] 1/.test(head)) next = end + 4;
    else if (length) next += Number(length[1]);
    else if (/\r\ntransfer-encoding: *chunked/.test(head)) {
      const last = text.indexOf('\r\n0\r\n', end);
      const close = last === -1 ? -1 : text.indexOf('\r\n\r\n', last + 2);
      if (close === -1) return n;
      next = close + 4;
    } else return n;
    if (next > text.length) return n;
    if (!/^http\/1\.[01] 1/.test(head)) n++;
    at = next;
  }
}

/**
 * Writes `requests` on one connection, each after the previous answer's last byte, and gives
 * every byte read until the server closes it (or every answer came): after `Connection: close`
 * the next request must go unanswered.
 */
async function onOneConnection(s: S, requests: readonly string[]): Promise<string> {
  const { port } = new URL(s.authUrl);
  return new Promise<string>((done, fail) => {
    let text = '';
    let sent = 0;
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(requests[sent++]!));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (wholeAnswers(text) < sent) return;
      if (sent < requests.length) socket.write(requests[sent++]!);
      else socket.end();
    });
    socket.on('close', () => done(text));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? done(text) : fail(error),
    );
  });
}
const get = (s: S, version: string, extra = '') =>
  `GET /v1/me HTTP/${version}\r\nHost: ${new URL(s.authUrl).host}\r\n` +
  `Authorization: Bearer ${tk(s).all}\r\n${extra}\r\n`;
/** The final answer's status line and header lines, lower-cased. */
const finalHead = (text: string) => {
  const start = text.search(/HTTP\/1\.[01] [2-5][0-9]{2}/);
  return text.slice(start, text.indexOf('\r\n\r\n', start)).toLowerCase();
};

const FORM = 'application/x-www-form-urlencoded';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
/** A client_secret_post token request of `body` (a form) with `headers`. */
function token(s: S, fields: string, headers: Record<string, string> = { accept: 'application/json' }) {
  const { clientId, clientSecret } = s.fixtures.oauth;
  const body = `grant_type=client_credentials&client_id=${clientId}&client_secret=${clientSecret}${fields}`;
  return http('POST', `${s.authUrl}/oauth/token`, { body, contentType: FORM, headers });
}

let seq = 0;
/** The raw header lines of one dnc.added delivery to a fresh hook of this file's HTTPS server. */
async function delivered(s: S): Promise<string[]> {
  const path = `/rfc2/${++seq}`;
  return firstDelivery(s, `https://127.0.0.1:${hooksPort}${path}`, () => arrivals.get(path) ?? []);
}

/** For each fault: does the deviation show? */
const probes: Record<Rfc2PostHocFaultId, (s: S) => Promise<boolean>> = {
  'rfc2-early-hints-to-http10': async (s) => /^HTTP\/1\.[01] 1/m.test(await onOneConnection(s, [get(s, '1.0')])),
  'rfc2-trailer-to-http10': async (s) =>
    /^transfer-encoding:/m.test(finalHead(await onOneConnection(s, [get(s, '1.0')]))),
  'rfc2-host-repeated-first-taken': async (s) =>
    !finalHead(await onOneConnection(s, [get(s, '1.1', 'Host: other.example\r\nConnection: close\r\n')])).startsWith(
      'http/1.1 400',
    ),
  'rfc2-connection-close-ignored': async (s) => {
    const text = await onOneConnection(s, [get(s, '1.1', 'Connection: close\r\n'), get(s, '1.1')]);
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    // Kept open, the connection answers the next request (Node's parser refuses it: 400), closed it cannot.
    return wholeAnswers(text) > 1;
  },
  'rfc2-precondition-before-auth': async (s) =>
    (await api(s, 'GET', '/me', { headers: { 'if-none-match': '*' } })).status !== 401,
  'rfc2-media-type-quoted-parameter-refused': async (s) => {
    const body = JSON.stringify({ event: 'dnc.added', target_url: UNREACHABLE });
    const contentType = 'application/json; charset="utf-8"';
    return (await api(s, 'POST', '/hooks', { token: tk(s).all, body, contentType })).status !== 200;
  },
  'rfc2-token-scope-ignored-unreported': async (s) => {
    const res = await token(s, '&scope=read:cdrs');
    expect(res.status, res.rawBody).toBe(200);
    return json(res).scope !== 'read:cdrs';
  },
  'rfc2-token-repeated-scope-merged': async (s) =>
    (await token(s, '&scope=read:cdrs&scope=read:balance')).status === 200,
  'rfc2-token-two-auth-methods-body-wins': async (s) => {
    const authorization = basic(s.fixtures.oauth.clientId, 'wrong');
    return (await token(s, '', { accept: 'application/json', authorization })).status === 200;
  },
  'rfc2-metadata-grant-types-omitted': async (s) =>
    !('grant_types_supported' in json(await http('GET', `${s.authUrl}/.well-known/oauth-authorization-server`))),
  'rfc2-token-answers-form-encoded': async (s) =>
    !(await token(s, '', { accept: '*/*' })).headers['content-type']?.startsWith('application/json'),
  'rfc2-hook-id-uuid-variant': async (s) => {
    const hook = json(await postJson(s, '/hooks', tk(s).all, { event: 'dnc.added', target_url: UNREACHABLE }));
    expect(hook.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    return !/^[89ab]$/.test(String(hook.id)[19]!);
  },
  'rfc2-webhook-te-without-connection': async (s) =>
    (await delivered(s)).some((name, i) => i % 2 === 0 && name.toLowerCase() === 'te'),
};

describe('the third post-hoc set (rfc2)', () => {
  it('has 10 faults or more, unique rfc2- ids apart from every other list, each a sentence of the spec', () => {
    expectWellFormedSet(rfc2PostHocFaults, {
      prefix: 'rfc2',
      others: new Set<string>([...faults, ...postHocFaults, ...rfcPostHocFaults].map((f) => f.id)),
      min: 10,
    });
  });

  it('the fault switches take them, and a reference started with one has it on at once', async () => {
    expect(unknownFaultIds(rfc2PostHocFaults.map((f) => f.id))).toEqual([]);
    expect(new FaultSet(['rfc2-trailer-to-http10', 'me-wrong-status']).list()).toEqual([
      'me-wrong-status',
      'rfc2-trailer-to-http10',
    ]);
    const s = await startReferenceServer({ rateLimit: false, faults: ['rfc2-metadata-grant-types-omitted'] });
    try {
      expect(await probes['rfc2-metadata-grant-types-omitted'](s)).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe('each fault of the third set changes the behaviour it names', () => {
  for (const [id, probe] of Object.entries(probes) as Array<[Rfc2PostHocFaultId, (s: S) => Promise<boolean>]>) {
    it(id, async () => {
      await reset(server, []);
      expect(await probe(server), `${id}: deviation seen with the fault off`).toBe(false);
      await reset(server, [id]);
      expect(await probe(server), `${id}: no deviation with the fault on`).toBe(true);
      await reset(server, []);
    });
  }
});
