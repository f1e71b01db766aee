/**
 * npm run conformance as users run it: a child process, its exit code, its one-line errors,
 * the reports it leaves, and what it never does (send requests on --dry-run, leak a secret).
 * Timeouts and deadlines here are hang guards sized for a busy machine (npm test runs files side
 * by side), not speed limits.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.ts';
import { fixtureEnv } from '../../cli/remote-reference.ts';
import { generateTlsMaterial } from '../../harness/webhooks/receiver.ts';
import { REPORT_FILES } from '../../harness/report/files.ts';
import { FULL_SET_REQUESTS, GATE_REQUESTS } from '../../harness/scheduling/budget.ts';
import { markdownTableProblems, parseXml } from '../harness/report/parse-back.ts';
import { startRecordingProxy, type ProxiedRequest, type ProxyAnswer } from './recording-proxy.ts';
// The environment of a CI job: none of the developer's configuration leaks in.
import { cleanEnv, type ProcessRun, runProcess } from './occ-process.ts';
import { freeLoopbackPort } from '../../cli/loopback-port.ts';

function runCli(args: string[], extra: Record<string, string> = {}, timeout = 240_000) {
  const result = spawnSync(process.execPath, ['commands/run.ts', ...args], {
    env: cleanEnv(extra),
    encoding: 'utf8',
    timeout,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Asynchronous, for runs against a server in this very process (spawnSync would starve it). */
function runCliAsync(args: string[], extra: Record<string, string>, timeout: number): Promise<ProcessRun> {
  return runProcess(process.execPath, ['commands/run.ts', ...args], extra, { timeoutMs: timeout });
}

