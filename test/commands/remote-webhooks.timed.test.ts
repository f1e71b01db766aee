/**
 * The run's watch of webhook deliveries against a remote target: a second reference server run as
 * its own process (`npm run reference`), with an accelerated clock (50×: retries after 1.2 s, 2.4 s,
 * 4.8 s…) so they fall inside a 25 s budget, trusting the receiver's certificate as a staging
 * server would. Nothing here uses its control API: the originated call causes every event.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { generateTlsMaterial } from '../../harness/webhooks/receiver.ts';
import { cleanEnv } from './occ-process.ts';
import { freeLoopbackPort } from '../../cli/loopback-port.ts';

interface Fixtures {
  baseUrl: string;
  tokens: Record<string, string>;
  agents: { provisioned: string };
}

const started: ChildProcess[] = [];
// At the end of the file, not after each test: the tests run side by side (each with its own
// reference process, receiver port and reports folder), most of their time spent waiting out a
// delivery budget.
afterAll(() => {
  for (const child of started.splice(0)) child.kill('SIGTERM');
});

/** `npm run reference -- --json …` as a child process; resolves with the fixtures line it prints first. */
async function referenceProcess(args: string[]): Promise<Fixtures> {
  const child = spawn(process.execPath, ['reference/cli.ts', '--json', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the reference process printed no fixtures within 60 s')), 60_000);
    createInterface({ input: child.stdout! }).once('line', (first) => {
      clearTimeout(timer);
      resolve(first);
    });
    child.once('exit', (code) => reject(new Error(`the reference process exited with ${code}`)));
  });
  return JSON.parse(line) as Fixtures;
}

function conformance(
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; ms: number }> {
  const begun = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['commands/run.ts', ...args], { env: cleanEnv(env) });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, ms: Date.now() - begun });
    });
  });
}

/** A receiver certificate the reference process trusts, and the variables that give it to the run. */
async function receiverSetup(): Promise<{ caPath: string; env: Record<string, string> }> {
  const tls = await generateTlsMaterial();
  const dir = mkdtempSync(join(tmpdir(), 'occ-tls-'));
  for (const [name, pem] of [
    ['cert.pem', tls.cert],
    ['key.pem', tls.key],
    ['ca.pem', tls.caCertPem],
  ] as const)
    writeFileSync(join(dir, name), pem);
  const port = await freeLoopbackPort();
  return {
    caPath: join(dir, 'ca.pem'),
    env: {
      WEBHOOK_PUBLIC_URL: `https://127.0.0.1:${port}`,
      RECEIVER_PORT: String(port),
      RECEIVER_TLS_CERT: join(dir, 'cert.pem'),
      RECEIVER_TLS_KEY: join(dir, 'key.pem'),
    },
  };
}

function targetEnv(fixtures: Fixtures, budgetS: number): Record<string, string> {
  return {
    API_BASE_URL: fixtures.baseUrl,
    TOKEN_ALL: fixtures.tokens.all!,
    TEST_AGENT_ID: fixtures.agents.provisioned,
    ALLOW_ORIGINATE: 'true',
    TEST_DESTINATION_NUMBER: '+15005550006',
    REQUESTS_PER_MINUTE: '6000',
    // The gate-sized budget at that rate (150 requests): the watch's kinds rotate by seed.
    RUN_BUDGET_S: '1.5',
    WEBHOOK_BUDGET_S: String(budgetS),
  };
}

const WATCHED = [
  'EVENT-LEAD-COMPLETED-PAYLOAD',
  'WEBHOOK-POST-JSON',
  'WEBHOOK-SIGNATURE-FORMAT',
  'WEBHOOK-SIGNATURE-INPUT',
  'WEBHOOK-SIGNATURE-KEY',
  'WEBHOOK-SIGNATURE-FRESH',
  'EVENT-BASE-FIELDS',
  'EVENT-ID-PRESENT-UNIQUE',
  'EVENT-CALL-ENDED-PAYLOAD',
  'EVENT-DNC-ADDED-PAYLOAD',
  'HOOKS-ONE-EVENT-PER-SUBSCRIPTION',
  'CALLS-CORRELATE-CALL-ENDED',
  'HOOKS-NO-DELIVERY-AFTER-DELETE',
  'WEBHOOK-ACK-2XX',
  'WEBHOOK-4XX-NO-RETRY',
  'WEBHOOK-5XX-RETRY',
  'WEBHOOK-TIMEOUT-RETRY',
  'WEBHOOK-RETRY-SAME-EVENT',
  'WEBHOOK-BACKOFF-EXPONENTIAL',
];

