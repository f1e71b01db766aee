/**
 * `occ control-check` against the reference's test-control endpoint: clean, it passes every rule;
 * with each control fault (reference/control-faults.ts) it fails naming the rule the fault breaks;
 * offering part of the protocol, it lists the rest with what each would unlock and sends nothing
 * for it. And `occ run` refuses a broken endpoint with one line and exit 2. Loopback only.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkControlEndpoint, controlPreflight, renderText } from '../../control-check/check.ts';
import { controlRules } from '../../control-check/schemas.ts';
import { controlUnlocks } from '../../control-check/unlocks.ts';
import { controlCapabilities } from '../../contract/control.ts';
import { isRequirementId } from '../../requirements/catalogue.ts';
import { controlFaults } from '../../reference/control-faults.ts';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.ts';
import { variants } from '../../reference/variants.ts';
import { parseXml } from '../harness/report/parse-back.ts';
import { http } from '../reference/helpers.ts';
import { runOcc } from '../commands/occ-process.ts';

const TOKEN = 'ctl_control_check_token_0123';
const servers: ReferenceServer[] = [];

async function reference(controlFaultIds: string[] = [], variantIds: string[] = []): Promise<ReferenceServer> {
  const server = await startReferenceServer({
    rateLimit: false,
    controlToken: TOKEN,
    controlFaults: controlFaultIds,
    variants: variantIds,
  });
  servers.push(server);
  return server;
}

const endpointOf = (server: ReferenceServer) => ({ url: server.controlUrl, token: TOKEN });
const scratch = (): string => mkdtempSync(join(tmpdir(), 'occ-control-check-'));
const controlEnv = (server: ReferenceServer) => ({ CONTROL_URL: server.controlUrl, CONTROL_TOKEN: TOKEN });

let clean: ReferenceServer;
beforeAll(async () => {
  clean = await reference();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe('occ control-check against the reference', () => {
  it('passes every rule on the clean reference, within a bounded number of requests', async () => {
    const report = await checkControlEndpoint(endpointOf(clean));
    expect(report.violations).toEqual([]);
    expect(report.results.filter((r) => r.status === 'failed')).toEqual([]);
    expect(report.missing).toEqual([]);
    expect(report.requests).toBeLessThanOrEqual(57); // docs/control-protocol.md says 57
    // Every rule of the document is checked on an endpoint that offers everything (the last two
    // are only ever recorded as broken).
    const onlyBroken = ['CTL-ERROR-SHAPE', 'CTL-OFFERED-WORKS'];
    expect(new Set(report.results.filter((r) => r.status === 'passed').map((r) => r.rule))).toEqual(
      new Set(controlRules.map((rule) => rule.id).filter((id) => !onlyBroken.includes(id))),
    );
    // Nothing it prints or keeps holds a secret: the control token nor a token a state returned.
    expect(JSON.stringify(report)).not.toContain(TOKEN);
    expect(JSON.stringify(report)).not.toMatch(/oc_live_/);
  });

  const faultCases = controlFaults.map((fault) => [fault.id, fault.breaks] as const);
  it.each(faultCases)('fails on %s, naming %s', async (id, rule) => {
    const report = await checkControlEndpoint(endpointOf(await reference([id])));
    // The rule the fault breaks, and no other.
    expect(report.violations).toEqual([rule]);
    expect(renderText(report)).toMatch(new RegExp(`^ {2}FAIL {2}${rule} `, 'm'));
  });

  it('the preflight of occ run names the broken rule of the cheap part in one line', async () => {
    const cheap = [
      ['control-auth-open', 'CTL-AUTH'],
      ['control-capabilities-shape', 'CTL-CAPABILITIES'],
      ['control-clock-unlisted', 'CTL-CLOCK-WITH-ADVANCE'],
    ] as const;
    for (const [id, rule] of cheap) {
      const error = await controlPreflight(endpointOf(await reference([id]))).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message, id).toMatch(new RegExp(`^the endpoint breaks ${rule} \\(`));
      expect(error?.message.split('\n')).toHaveLength(1);
    }
    // What only a round trip shows is not the preflight's: the run goes on (its checks fail).
    expect((await controlPreflight(endpointOf(await reference(['control-teardown-fails'])))).states).toHaveLength(11);
  });
});

// ── Every either of control-openapi.json: the other choice, and control-check passes on it ──

type Probe = (server: ReferenceServer) => Promise<unknown>;
const controlAt = (server: ReferenceServer, path: string, body: unknown, method = 'POST') =>
  http(method, `${server.controlUrl}${path}`, {
    token: TOKEN,
    ...(body === undefined ? {} : { body: JSON.stringify(body), contentType: 'application/json' }),
  });
const setupOf = async (server: ReferenceServer, state: string, params: unknown = {}) =>
  (await controlAt(server, '/states', { state, params, action: 'setup' })).json as Record<string, unknown>;
const teardownOf = (server: ReferenceServer, state: string, params: Record<string, unknown>) =>
  controlAt(server, '/states', { state, params, action: 'teardown' });
const inspectionOf = (server: ReferenceServer, inspection: string, params: unknown = {}) =>
  controlAt(server, '/inspections', { inspection, params });
const apiAt = (server: ReferenceServer, method: string, path: string, token: string, json?: unknown) =>
  http(method, `${server.baseUrl}${path}`, {
    token,
    ...(json === undefined ? {} : { body: JSON.stringify(json), contentType: 'application/json' }),
  });
const lastUsedOf = async (server: ReferenceServer, token: string) =>
  ((await inspectionOf(server, 'token-last-used', { token })).json as { lastUsedAt: string | null }).lastUsedAt;

/**
 * For each control variant: what a probe of the point it decides answers on the reference and on
 * the variant (the variant makes the other choice), in a few requests. control-advance-defers-nested
 * and control-advance-waits change when timers and attempts run inside an advance: their clock is
 * unit tested (test/reference/clock.test.ts) and the suite's delivery checks run on them
 * (test/self-proof/variants.run.test.ts).
 */
