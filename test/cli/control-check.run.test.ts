/**
 * `occ control-check` against the reference's test-control endpoint: clean, it passes every rule;
 * with each control fault (reference/control-faults.ts) it fails naming the rule the fault breaks;
 * offering part of the protocol, it lists the rest with what each would unlock and sends nothing
 * for it. And `occ run` refuses a broken endpoint with one line and exit 2. Loopback only.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkControlEndpoint, controlPreflight, renderText } from '../../cli/control-check.ts';
import { controlRules } from '../../cli/control-schemas.ts';
import { controlUnlocks } from '../../cli/control-unlocks.ts';
import { controlCapabilities } from '../../contract/control.ts';
import { isRequirementId } from '../../requirements/catalogue.ts';
import { controlFaults } from '../../reference/control-faults.ts';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.ts';
import { parseXml } from '../report/parse-back.ts';
import { runOcc } from './occ-process.ts';

const TOKEN = 'ctl_control_check_token_0123';
const servers: ReferenceServer[] = [];

async function reference(controlFaultIds: string[] = []): Promise<ReferenceServer> {
  const server = await startReferenceServer({ rateLimit: false, controlToken: TOKEN, controlFaults: controlFaultIds });
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
    expect(report.requests).toBeLessThanOrEqual(70);
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
      expect(text).toMatch(/^ {2}\[ \] inspection clock .*WEBHOOK-RETRY-HORIZON-24H.*with event-emitted/m);
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
    expect(JSON.parse(jsonText)).toMatchObject({ violations: [], document: '1.1.0' });
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
      /^control-check: CONTROL_URL: GET \/capabilities: no answer from CONTROL_URL \(ECONNREFUSED\)$/,
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
