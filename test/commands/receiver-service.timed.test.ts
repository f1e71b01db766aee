/**
 * Webhooks from a CI runner with no inbound traffic, end to end: the receiver runs
 * as a service next to the target (`npm run receiver` with RECEIVER_TOKEN, its own process, a
 * certificate the target trusts), a second reference process-like server stands in for staging,
 * and `npm run conformance` polls the service with RECEIVER_URL + RECEIVER_TOKEN. The service
 * never sees a secret: the suite verifies the signatures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTlsMaterial } from '../../harness/webhooks/receiver.ts';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.ts';
import { cleanEnv, type ProcessRun, runProcess } from './occ-process.ts';
import { freeLoopbackPort } from '../../cli/loopback-port.ts';

const TOKEN = 'rcv_ci_token_9f8e7d6c5b4a39281706';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function runCli(args: string[], env: Record<string, string>): Promise<ProcessRun> {
  return runProcess(process.execPath, ['commands/run.ts', ...args], env, { timeoutMs: 110_000 });
}

describe('npm run conformance with a receiver deployed next to the target (RECEIVER_URL)', () => {
  let service: ChildProcess;
  let target: ReferenceServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    const tls = await generateTlsMaterial();
    const dir = mkdtempSync(join(tmpdir(), 'occ-service-'));
    for (const [name, pem] of [
      ['ca.pem', tls.caCertPem],
      ['cert.pem', tls.cert],
      ['key.pem', tls.key],
    ] as const)
      writeFileSync(join(dir, name), pem);
    const port = await freeLoopbackPort();
    // The operator's side: the service, on a certificate the target trusts.
    service = spawn('npm', ['run', '-s', 'receiver'], {
      env: cleanEnv({
        RECEIVER_TOKEN: TOKEN,
        RECEIVER_PORT: String(port),
        RECEIVER_TLS_CERT: join(dir, 'cert.pem'),
        RECEIVER_TLS_KEY: join(dir, 'key.pem'),
        WEBHOOK_PUBLIC_URL: `https://127.0.0.1:${port}`,
      }),
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: service.stdout! }).on('line', (line) => {
        if (line.startsWith('Webhook receiver listening')) resolve();
      });
      service.once('exit', (code) => reject(new Error(`npm run receiver exited ${code}`)));
    });
    target = await startReferenceServer({ rateLimit: false, trustedCaPem: [tls.caCertPem] });
    env = {
      API_BASE_URL: target.baseUrl,
      TOKEN_ALL: target.fixtures.tokens.all,
      TOKEN_WRITE_CALLS: target.fixtures.tokens['write:calls'],
      TEST_AGENT_ID: target.fixtures.agents.provisioned,
      ALLOW_ORIGINATE: 'true',
      TEST_DESTINATION_NUMBER: '+15005550006',
      REQUESTS_PER_MINUTE: '6000',
      // The CI runner's side: where the target delivers, and where the suite pulls from.
      WEBHOOK_PUBLIC_URL: `https://127.0.0.1:${port}`,
      RECEIVER_URL: `https://127.0.0.1:${port}`,
      RECEIVER_TOKEN: TOKEN,
      // The service's certificate is private here; a real one would be publicly trusted.
      NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
    };
  }, 60_000);

  afterAll(async () => {
    if (service.exitCode === null) process.kill(-service.pid!, 'SIGTERM');
    await target.close();
  });

  it('verifies the call.ended correlation from what the service stored, and leaves no token in the reports', {
    timeout: 120_000,
  }, async () => {
    const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
    const { code, stdout, stderr } = await runCli(
      ['--no-properties', '--only', 'CALLS-CORRELATE-CALL-ENDED,HOOKS-NO-DIRECT-EMIT', '--reports-dir', reports],
      env,
    );
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    const report = JSON.parse(readFileSync(join(reports, 'latest', 'report.json'), 'utf8'));
    const verdict = (id: string) => report.requirements.find((r: { id: string }) => r.id === id).status;
    expect(verdict('CALLS-CORRELATE-CALL-ENDED')).toBe('passed');
    expect(verdict('HOOKS-NO-DIRECT-EMIT')).toBe('passed');
    expect(report.counts.checks.skipped).toBe(0);
    for (const file of filesUnder(reports)) expect(readFileSync(file, 'utf8').includes(TOKEN), file).toBe(false);
  });

  it('fails the correlation at once when the target signs wrongly: the suite, not the service, finds it', {
    timeout: 120_000,
  }, async () => {
    const tls = readFileSync(env.NODE_EXTRA_CA_CERTS!, 'utf8');
    const faulty = await startReferenceServer({
      rateLimit: false,
      trustedCaPem: [tls],
      faults: ['signature-without-timestamp'],
    });
    try {
      const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
      const { code } = await runCli(
        ['--no-properties', '--only', 'CALLS-CORRELATE-CALL-ENDED', '--reports-dir', reports],
        {
          ...env,
          API_BASE_URL: faulty.baseUrl,
          TOKEN_ALL: faulty.fixtures.tokens.all,
          TOKEN_WRITE_CALLS: faulty.fixtures.tokens['write:calls'],
          TEST_AGENT_ID: faulty.fixtures.agents.provisioned,
        },
      );
      expect(code).toBe(1);
      const report = JSON.parse(readFileSync(join(reports, 'latest', 'report.json'), 'utf8'));
      const failure = (report.checks as Array<{ status: string; failure?: string }>).find(
        (c) => c.status === 'failed',
      )?.failure;
      expect(failure).toMatch(
        /fails the suite's signature verification: signature_mismatch: .*the raw body alone, without the `t\.` prefix/,
      );
    } finally {
      await faulty.close();
    }
  });

  it('stops before any check, in one line naming RECEIVER_TOKEN, when the service refuses the token', {
    timeout: 60_000,
  }, async () => {
    const reports = mkdtempSync(join(tmpdir(), 'occ-cli-'));
    const { code, stderr } = await runCli(
      ['--no-properties', '--only', 'CALLS-CORRELATE-CALL-ENDED', '--reports-dir', reports],
      { ...env, RECEIVER_TOKEN: 'not_the_token_0123456789' },
    );
    expect(code).toBe(2);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/RECEIVER_TOKEN: the receiver at https:\/\/127\.0\.0\.1:\d+ refused it \(401\)/);
    expect(stderr).not.toContain('not_the_token_0123456789');
  });
});