type Report = {
  requirements: Array<{ id: string; status: string; notVerifiableBecause: string[] }>;
  checks: Array<{ name: string; status: string; failure?: string }>;
};
const readReport = (dir: string) => JSON.parse(readFileSync(join(dir, 'latest', 'report.json'), 'utf8')) as Report;
const statusOf = (report: Report, id: string) => report.requirements.find((r) => r.id === id)!.status;

describe.concurrent("npm run conformance watching a remote target's deliveries (a sped-up reference process)", () => {
  it('verifies every delivery of the originated call and the retries within the budget; names the kinds not observed', {
    timeout: 300_000,
  }, async () => {
    const receiver = await receiverSetup();
    const fixtures = await referenceProcess([
      '--clock-scale',
      '50',
      '--rate-limit',
      '0',
      '--trust-ca',
      receiver.caPath,
    ]);
    const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
    // Seed 2: of the four kinds besides call.ended, this run subscribes dnc.added (rotation for the request budget).
    const { code, stdout } = await conformance(
      ['--no-properties', '--seed', '2', '--only', WATCHED.join(','), '--reports-dir', reports],
      { ...targetEnv(fixtures, 25), ...receiver.env },
      240_000,
    );
    const report = readReport(reports);
    expect(
      code,
      stdout
        .split('\n')
        .filter((line) => line.startsWith('FAIL'))
        .join('\n'),
    ).toBe(0);
    const unobserved = ['EVENT-DNC-ADDED-PAYLOAD'];
    // WEBHOOK-ACK-2XX among them: the call's call.ended reaches a second subscription, answering 200, and is not
    // attempted again.
    for (const id of WATCHED.filter((id) => ![...unobserved, 'EVENT-LEAD-COMPLETED-PAYLOAD'].includes(id)))
      expect(statusOf(report, id), id).toBe('passed');
    // A call causes no dnc.added on the reference: within the budget that is "not observed", never a pass.
    for (const id of unobserved) {
      const verdict = report.requirements.find((r) => r.id === id)!;
      expect(verdict.status, id).toBe('not_verifiable');
      expect(verdict.notVerifiableBecause.join(' '), id).toMatch(/not observed within 25 s/);
    }
    expect(
      report.requirements.find((r) => r.id === 'EVENT-LEAD-COMPLETED-PAYLOAD')!.notVerifiableBecause.join(' '),
    ).toMatch(/request budget: this run \(seed 2: slice 3 of 4\)/);
  });

  it('fails each broken rule: 4xx retried, flat backoff, new eventIds, delivery after DELETE, correlation, payload', {
    timeout: 300_000,
  }, async () => {
    const receiver = await receiverSetup();
    const faults =
      'retry-after-4xx,backoff-constant,retries-new-event-id,' +
      'delivery-after-delete,calls-correlation-broken,event-missing-field';
    // 20×, not 50×: the constant backoff's intervals (3 s) are then longer than the 1 s that times
    // seen on arrival may stray (ARRIVAL_JITTER_MS), so the rule decides; at 1.2 s it may not.
    const fixtures = await referenceProcess([
      '--clock-scale',
      '20',
      '--rate-limit',
      '0',
      '--trust-ca',
      receiver.caPath,
      '--faults',
      faults,
    ]);
    const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
    const { code } = await conformance(
      ['--no-properties', '--only', WATCHED.join(','), '--reports-dir', reports],
      { ...targetEnv(fixtures, 25), ...receiver.env },
      240_000,
    );
    const report = readReport(reports);
    expect(code).toBe(1);
    for (const id of [
      'WEBHOOK-4XX-NO-RETRY',
      'WEBHOOK-BACKOFF-EXPONENTIAL',
      'WEBHOOK-RETRY-SAME-EVENT',
      'HOOKS-NO-DELIVERY-AFTER-DELETE',
      'CALLS-CORRELATE-CALL-ENDED',
      'EVENT-CALL-ENDED-PAYLOAD',
    ]) {
      expect(statusOf(report, id), id).toBe('failed');
    }
    // Rules these faults leave alone are not dragged down with them.
    for (const id of ['WEBHOOK-SIGNATURE-KEY', 'WEBHOOK-POST-JSON', 'WEBHOOK-5XX-RETRY'])
      expect(statusOf(report, id), id).toBe('passed');
  });

  it("fails the correlation at once, with the receiver's reason, when the target signs with the wrong key", {
    timeout: 300_000,
  }, async () => {
    const receiver = await receiverSetup();
    const fixtures = await referenceProcess([
      '--rate-limit',
      '0',
      '--trust-ca',
      receiver.caPath,
      '--faults',
      'signature-wrong-key',
    ]);
    const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
    const { code } = await conformance(
      ['--no-properties', '--only', 'CALLS-CORRELATE-CALL-ENDED,WEBHOOK-SIGNATURE-KEY', '--reports-dir', reports],
      { ...targetEnv(fixtures, 90), ...receiver.env },
      240_000,
    );
    const report = readReport(reports);
    expect(code).toBe(1);
    const correlation = report.checks.find((c) => c.name.startsWith('The callId of the originated call'))!;
    expect(correlation.failure).toMatch(/was refused by the receiver with 401: signature_mismatch: /);
    expect(statusOf(report, 'WEBHOOK-SIGNATURE-KEY')).toBe('failed');
    // The refusal decided it, not the 90 s budget running out (no timed assertion: a busy machine is slow, not wrong).
    expect(correlation.failure).not.toMatch(/within \d+ s/);
  });
});

