/**
 * The RFC set of post-hoc faults (reference/post-hoc-faults-rfc.ts): the list is well formed and
 * apart from the self-proof catalogue and the first post-hoc set, each names a sentence the spec
 * holds and a section of a standard, and each changes the behaviour it names: not with it off
 * (the reference as it is), yes with it on (switched through the control API, as `occ reference
 * --faults` and OCC_REFERENCE_FAULTS switch it). What a client library would hide or refuse (a
 * byte order mark, two framings, a request-target in absolute form) is read off a raw socket;
 * deliveries are read by an HTTPS server of this file that keeps the raw header lines and bytes.
 */
import { createServer, type Server } from 'node:https';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTlsMaterial } from '../../harness/webhooks/receiver.ts';
import { faults, FaultSet, unknownFaultIds } from '../../reference/faults.ts';
import { postHocFaults } from '../../reference/post-hoc-faults.ts';
import { rfcPostHocFaults, type RfcPostHocFaultId } from '../../reference/post-hoc-faults-rfc.ts';
import { startReferenceServer } from '../../reference/server.ts';
import type { ReferenceServer } from '../../reference/server.ts';
import { expectWellFormedSet, firstDelivery, itChangesWhatItNames } from './post-hoc-sets.ts';
import { api, http, postJson } from './helpers.ts';
import type { Res } from './helpers.ts';

/** What a delivery brought: its raw header lines (names as sent) and its body bytes. */
interface Arrival {
  readonly rawHeaders: string[];
  readonly body: Buffer;
}

let server: ReferenceServer;
let limited: ReferenceServer;
let hooks: Server;
let hooksPort: number;
const arrivals = new Map<string, Arrival[]>();
const RATE = 5;

