/**
 * The third post-hoc set (reference/post-hoc-faults-rfc2.ts): the list is well formed and apart
 * from every other list, each names a sentence of the spec and a section of a standard, and each
 * changes the behaviour it names: not with it off, yes with it on (through the control API). What
 * a client library hides (an interim answer, the framing of an HTTP/1.0 exchange, a connection
 * kept open, two Host lines) is read off a socket of its own (answersOnSocket); deliveries by an
 * HTTPS server of this file.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTlsMaterial } from '../../harness/webhooks/receiver.ts';
import { faults, FaultSet, unknownFaultIds } from '../../reference/faults.ts';
import { postHocFaults } from '../../reference/post-hoc-faults.ts';
import { rfcPostHocFaults } from '../../reference/post-hoc-faults-rfc.ts';
import { rfc2PostHocFaults, type Rfc2PostHocFaultId } from '../../reference/post-hoc-faults-rfc2.ts';
import { startReferenceServer } from '../../reference/server.ts';
import type { ReferenceServer } from '../../reference/server.ts';
import { expectWellFormedSet, firstDelivery, itChangesWhatItNames } from './post-hoc-sets.ts';
import { answersOnSocket, api, http, postJson } from './helpers.ts';
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
  'rfc2-early-hints-to-http10': async (s) => (await answersOnSocket(s, '/me', { version: '1.0' })).interim.length > 0,
  'rfc2-trailer-to-http10': async (s) =>
    (await answersOnSocket(s, '/me', { version: '1.0' })).finals[0]!.fields.some(([n]) => n === 'transfer-encoding'),
  'rfc2-host-repeated-first-taken': async (s) =>
    (await answersOnSocket(s, '/me', { hosts: [new URL(s.baseUrl).host, 'other.example'] })).finals[0]!.status !== 400,
  'rfc2-connection-close-ignored': async (s) => {
    const answers = await answersOnSocket(s, '/me', { askAgainAfterMs: 300 });
    expect(answers.finals[0]!.status).toBe(200);
    // Kept open, the connection answers the request written again (Node's parser refuses it: 400); closed it cannot.
    return answers.finals.length > 1;
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
  itChangesWhatItNames(probes, () => server);
});