// A remote run sends one check of each operation's 401 row (7 requests; the rotation of the 401
// matrix), so the target limits to 5 per minute to refuse some of them.
describe('npm run conformance against a remote target limiting below 100 per minute (--rate-limit 5)', () => {
  it('counts every 429, fails RATE-LIMIT-100-PER-MIN with count and times, leaves refused checks not verifiable', {
    timeout: 300_000,
  }, async () => {
    const fixtures = await referenceProcess(['--rate-limit', '5']);
    const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
    const only =
      'AUTH-BEARER-REQUIRED,AUTH-MALFORMED-SCHEME,AUTH-UNKNOWN-TOKEN,' +
      'AUTH-EXPIRED-TOKEN,AUTH-REVOKED-TOKEN,RATE-LIMIT-100-PER-MIN';
    const env = {
      API_BASE_URL: fixtures.baseUrl,
      TOKEN_ALL: fixtures.tokens.all!,
      TOKEN_EXPIRED: fixtures.tokens.expired!,
      TOKEN_REVOKED: fixtures.tokens.revoked!,
      REQUESTS_PER_MINUTE: '6000',
      // Nothing else reaches the stand-in from this address: its 429s are its own.
      RATE_LIMIT_SOLE_CLIENT: 'true',
    };
    const { code, stdout } = await conformance(
      ['--no-properties', '--only', only, '--reports-dir', reports],
      env,
      240_000,
    );
    const report = JSON.parse(readFileSync(join(reports, 'latest', 'report.json'), 'utf8')) as Report & {
      requests: { rateLimited: number };
    };
    expect(code).toBe(1);
    const verdict = report.checks.find((c) => c.name.startsWith('No request of this run was refused for rate'))!;
    expect(verdict.status).toBe('failed');
    expect(verdict.failure).toMatch(
      new RegExp(
        /\d+ request\(s\) were refused with 429 while this run had sent at most 100 /.source +
          /in the preceding 60 s: (GET|POST|DELETE) \/v1\/\S+ at \S+ after [5-9]/.source,
      ),
    );
    expect(statusOf(report, 'RATE-LIMIT-100-PER-MIN')).toBe('failed');
    // Counted, and said in the summary line: not "0 × 429".
    expect(report.requests.rateLimited).toBeGreaterThan(0);
    expect(stdout).toMatch(new RegExp(`${report.requests.rateLimited} × 429`));
    // The refused checks say why; none ran into vitest's timeout waiting out the 429s.
    expect(
      report.checks
        .filter((c) => c.status === 'failed' && c !== verdict)
        .map((c) => c.failure)
        .join('\n'),
    ).not.toMatch(/timed out/i);
    expect(JSON.stringify(report.requirements)).toMatch(
      /refused for rate \(429\) after \d+ requests in the preceding 60 s/,
    );
  });
});