beforeAll(async () => {
  const tls = await generateTlsMaterial();
  hooks = createServer({ cert: tls.cert, key: tls.key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const list = arrivals.get(request.url ?? '') ?? [];
      list.push({ rawHeaders: request.rawHeaders, body: Buffer.concat(chunks) });
      arrivals.set(request.url ?? '', list);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => hooks.listen(0, '127.0.0.1', done));
  hooksPort = (hooks.address() as AddressInfo).port;
  [server, limited] = await Promise.all([
    startReferenceServer({ rateLimit: false, clockScale: 0, trustedCaPem: [tls.caCertPem] }),
    startReferenceServer({ rateLimit: { perWindow: RATE, windowMs: 60_000 } }),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.close(), limited?.close()]);
  await new Promise((done) => hooks?.close(done));
});

type S = ReferenceServer;
const tk = (s: S) => s.fixtures.tokens;
const json = (r: Res) => r.json as Record<string, unknown>;
const UNREACHABLE = 'https://127.0.0.1:1/never';

/** One raw HTTP/1.1 exchange: the request's text as given, the answer's status, header lines and content bytes. */
async function raw(s: S, head: string) {
  const { port } = new URL(s.authUrl);
  const bytes = await new Promise<Buffer>((done, fail) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(`${head}Connection: close\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => done(Buffer.concat(chunks)));
    socket.on('error', fail);
  });
  const end = bytes.indexOf('\r\n\r\n');
  const [status, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers = lines.map((line) => [
    line.slice(0, line.indexOf(':')).toLowerCase(),
    line.slice(line.indexOf(':') + 1).trim(),
  ]);
  const named = (name: string) => headers.filter(([n]) => n === name).map(([, v]) => v!);
  return { status: Number(status!.split(' ')[1]), named, after: bytes.subarray(end + 4) };
}
const rawGet = (s: S, path: string, token: string) =>
  raw(s, `GET ${path} HTTP/1.1\r\nHost: ${new URL(s.authUrl).host}\r\nAuthorization: Bearer ${token}\r\n`);

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = 'application/x-www-form-urlencoded';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
/** A token request of `fields`, by client_secret_post unless `authorization` is given. */
function token(s: S, fields: Record<string, string>, authorization?: string) {
  const { clientId, clientSecret } = s.fixtures.oauth;
  const credentials: Record<string, string> =
    authorization === undefined ? { client_id: clientId, client_secret: clientSecret } : {};
  return http('POST', `${s.authUrl}/oauth/token`, {
    body: form({ grant_type: 'client_credentials', ...credentials, ...fields }),
    contentType: FORM,
    ...(authorization === undefined ? {} : { headers: { authorization } }),
  });
}
const withBearer = (s: S, path: string, authorization: string) =>
  api(s, 'GET', path, { headers: { authorization: authorization.replace('<t>', tk(s).all) } });

let seq = 0;
/** One dnc.added delivery to a fresh hook of this file's HTTPS server, as it arrived. */
async function delivered(s: S): Promise<Arrival> {
  const path = `/rfc/${++seq}`;
  return firstDelivery(s, `https://127.0.0.1:${hooksPort}${path}`, () => arrivals.get(path) ?? []);
}
const headerLines = (a: Arrival, name: string) =>
  a.rawHeaders.flatMap((n, i) => (i % 2 === 0 && n.toLowerCase() === name ? [a.rawHeaders[i + 1]!] : []));
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$/;
/** Characters RFC 6749 §5.2 allows in error and error_description. */
const OAUTH_CHARS = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;

/** For each fault: does the deviation show? */
const probes: Record<RfcPostHocFaultId, (s: S) => Promise<boolean>> = {
  'rfc-405-without-allow': async (s) => {
    const res = await api(s, 'PUT', '/me', { token: tk(s).all });
    expect(res.status).toBe(405);
    return res.headers.allow === undefined;
  },
  'rfc-head-refused': async (s) => (await api(s, 'HEAD', '/me', { token: tk(s).all })).status !== 200,
  'rfc-head-content-length-zero': async (s) => {
    const got = await api(s, 'GET', '/balance', { token: tk(s).all });
    const head = await api(s, 'HEAD', '/balance', { token: tk(s).all });
    return head.headers['content-length'] !== String(Buffer.byteLength(got.rawBody));
  },
  'rfc-204-content-length': async (s) => {
    const hook = json(await postJson(s, '/hooks', tk(s).all, { event: 'dnc.added', target_url: UNREACHABLE }));
    const res = await raw(
      s,
      `DELETE /v1/hooks/${hook.id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tk(s).all}\r\n`,
    );
    expect(res.status).toBe(204);
    return res.named('content-length').length > 0;
  },
  'rfc-date-missing': async (s) => (await api(s, 'GET', '/me', { token: tk(s).all })).headers.date === undefined,
  'rfc-chunked-with-content-length': async (s) => {
    const res = await rawGet(s, '/v1/cdrs', tk(s).all);
    return res.named('transfer-encoding').length > 0 && res.named('content-length').length > 0;
  },
  'rfc-absolute-form-404': async (s) => (await rawGet(s, `${s.baseUrl}/me`, tk(s).all)).status !== 200,
  'rfc-retry-after-fraction': async (s) => {
    let res: Res | undefined;
    for (let i = 0; i <= RATE && res?.status !== 429; i++) res = await api(s, 'GET', '/me', { token: tk(s).all });
    expect(res?.status).toBe(429);
    return !/^[0-9]+$/.test(res!.headers['retry-after'] ?? '');
  },
  'rfc-header-name-case-sensitive': async (s) => (await withBearer(s, '/me', 'Bearer <t>')).status !== 200,
  'rfc-bearer-extra-space-refused': async (s) => (await withBearer(s, '/me', 'Bearer  <t>')).status !== 200,
  'rfc-bearer-scheme-case-sensitive': async (s) => (await withBearer(s, '/me', 'bearer <t>')).status !== 200,
  'rfc-json-bom': async (s) =>
    (await rawGet(s, '/v1/cdrs', tk(s).all)).after.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])),
  'rfc-json-infinity': async (s) => (await api(s, 'GET', '/balance', { token: tk(s).all })).jsonError !== undefined,
  'rfc-json-leading-whitespace-refused': async (s) => {
    const body = `\n  ${JSON.stringify({ aiAgentId: s.fixtures.agents.provisioned, toNumber: '+14155550180' })}`;
    return (await api(s, 'POST', '/calls', { token: tk(s).all, body, contentType: 'application/json' })).status !== 200;
  },
  'rfc-json-escape-refused': async (s) => {
    const body = `{"event":"call\\u002eended","target_url":"${UNREACHABLE}"}`;
    return (await api(s, 'POST', '/hooks', { token: tk(s).all, body, contentType: 'application/json' })).status !== 200;
  },
  'rfc-oauth-token-type-missing': async (s) => {
    const res = await token(s, {});
    expect(res.status).toBe(200);
    return json(res).token_type === undefined;
  },
  'rfc-oauth-error-code-unregistered': async (s) =>
    json(await token(s, { client_secret: 'wrong' })).error !== 'invalid_client',
  'rfc-oauth-error-description-quotes': async (s) => {
    const res = await token(s, { grant_type: 'password' });
    expect(res.status).toBe(400);
    return !OAUTH_CHARS.test(String(json(res).error_description));
  },
  'rfc-oauth-basic-401-no-challenge': async (s) => {
    const res = await token(s, {}, basic(s.fixtures.oauth.clientId, 'wrong'));
    expect(res.status).toBe(401);
    return !/^basic/i.test(res.headers['www-authenticate'] ?? '');
  },
  'rfc-oauth-unknown-parameter-refused': async (s) =>
    (await token(s, { audience: 'https://api.example' })).status !== 200,
  'rfc-oauth-basic-unsupported': async (s) =>
    (await token(s, {}, basic(s.fixtures.oauth.clientId, s.fixtures.oauth.clientSecret))).status !== 200,
  'rfc-webhook-bom': async (s) => (await delivered(s)).body.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])),
  'rfc-webhook-content-type-twice': async (s) => headerLines(await delivered(s), 'content-type').length > 1,
  'rfc-webhook-date-iso': async (s) => headerLines(await delivered(s), 'date').some((date) => !IMF_FIXDATE.test(date)),
  'rfc-webhook-host-without-port': async (s) =>
    headerLines(await delivered(s), 'host').some((host) => host !== `127.0.0.1:${hooksPort}`),
  'rfc-metadata-issuer-trailing-slash': async (s) =>
    json(await http('GET', `${s.authUrl}/.well-known/oauth-authorization-server`)).issuer !== s.authUrl,
  'rfc-metadata-octet-stream': async (s) =>
    !(await http('GET', `${s.authUrl}/.well-known/oauth-authorization-server`)).headers['content-type']?.startsWith(
      'application/json',
    ),
  'rfc-cdr-offset-without-colon': async (s) => {
    const calls = json(await api(s, 'GET', '/cdrs', { token: tk(s).all })).calls as Array<{ startTime: string }>;
    expect(calls.length).toBeGreaterThan(0);
    return calls.some((c) => /[+-][0-9]{4}$/.test(c.startTime));
  },
};