describe('npm run conformance, the command', () => {
  it('prints its options with --help and exits 0', () => {
    const { code, stdout } = runCli(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('--dry-run');
  });

  // One refusal per path an error takes to stderr: a bad flag, bad configuration, a reference
  // that cannot start, a control endpoint that does not answer. Each path's other messages are
  // unit-tested where they are made (test/cli/run-options.test.ts, test/harness/config/config.test.ts).
  it.each([
    [['--bogus'], {}, /^conformance: Unknown option '--bogus'; run occ run --help for the options$/],
    [
      [],
      { API_BASE_URL: 'https://api.example.com/v2' },
      /^conformance: configuration error: API_BASE_URL: must end in the version prefix \/v1/,
    ],
    // A reference that cannot start ends the run at once: nothing it started (the receiver) keeps it alive.
    [['--only', 'ME-200-SHAPE'], { OCC_REFERENCE_FAULTS: 'nope' }, /^conformance: unknown fault id: nope \(/],
    // A control endpoint that does not answer, after the start-up's retries, stops the run before
    // anything is sent to the API: unreachable, not a configuration error.
    [
      [],
      {
        API_BASE_URL: 'http://127.0.0.1:1/v1',
        CONTROL_URL: 'http://127.0.0.1:1/_control',
        CONTROL_TOKEN: 'ctl_secret_never_shown',
      },
      new RegExp(
        /^conformance: unreachable: CONTROL_URL: GET \/capabilities: no answer from CONTROL_URL: /.source +
          /connection refused \(.*ECONNREFUSED.*\) \(5 attempts over about 8 s\); is the control endpoint up/.source,
      ),
    ],
    // A target that takes no connection, after the start-up's retries: unreachable, exit 2, never a run whose
    // every check is not verifiable for the network (which would exit 0).
    [
      ['--no-properties', '--only', 'ME-200-SHAPE'],
      { API_BASE_URL: 'http://127.0.0.1:1/v1', TOKEN_ALL: 'tok_never_sent' },
      /^conformance: unreachable: API_BASE_URL: connection refused \(.*\) \(5 attempts\); is the target up\?$/,
    ],
  ])('refuses %j %j with one line and exit code 2', (args, env, message) => {
    const { code, stderr } = runCli(args, env);
    expect(code).toBe(2);
    expect(stderr.trim()).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/\bat .+:\d+:\d+/); // no stack trace
  });

  it('exits 1 when a MUST requirement fails, with the failure in the reports', { timeout: 300_000 }, () => {
    const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
    const { code, stdout } = runCli(['--only', 'ME-200-SHAPE', '--reports-dir', reports], {
      OCC_REFERENCE_FAULTS: 'me-missing-field',
    });
    expect(code).toBe(1);
    expect(stdout).toMatch(/0 MUST passed, \d+ failed/);
    const report = JSON.parse(readFileSync(join(reports, 'latest', 'report.json'), 'utf8'));
    expect(report.requirements.find((r: { id: string }) => r.id === 'ME-200-SHAPE').status).toBe('failed');
    expect(readFileSync(join(reports, 'latest', 'junit.xml'), 'utf8')).toContain('<failure');
  });
});

describe('npm run conformance against a remote target', () => {
  let target: ReferenceServer;
  let secrets: string[];
  let env: Record<string, string>;

  beforeAll(async () => {
    // A second reference server stands in for staging: the suite sees only its URL and .env-style fixtures.
    target = await startReferenceServer({ rateLimit: false });
    const { fixtures } = target;
    env = fixtureEnv(fixtures);
    secrets = [...Object.values(fixtures.tokens), fixtures.oauth.clientSecret];
  });
  afterAll(async () => {
    await target.close();
  });

  // The default budget (80 requests per minute for RUN_BUDGET_S = 113 s) holds with and without a
  // test-control endpoint (a dry run assumes it offers every state and inspection, the costliest
  // case, and sends nothing to it either); --all-probes plans the full set, no rotation.
  const withControl = { CONTROL_URL: 'http://127.0.0.1:1/_control', CONTROL_TOKEN: 'ctl_dry_run_never_sent' };
  it.each([
    ['without CONTROL_URL', {}, [], GATE_REQUESTS],
    ['with CONTROL_URL', withControl, [], GATE_REQUESTS],
    ['with CONTROL_URL and --all-probes', withControl, ['--all-probes'], FULL_SET_REQUESTS],
  ])(
    "--dry-run, every fixture set, %s: lists each check's requests within the budget, sends nothing",
    { timeout: 300_000 },
    async (label, control, flags, budget) => {
      let received = 0;
      const counter = createServer((_req, res) => {
        received += 1;
        res.end();
      });
      await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
      try {
        const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
        const port = (counter.address() as AddressInfo).port;
        // Asynchronous: the counting server lives in this process and must be free to count.
        const { code, stdout } = await runCliAsync(
          ['--dry-run', ...flags, '--reports-dir', reports],
          {
            // The default rate: the stand-in's raised one would allow every probe.
            ...Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'REQUESTS_PER_MINUTE')),
            API_BASE_URL: `http://127.0.0.1:${port}/v1`,
            AUTH_URL: `http://127.0.0.1:${port}`,
            WEBHOOK_PUBLIC_URL: 'https://tunnel.example.com',
            ...control,
          },
          240_000,
        );
        expect(code).toBe(0);
        const planned = Number(/(\d+) requests planned against a remote target/.exec(stdout)?.[1]);
        expect(planned).toBeGreaterThan(0);
        expect(planned).toBeLessThanOrEqual(budget);
        // What this configuration leaves to later seeds, and what the full set would take.
        const full = /the full set: (\d+) requests, (\d+) s at this rate; this configuration plans (\d+)/.exec(stdout);
        expect(Number(full?.[3])).toBe(planned);
        expect(Number(full?.[1])).toBeLessThanOrEqual(FULL_SET_REQUESTS);
        if (flags.length > 0) {
          expect(Number(full?.[1])).toBe(planned);
          expect(stdout).toMatch(/every probe and matrix cell is sent: no rotation/);
          expect(stdout).not.toMatch(/not verifiable: request budget/);
        } else {
          expect(Number(full?.[1])).toBeGreaterThan(planned);
          expect(stdout, label).toMatch(/^ {2}HOOKS-TARGET-HTTPS: sends 2 of 7 probes .*; later seeds: /m);
        }
        expect(stdout).toMatch(/^\s+\d+ {2}GET \/me answers 200/m);
        // With the endpoint the checks it unlocks are planned, not skipped.
        if ('CONTROL_URL' in control)
          expect(stdout).toMatch(
            new RegExp(
              /^\s+1 {2}GET \/balance answers 500 internal_error when the upstream snapshot fetch /.source +
                /fails {2}\[BALANCE-UPSTREAM-500\]$/.source,
              'm',
            ),
          );
        expect(received).toBe(0);
      } finally {
        counter.close();
      }
    },
  );

  // A full run with every secret set, through a recording proxy, leaves none of them (nor a token
  // or hook secret the target gave) in an output or a report: the README's remote recipe proves
  // it on its full run (test/commands/remote-recipe.timed.test.ts).

  it('against a target refusing its client (Basic realm="oauth"), every report parses intact, no credential left', {
    timeout: 300_000,
  }, async () => {
    const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
    const { clientId, clientSecret } = target.fixtures.oauth;
    const description = 'Client authentication failed: use HTTP Basic (RFC 6749 section 2.3.1)';
    const issued = `at_${'9'.repeat(8)}${Date.now()}`;
    const proxy = await startRecordingProxy(
      new URL(target.baseUrl).origin,
      (request): ProxyAnswer | ProxiedRequest | undefined => {
        if (request.path.startsWith('/oauth/token')) {
          // A wrong secret in the body gets a token; the right client, either way, the RFC 6749 §5.2 refusal.
          const basicCredentials = Buffer.from(
            (request.headers.authorization ?? '').replace(/^Basic /, ''),
            'base64',
          ).toString('utf8');
          if (
            request.body.includes(`client_secret=${encodeURIComponent(clientSecret)}x`) ||
            basicCredentials.endsWith(`${encodeURIComponent(clientSecret)}x`)
          ) {
            return {
              status: 200,
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ access_token: issued, token_type: 'Bearer', expires_in: 3600 }),
            };
          }
          return {
            status: 401,
            headers: { 'content-type': 'application/json', 'www-authenticate': 'Basic realm="oauth"' },
            body: JSON.stringify({ error: 'invalid_client', error_description: description }),
          };
        }
        // A Basic scheme carrying a valid token is taken as if it were Bearer, and a bare "Bearer" as
        // the valid token: wrong answers to both malformed schemes, so the check fails whichever of
        // the two its seed's slice sends remotely (harness/scheduling/rotation.ts).
        const auth = request.headers.authorization ?? '';
        if (request.path.startsWith('/v1/') && auth.startsWith('Basic '))
          return { ...request, headers: { ...request.headers, authorization: `Bearer ${auth.slice(6)}` } };
        if (request.path.startsWith('/v1/') && auth.trim() === 'Bearer')
          return { ...request, headers: { ...request.headers, authorization: `Bearer ${target.fixtures.tokens.all}` } };
        return undefined;
      },
    );
    let run: { code: number | null; stdout: string; stderr: string };
    try {
      run = await runCliAsync(
        [
          '--no-properties',
          '--only',
          'AUTH-MALFORMED-SCHEME,AUTH-UNKNOWN-TOKEN,AUTH-OAUTH-CLIENT-CREDENTIALS,AUTH-OAUTH-BAD-CLIENT',
          '--reports-dir',
          reports,
        ],
        { ...env, API_BASE_URL: `${proxy.origin}/v1`, AUTH_URL: proxy.origin },
        240_000,
      );
    } finally {
      await proxy.close();
    }
    expect(run.code, run.stderr).toBe(1);
    const latest = join(reports, 'latest');
    const file = (name: string) => readFileSync(join(latest, name), 'utf8');
    type Check = { name: string; status: string; exchanges: Array<Record<string, unknown>> };
    const report = JSON.parse(file('report.json')) as { checks: Check[] };
    const named = (test: (name: string) => boolean, status: string): Check => {
      const found = report.checks.find((c) => test(c.name) && c.status === status);
      expect(
        found,
        `a ${status} check among ${report.checks.map((c) => `${c.status} ${c.name}`).join('; ')}`,
      ).toBeDefined();
      return found!;
    };
    // Remotely the operations take turns between the two malformed schemes; both are let in here.
    const basicScheme = named(
      (n) => n.endsWith('answers 401 unauthorized to a Basic scheme carrying a valid token, and to a bare "Bearer"'),
      'failed',
    );
    const unknownToken = named(
      (n) => n.endsWith('answers 401 unauthorized to a bearer token it never issued'),
      'passed',
    );
    const basicGrant = named(
      (n) => n.startsWith('A client_credentials grant with HTTP Basic client authentication'),
      'failed',
    );
    const bodyGrant = named(
      (n) => n.startsWith('A client_credentials grant with the credentials in the body'),
      'failed',
    );
    const wrongSecret = named((n) => n.startsWith('A wrong client secret'), 'failed');
    const tokenExchange = (check: Check) => check.exchanges.find((e) => String(e.url).includes('/oauth/token'))!;

    // The target's own words and headers survive; the credentials do not.
    const refused = tokenExchange(basicGrant);
    expect((refused.responseHeaders as Record<string, string>)['www-authenticate']).toBe('Basic realm="oauth"');
    expect(JSON.parse(String(refused.rawBody))).toEqual({ error: 'invalid_client', error_description: description });
    expect((refused.requestHeaders as Record<string, string>).authorization).toBe('Basic [REDACTED]');
    const inBody = tokenExchange(bodyGrant);
    expect(String(inBody.requestBody)).toMatch(/(^|&)client_secret=\[REDACTED\](&|$)/);
    expect(String(inBody.requestBody)).toContain(`client_id=${encodeURIComponent(clientId)}`);
    const accepted = tokenExchange(wrongSecret);
    expect(JSON.parse(String(accepted.rawBody))).toMatchObject({ access_token: '[REDACTED]', token_type: 'Bearer' });

    const xml = parseXml(file('junit.xml'));
    for (const check of [basicScheme, unknownToken, basicGrant, bodyGrant, wrongSecret])
      expect(xml.attributes).toContain(check.name);
    expect(xml.text).toContain('"www-authenticate": "Basic realm=\\"oauth\\""');
    expect(xml.text).toContain(description);
    for (const name of ['report.md', 'report.html']) {
      expect(file(name)).toContain('answers 401 unauthorized to a Basic scheme carrying a valid token');
      expect(file(name)).toContain(basicGrant.name.slice(0, 60));
    }
    expect(markdownTableProblems(file('report.md'))).toEqual([]);
    expect(run.stdout).toContain(basicScheme.name);
    for (const name of REPORT_FILES) {
      const text = file(name);
      for (const secret of [...secrets, ...proxy.handedOut, issued])
        expect(text.includes(secret), `${secret.slice(0, 6)}… found in ${name}`).toBe(false);
      expect(text).not.toContain('[REDACTED] carrying');
    }
    for (const secret of [...secrets, issued]) expect(`${run.stdout}\n${run.stderr}`.includes(secret)).toBe(false);
  });
});