const otherChoice: Record<string, { probe: Probe; reference: unknown; variant: unknown }> = {
  'control-clock-stands-still': {
    async probe(server) {
      const now = async () => ((await inspectionOf(server, 'clock')).json as { now: number }).now;
      const first = await now();
      await new Promise((resolve) => setTimeout(resolve, 20));
      return (await now()) === first;
    },
    reference: false,
    variant: true,
  },
  'control-idle-counts-calls': {
    // A call of 300 ms just originated: deliveries-idle waits for its end, or answers before it.
    async probe(server) {
      const { tokens, agents } = server.fixtures;
      const queued = await apiAt(server, 'POST', '/calls', tokens.all, {
        aiAgentId: agents.provisioned,
        toNumber: '+15005550006',
      });
      await inspectionOf(server, 'deliveries-idle');
      const { callId } = queued.json as { callId: string };
      return ((await inspectionOf(server, 'call-record', { callId })).json as { status: string }).status === 'ended';
    },
    reference: false,
    variant: true,
  },
  'control-real-time-stamps': {
    // After an advance of an hour, a use is stamped an hour ahead of real time, or at real time.
    async probe(server) {
      await setupOf(server, 'clock-advanced', { ms: 3_600_000 });
      const { token } = (await setupOf(server, 'token-issued', { scopes: [] })) as { token: string };
      await apiAt(server, 'GET', '/me', token);
      return Date.parse((await lastUsedOf(server, token)) ?? '') - Date.now() > 1_800_000;
    },
    reference: true,
    variant: false,
  },
  'control-strict-params': {
    async probe(server) {
      const fields = { eventId: 'e-given' };
      const given = { state: 'event-emitted', params: { event: 'dnc.added', fields } };
      const named = { state: 'event-emitted', params: { event: 'dnc.added', account: 'main' } };
      const clock = { inspection: 'clock', params: { extra: true } };
      return [
        (await controlAt(server, '/states', given)).status,
        (await controlAt(server, '/states', named)).status,
        (await controlAt(server, '/inspections', clock)).status,
      ];
    },
    reference: [200, 200, 200],
    variant: [422, 422, 422],
  },
  'control-lenient-requests': {
    async probe(server) {
      const wrongMethod = await controlAt(server, '/states', undefined, 'GET');
      const nullParams = await controlAt(server, '/inspections', { inspection: 'clock', params: null });
      const unknownPath = await http('GET', `${server.controlUrl}/nothing-here`);
      return [wrongMethod.status, nullParams.status, unknownPath.status];
    },
    reference: [404, 400, 404],
    variant: [405, 200, 401],
  },
  'control-emitted-call-records': {
    async probe(server) {
      const callId = randomUUID();
      await setupOf(server, 'event-emitted', { event: 'call.ended', fields: { callId } });
      return (await inspectionOf(server, 'call-record', { callId })).status;
    },
    reference: 404,
    variant: 200,
  },
  'control-account-tokens-kept': {
    // Two setups with a teardown between: the same token, still valid, or a new one.
    async probe(server) {
      const first = await setupOf(server, 'account-suspended');
      await teardownOf(server, 'account-suspended', { values: first });
      const second = await setupOf(server, 'account-suspended');
      await teardownOf(server, 'account-suspended', { values: second });
      const meAfter = await apiAt(server, 'GET', '/me', first.token as string);
      return [first.token === second.token, meAfter.status];
    },
    reference: [false, 401],
    variant: [true, 403],
  },
  'control-account-made-per-setup': {
    // Two setups of account-without-trunk: the agents of one account, or of two.
    async probe(server) {
      const first = await setupOf(server, 'account-without-trunk');
      await teardownOf(server, 'account-without-trunk', { values: first });
      const second = await setupOf(server, 'account-without-trunk');
      await teardownOf(server, 'account-without-trunk', { values: second });
      return first.agentId === second.agentId;
    },
    reference: true,
    variant: false,
  },
  'control-account-states-apart': {
    // While balance-upstream-failing holds: the test account's balance fails too, or not.
    async probe(server) {
      const values = await setupOf(server, 'balance-upstream-failing');
      const mine = await apiAt(server, 'GET', '/balance', server.fixtures.tokens.all);
      const its = await apiAt(server, 'GET', '/balance', values.token as string);
      await teardownOf(server, 'balance-upstream-failing', { values });
      return [mine.status, its.status];
    },
    reference: [500, 500],
    variant: [200, 500],
  },
  'control-502-detail-in-message': {
    async probe(server) {
      const values = await setupOf(server, 'originate-failing');
      const body = { aiAgentId: values.agentId, toNumber: '+15005550006' };
      const refused = await apiAt(server, 'POST', '/calls', values.token as string, body);
      await teardownOf(server, 'originate-failing', { values });
      return 'detail' in (refused.json as object);
    },
    reference: true,
    variant: false,
  },
  'control-token-forget': {
    async probe(server) {
      const values = await setupOf(server, 'token-issued', { scopes: [] });
      await teardownOf(server, 'token-issued', { scopes: [], values });
      return (await inspectionOf(server, 'token-last-used', { token: values.token })).status;
    },
    reference: 200,
    variant: 404,
  },
  'control-revoke-issued-only': {
    // A token of an account state, not of token-issued.
    async probe(server) {
      const values = await setupOf(server, 'account-suspended');
      const revoked = await controlAt(server, '/states', { state: 'token-revoked', params: { token: values.token } });
      await teardownOf(server, 'account-suspended', { values });
      return revoked.status;
    },
    reference: 200,
    variant: 422,
  },
  'control-teardown-named-only': {
    // Two tokens of token-issued; the teardown of the first, then one without values.
    async probe(server) {
      const first = await setupOf(server, 'token-issued', { scopes: [] });
      const second = await setupOf(server, 'token-issued', { scopes: [] });
      await teardownOf(server, 'token-issued', { scopes: [], values: first });
      const named = (await apiAt(server, 'GET', '/me', second.token as string)).status;
      await teardownOf(server, 'token-issued', { scopes: [] });
      const unnamed = (await apiAt(server, 'GET', '/me', second.token as string)).status;
      await teardownOf(server, 'token-issued', { scopes: [], values: second });
      return [named, unnamed];
    },
    reference: [401, 401],
    variant: [200, 200],
  },
  'control-scope-401-not-a-use': {
    async probe(server) {
      const { token } = (await setupOf(server, 'token-issued', { scopes: [] })) as { token: string };
      await apiAt(server, 'GET', '/balance', token);
      return (await lastUsedOf(server, token)) !== null;
    },
    reference: true,
    variant: false,
  },
  'control-attempt-event-ids': {
    async probe(server) {
      return Object.keys((await inspectionOf(server, 'clock')).json as object).sort();
    },
    reference: ['iso', 'now', 'virtual'],
    variant: ['now'],
  },
};