// Another client on the run's own address (127.0.0.1) spends the stand-in's per-IP budget in bursts
// while the run goes on: the refusals are the neighbour's, so no check may fail for them; each is
// waited out or not verifiable, and the passive rate-limit verdict (without RATE_LIMIT_SOLE_CLIENT)
// records them. The window is the stand-in's documented 3 s, so bursts and pauses come often.
describe('npm run conformance beside a noisy neighbour on the same address', () => {
  it('gives 0 failed checks while another client spends the per-IP budget; the 429s are recorded', {
    timeout: 300_000,
  }, async () => {
    const windowMs = 3_000;
    const fixtures = await referenceProcess(['--rate-limit', '100', '--rate-window-ms', String(windowMs)]);
    const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
    const only =
      'AUTH-BEARER-REQUIRED,AUTH-MALFORMED-SCHEME,AUTH-UNKNOWN-TOKEN,ME-200-SHAPE,AGENTS-NO-CREDENTIALS,' +
      'CDRS-WINDOW-MAX-31D,CDRS-TILL-AFTER-FROM,HOOKS-DELETE-NON-UUID-400,RATE-LIMIT-100-PER-MIN';
    const neighbour = startNeighbour(`${fixtures.baseUrl}/me`, windowMs);
    const { code, stdout } = await conformance(
      ['--no-properties', '--only', only, '--reports-dir', reports],
      { API_BASE_URL: fixtures.baseUrl, TOKEN_ALL: fixtures.tokens.all!, RATE_LIMIT_WINDOW_MS: String(windowMs) },
      240_000,
    ).finally(() => neighbour.stop());
    const report = JSON.parse(readFileSync(join(reports, 'latest', 'report.json'), 'utf8')) as Report & {
      requests: { rateLimited: number };
    };
    // The neighbour did spend the budget under the run: the run met 429s it had not earned.
    expect(neighbour.refused()).toBeGreaterThan(0);
    expect(report.requests.rateLimited).toBeGreaterThan(0);
    const failed = report.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => `${c.name}: ${c.failure}`)).toEqual([]);
    expect(code).toBe(0);
    expect(statusOf(report, 'RATE-LIMIT-100-PER-MIN')).toBe('not_verifiable');
    expect(stdout).toMatch(/0 failed/);
  });
});

/**
 * Bursts of GET /me from 127.0.0.1 (no token: answered 401, counted all the same), 110 every other
 * window, until stopped or 120 s have passed: bounded in count and time.
 */
function startNeighbour(url: string, windowMs: number): { stop(): void; refused(): number } {
  let stopped = false;
  let refused = 0;
  const until = Date.now() + 120_000;
  const loop = async () => {
    while (!stopped && Date.now() < until) {
      for (let sent = 0; sent < 110 && !stopped; sent += 10) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, () =>
            fetch(url)
              .then(async (response) => {
                await response.arrayBuffer();
                return response.status;
              })
              .catch(() => 0),
          ),
        );
        refused += answers.filter((status) => status === 429).length;
      }
      await new Promise((resolve) => setTimeout(resolve, 2 * windowMs));
    }
  };
  void loop();
  return {
    stop: () => {
      stopped = true;
    },
    refused: () => refused,
  };
}