describe('npm run conformance against a target that answers garbage', () => {
  it("fails HTML where JSON is due; a cut body, a reset and a hang are the network's: not verifiable, named", {
    timeout: 300_000,
  }, async () => {
    const server = createServer((req, res) => {
      const path = req.url?.split('?')[0];
      if (path === '/v1/agents') return; // hangs
      if (path === '/v1/balance') {
        req.socket.destroy();
        return;
      }
      if (path === '/v1/me') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '80' });
        res.write('{"customerId": "c1", "comp');
        setTimeout(() => req.socket.destroy(), 10);
        return;
      }
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
      const started = Date.now();
      const child = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        let stdout = '';
        const proc = spawn(
          process.execPath,
          [
            'commands/run.ts',
            '--no-properties',
            '--only',
            'ME-200-SHAPE,BALANCE-200-SHAPE,AGENTS-200-SHAPE,CDRS-NOT-PROVISIONED-409',
            '--reports-dir',
            reports,
          ],
          {
            env: cleanEnv({
              API_BASE_URL: `http://127.0.0.1:${port}/v1`,
              TOKEN_ALL: 'tok_a',
              TOKEN_READ_BALANCE: 'tok_b',
              TOKEN_READ_AGENTS: 'tok_c',
              TOKEN_NO_TRUNK: 'tok_d',
              REQUEST_TIMEOUT_MS: '500',
              REQUESTS_PER_MINUTE: '6000',
            }),
          },
        );
        proc.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        proc.on('close', (code) => resolve({ code, stdout }));
      });
      expect(child.code).toBe(1);
      expect(Date.now() - started).toBeLessThan(180_000);
      const report = JSON.parse(readFileSync(join(reports, 'latest', 'report.json'), 'utf8'));
      type Check = { status: string; failure?: string; skipReason?: string };
      const failures = report.checks
        .filter((c: Check) => c.status === 'failed')
        .map((c: Check) => c.failure)
        .join('\n');
      const network = report.checks
        .filter((c: Check) => c.status === 'skipped')
        .map((c: Check) => c.skipReason)
        .join('\n');
      // The target's own answer is judged: HTML where openapi.json documents no such status.
      expect(failures).toMatch(/answered 502, which breaks openapi.json:\n- status 502 is not documented/);
      // The network's are not: each GET was sent three times, then left not verifiable, naming why.
      expect(failures).not.toMatch(/stalled|reset|cut short/);
      expect(network).toMatch(
        /not verifiable: the network: GET \/agents: no response within 500 ms: the connection st/,
      );
      expect(network).toMatch(/not verifiable: the network: GET \/balance: connection reset or closed before a compl/);
      expect(network).toMatch(/not verifiable: the network: GET \/me: the response body was cut short \(.*\(sent 3 t/);
      expect(report.requests.transportFailures).toBeGreaterThanOrEqual(9);
      expect(report.requests.retries).toBeGreaterThanOrEqual(6);
      expect(report.unhandledErrors).toEqual([]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('npm run conformance interrupted', () => {
  it('on SIGTERM stops, deletes every hook it created, writes partial reports and exits 143', {
    timeout: 300_000,
  }, async () => {
    const target = await startReferenceServer({ rateLimit: false });
    try {
      const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
      const proc = spawn(
        process.execPath,
        [
          'commands/run.ts',
          '--no-properties',
          '--only',
          'HOOKS-CREATE,HOOKS-SECRET-ONCE,HOOKS-SEVERAL-SUBSCRIPTIONS',
          '--reports-dir',
          reports,
        ],
        {
          // Throttled to one request every 2 s, so the run is still going when the signal comes.
          env: cleanEnv({
            API_BASE_URL: target.baseUrl,
            TOKEN_ALL: target.fixtures.tokens.all,
            TOKEN_WRITE_HOOKS: target.fixtures.tokens['write:hooks'],
            TOKEN_NO_DIALER: target.fixtures.tokens.noDialer,
            REQUESTS_PER_MINUTE: '30',
          }),
        },
      );
      let stdout = '';
      proc.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      const exited = new Promise<number | null>((resolve) => proc.on('close', resolve));
      const journal = (): string => {
        const run = readdirSync(reports).find((name) => name !== 'latest');
        try {
          return run === undefined ? '' : readFileSync(join(reports, run, 'hooks.jsonl'), 'utf8');
        } catch {
          return '';
        }
      };
      const deadline = Date.now() + 180_000;
      while (!journal().includes('"created"') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(journal()).toContain('"created"');
      proc.kill('SIGTERM');
      expect(await exited).toBe(143);
      const created = journal()
        .split('\n')
        .filter((line) => line.includes('"created"'))
        .map((line) => JSON.parse(line).hookId as string);
      expect(created.length).toBeGreaterThan(0);
      for (const id of created) {
        const view = (await (await fetch(`${target.referenceUrl}/hooks/${id}`)).json()) as { status: string };
        expect(view.status, `hook ${id} left active`).toBe('disabled');
      }
      expect(existsSync(join(reports, 'latest', 'report.json'))).toBe(true);
      const report = JSON.parse(readFileSync(join(reports, 'latest', 'report.json'), 'utf8')) as {
        interrupted: boolean;
        checks: Array<{ status: string; skipReason?: string }>;
        counts: { checks: { notRun: number }; requirements: { notVerifiable: number; notRun: number } };
      };
      expect(report.interrupted).toBe(true);
      // The checks it never reached are "not run (interrupted)": not skipped, not "not verifiable".
      expect(report.checks.filter((c) => c.status === 'not_run').length).toBeGreaterThan(0);
      expect(report.counts.checks.notRun).toBe(report.checks.filter((c) => c.status === 'not_run').length);
      // Skipped only for a reason of their own (this configuration, the request budget), never for the interruption.
      const ownReason = /^not verifiable( with this configuration|: request budget: )/;
      expect(report.checks.filter((c) => c.status === 'skipped' && !ownReason.test(c.skipReason ?? ''))).toEqual([]);
      expect(readFileSync(join(reports, 'latest', 'report.md'), 'utf8')).toContain(
        '## Not run (the run was interrupted)',
      );
      expect(parseXml(readFileSync(join(reports, 'latest', 'junit.xml'), 'utf8')).attributes).toContain(
        'not run (interrupted)',
      );
      expect(stdout).toMatch(/^NOT RUN \[\d+\/\d+\] .+ \(interrupted\)$/m);
      expect(stdout).not.toMatch(/\(undefined\)/);
    } finally {
      await target.close();
    }
  });
});

describe('npm run conformance interrupted while a test-control state is set up', () => {
  it('on SIGTERM tears the state down (from its journal) before exiting 143', { timeout: 300_000 }, async () => {
    const target = await startReferenceServer({ rateLimit: false });
    try {
      const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
      // Two requests a minute, one at a time: GET /balance (the 200 check, first in its file) takes
      // the only token, so the upstream check waits 30 s between its setup and its request.
      const proc = spawn(
        process.execPath,
        [
          'commands/run.ts',
          '--no-properties',
          '--only',
          'BALANCE-200-SHAPE,BALANCE-UPSTREAM-500',
          '--reports-dir',
          reports,
        ],
        {
          env: cleanEnv({
            API_BASE_URL: target.baseUrl,
            CONTROL_URL: target.controlUrl,
            CONTROL_TOKEN: target.fixtures.controlToken,
            TOKEN_READ_BALANCE: target.fixtures.tokens['read:balance'],
            REQUESTS_PER_MINUTE: '2',
          }),
        },
      );
      const exited = new Promise<number | null>((resolve) => proc.on('close', resolve));
      const failing = async () =>
        ((await (await fetch(`${target.referenceUrl}/switches`)).json()) as { balanceUpstreamFails: boolean })
          .balanceUpstreamFails;
      const deadline = Date.now() + 180_000;
      while (!(await failing()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await failing()).toBe(true);
      proc.kill('SIGTERM');
      expect(await exited).toBe(143);
      expect(await failing(), 'balance-upstream-failing left set up').toBe(false);
    } finally {
      await target.close();
    }
  });
});

describe('npm run conformance with webhooks against a remote target', () => {
  it('delivers to the local receiver through WEBHOOK_PUBLIC_URL and verifies the call.ended correlation', {
    timeout: 300_000,
  }, async () => {
    // The receiver serves a certificate the stand-in target trusts, as a vendor's tunnel would.
    const tls = await generateTlsMaterial();
    const dir = mkdtempSync(join(tmpdir(), 'occ-tls-'));
    writeFileSync(join(dir, 'cert.pem'), tls.cert);
    writeFileSync(join(dir, 'key.pem'), tls.key);
    const port = await freeLoopbackPort();
    const target = await startReferenceServer({ rateLimit: false, trustedCaPem: [tls.caCertPem] });
    try {
      const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
      const { code, stdout } = await runCliAsync(
        ['--no-properties', '--only', 'CALLS-CORRELATE-CALL-ENDED,HOOKS-NO-DIRECT-EMIT', '--reports-dir', reports],
        {
          API_BASE_URL: target.baseUrl,
          TOKEN_ALL: target.fixtures.tokens.all,
          TOKEN_WRITE_CALLS: target.fixtures.tokens['write:calls'],
          TEST_AGENT_ID: target.fixtures.agents.provisioned,
          ALLOW_ORIGINATE: 'true',
          TEST_DESTINATION_NUMBER: '+15005550006',
          REQUESTS_PER_MINUTE: '6000',
          WEBHOOK_PUBLIC_URL: `https://127.0.0.1:${port}`,
          RECEIVER_PORT: String(port),
          RECEIVER_TLS_CERT: join(dir, 'cert.pem'),
          RECEIVER_TLS_KEY: join(dir, 'key.pem'),
        },
        240_000,
      );
      const report = JSON.parse(readFileSync(join(reports, 'latest', 'report.json'), 'utf8'));
      const verdict = (id: string) => report.requirements.find((r: { id: string }) => r.id === id).status;
      expect(code, stdout).toBe(0);
      expect(verdict('CALLS-CORRELATE-CALL-ENDED')).toBe('passed');
      expect(verdict('HOOKS-NO-DIRECT-EMIT')).toBe('passed');
      expect(report.counts.checks.skipped).toBe(0);
    } finally {
      await target.close();
    }
  });
});