describe('every either of control-openapi.json: a conformant control variant, and control-check on it', () => {
  const controlVariants = variants.filter((v) => 'control' in v).map((v) => v.id);
  const timed = new Set(['control-advance-defers-nested', 'control-advance-waits']);

  it('each variant of a choice a probe can see makes the other choice than the reference', async () => {
    // Every control variant but those the self-proof's delivery runs already tell apart has a probe.
    const seenInDeliveries = [
      'webhook-backoff-slow-start',
      'control-virtual-clock-signing',
      'control-foreign-events',
      'control-event-sets',
      'deliver-on-subscribe',
      ...timed,
    ];
    expect(Object.keys(otherChoice).sort()).toEqual(
      controlVariants.filter((id) => !seenInDeliveries.includes(id)).sort(),
    );
    for (const [id, { probe, reference: ours, variant }] of Object.entries(otherChoice)) {
      expect(await probe(clean), `${id} on the reference`).toEqual(ours);
      expect(await probe(await reference([], [id])), id).toEqual(variant);
    }
  });

  it.each(controlVariants)('occ control-check passes on %s', async (id) => {
    const report = await checkControlEndpoint(endpointOf(await reference([], [id])));
    expect(report.results.filter((r) => r.status === 'failed')).toEqual([]);
  });

  it('occ control-check passes on every control variant at once', async () => {
    const report = await checkControlEndpoint(endpointOf(await reference([], controlVariants)));
    expect(report.results.filter((r) => r.status === 'failed')).toEqual([]);
    expect(report.results.find((r) => r.title === 'setup of event-emitted: eventIds list eventId')?.status).toBe(
      'passed',
    );
  });
});