describe('the RFC set of post-hoc faults', () => {
  it('has 22 faults or more, unique rfc- ids apart from both other lists, each a sentence of the spec', () => {
    expectWellFormedSet(rfcPostHocFaults, {
      prefix: 'rfc',
      others: new Set<string>([...faults.map((f) => f.id), ...postHocFaults.map((f) => f.id)]),
      min: 22,
    });
  });

  it('spreads over the standards: HTTP 8 or more, JSON 3, OAuth and bearer 5, the webhook sender 3', () => {
    const count = (test: (f: (typeof rfcPostHocFaults)[number]) => boolean) => rfcPostHocFaults.filter(test).length;
    const webhook = (f: (typeof rfcPostHocFaults)[number]) => f.id.startsWith('rfc-webhook-');
    expect(count((f) => /^RFC 911[02]/.test(f.standard) && !webhook(f))).toBeGreaterThanOrEqual(8);
    expect(count((f) => f.standard.startsWith('RFC 8259') && !webhook(f))).toBeGreaterThanOrEqual(3);
    expect(count((f) => /^RFC 67(49|50)/.test(f.standard))).toBeGreaterThanOrEqual(5);
    expect(count(webhook)).toBeGreaterThanOrEqual(3);
  });

  it('the fault switches take them; the self-proof list is the same', () => {
    expect(unknownFaultIds(rfcPostHocFaults.map((f) => f.id))).toEqual([]);
    expect(faults.some((f) => f.id.startsWith('rfc-'))).toBe(false);
    const set = new FaultSet(['rfc-date-missing', 'ph-scope-403', 'me-wrong-status']);
    expect(set.list()).toEqual(['me-wrong-status', 'ph-scope-403', 'rfc-date-missing']);
  });

  it('a reference started with one is on at once', async () => {
    const s = await startReferenceServer({ rateLimit: false, faults: ['rfc-head-refused'] });
    try {
      expect((await api(s, 'HEAD', '/me', { token: s.fixtures.tokens.all })).status).toBe(405);
    } finally {
      await s.close();
    }
  });
});

describe('each fault of the RFC set changes the behaviour it names', () => {
  itChangesWhatItNames(probes, (id) => (id === 'rfc-retry-after-fraction' ? limited : server));
});