interface Partial {
  readonly url: string;
  readonly sent: string[];
  readonly server: Server;
}

/** A proxy to the clean reference whose capabilities offer only `offered`; it records the names sent. */
async function partialEndpoint(offered: { states: string[]; inspections: string[] }): Promise<Partial> {
  const sent: string[] = [];
  const target = new URL(clean.controlUrl);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        const parsed = JSON.parse(body.toString()) as { state?: unknown; inspection?: unknown };
        sent.push(String(parsed.state ?? parsed.inspection));
      } catch {
        /* not JSON: forwarded as it is */
      }
      const path = `${target.pathname}${req.url}`;
      const options = { host: target.hostname, port: target.port, method: req.method, path, headers: req.headers };
      const forward = httpRequest(options, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          let text = Buffer.concat(parts).toString();
          if (req.url === '/capabilities' && answer.statusCode === 200) {
            text = JSON.stringify({ protocol: 'occ-control/1', ...offered, extra: true });
          }
          res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' }).end(text);
        });
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent, server };
}

describe('occ control-check on an endpoint that offers part of the protocol', () => {
  it('lists what it does not offer with what each would unlock, and sends nothing for it', async () => {
    const offered = {
      states: ['account-suspended', 'token-issued', 'token-revoked', 'future-state'],
      inspections: ['token-last-used'],
    };
    const offeredNames: string[] = [...offered.states, ...offered.inspections];
    const notOffered = controlCapabilities.filter((c) => !offeredNames.includes(c));
    const proxy = await partialEndpoint(offered);
    try {
      const report = await checkControlEndpoint({ url: proxy.url, token: TOKEN });
      expect(report.violations).toEqual([]);
      expect(report.ignored).toEqual(['future-state']);
      expect(report.missing.map((m) => m.name)).toEqual(notOffered);
      for (const name of notOffered) expect(proxy.sent, name).not.toContain(name);
      const text = renderText(report);
      expect(text).toMatch(/^Missing: the endpoint does not offer these/m);
      expect(text).toMatch(/^ {2}\[ \] state {6}balance-upstream-failing unlocks BALANCE-UPSTREAM-500$/m);
      expect(text).toMatch(/^ {2}\[ \] state {6}account-without-trunk .*CALLS-NOT-PROVISIONED-409 \(or the fixtures /m);
      // A capability that unlocks several groups lists each on a line of its own, under the first.
      expect(text).toMatch(/^ {2}\[ \] inspection clock .*(\n {40,}.*)*WEBHOOK-RETRY-HORIZON-24H.*with event-emitted/m);
    } finally {
      proxy.server.close();
    }
  });

  it('names real requirements and v1 capabilities only', () => {
    for (const unlock of controlUnlocks) {
      for (const id of unlock.requirements) expect(isRequirementId(id), id).toBe(true);
      for (const capability of unlock.needs) expect(controlCapabilities, capability).toContain(capability);
    }
  });
});

describe('occ control-check, the command', () => {
  it('exits 0 on the reference, writing control-check.json and .junit.xml', { timeout: 60_000 }, async () => {
    const cwd = scratch();
    const run = await runOcc(['control-check', '--reports-dir', 'out'], controlEnv(clean), cwd, 60_000);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^control-check: \d+ checks passed, no violation \(\d+ requests\)$/m);
    const jsonText = readFileSync(join(cwd, 'out', 'control-check.json'), 'utf8');
    expect(JSON.parse(jsonText)).toMatchObject({ violations: [], document: '1.2.0' });
    const junitText = readFileSync(join(cwd, 'out', 'control-check.junit.xml'), 'utf8');
    expect(parseXml(junitText).elements[0]).toBe('testsuites');
    expect(junitText).toMatch(/<testsuites name="occ control-check" tests="\d+" failures="0"/);
    expect(`${run.stdout}${jsonText}${junitText}`).not.toContain(TOKEN);
  });

  it('exits 1 naming the broken rule, the failure in the JUnit report', { timeout: 60_000 }, async () => {
    const cwd = scratch();
    const env = controlEnv(await reference(['control-teardown-fails']));
    const run = await runOcc(['control-check', '--reports-dir', 'out'], env, cwd, 60_000);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^control-check: \d+ of \d+ checks failed, breaking CTL-TEARDOWN /m);
    expect(run.stdout).toMatch(/^ {2}CTL-TEARDOWN: A teardown of an offered state answers 200/m);
    const junitText = readFileSync(join(cwd, 'out', 'control-check.junit.xml'), 'utf8');
    expect(junitText).toMatch(/<failure message="answered 500 teardown_failed/);
  });

  it.each([
    [{}, /^control-check: configuration error: CONTROL_URL is not set: set CONTROL_URL and CONTROL_TOKEN/],
    [
      { CONTROL_URL: 'http://127.0.0.1:1/_control', CONTROL_TOKEN: TOKEN },
      /^control-check: unreachable: GET \/capabilities: no answer from CONTROL_URL: connection refused \(.*REFUSED/,
    ],
    [
      { CONTROL_URL: 'http://control.example.com/_control', CONTROL_TOKEN: TOKEN },
      /^control-check: configuration error: CONTROL_URL: a remote target must use https/,
    ],
    [
      { CONTROL_URL: 'http://127.0.0.1:1/_control' },
      /^control-check: configuration error: CONTROL_TOKEN: is required with CONTROL_URL/,
    ],
  ])('exits 2 with one line for %j', { timeout: 60_000 }, async (env, message) => {
    const cwd = scratch();
    const run = await runOcc(['control-check'], env, cwd, 60_000);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(cwd, 'reports'))).toBe(false);
  });

  it('exits 2 with one line for a wrong CONTROL_TOKEN and for a bad flag', { timeout: 60_000 }, async () => {
    const cwd = scratch();
    const env = { ...controlEnv(clean), CONTROL_TOKEN: 'ctl_not_the_token_0123' };
    const wrong = await runOcc(['control-check'], env, cwd, 60_000);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.trim()).toBe(
      'control-check: CONTROL_URL: GET /capabilities answered 401: ' +
        'CONTROL_TOKEN is missing or wrong for this endpoint',
    );
    const flag = await runOcc(['control-check', '--bogus'], {}, cwd, 60_000);
    expect(flag.code).toBe(2);
    expect(flag.stderr.trim()).toMatch(/^control-check: Unknown option '--bogus'.*\(occ control-check --help\)$/);
  });
});

describe('occ run with a broken control endpoint', () => {
  it.each([
    ['control-auth-open', 'CTL-AUTH'],
    ['control-capabilities-shape', 'CTL-CAPABILITIES'],
  ])('refuses one with %s: one line naming %s, exit 2', { timeout: 120_000 }, async (id, rule) => {
    const broken = await reference([id]);
    const env = { API_BASE_URL: broken.baseUrl, AUTH_URL: broken.authUrl, ...controlEnv(broken) };
    const run = await runOcc(['run', '--reports-dir', 'out'], env, scratch(), 120_000);
    expect(run.code).toBe(2);
    const line = run.stderr.trim();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(new RegExp(`^conformance: configuration error: CONTROL_URL: the endpoint breaks ${rule} \\(`));
    expect(line).toContain('; occ control-check lists every rule it breaks; check CONTROL_URL and CONTROL_TOKEN');
    expect(line).not.toContain(TOKEN);
  });
});
