/**
 * The k6 probes, for real: `node commands/load.ts <probe>` as a child process against the reference
 * server it starts. Both probes pass on the faithful reference, and each fault they exist to
 * catch makes them fail with k6's threshold verdict (exit 99):
 *   rate-limit     no-rate-limit, rate-limit-half (and it passes the conformant fixed-window variant)
 *   webhook-retry  retry-after-4xx, no-auto-disable, backoff-constant
 *
 * Three lanes run side by side: two of rate-limit runs (each mostly waiting on its windows,
 * against its own reference server), one of webhook-retry runs; the vitest timeout of a run also
 * covers its wait in the lane. The webhook lane ends with one remote run: a second reference as
 * the target, the receiver on a user-supplied certificate k6 does not trust; a rate-limit lane
 * ends with a second reference process driven through its control endpoint.
 *
 * A rate-limit probe that could not keep its own schedule (a starved machine: late sends) says so
 * by its probe thresholds and proves nothing either way, so such a run is run again, at most three
 * times; a verdict on the target only ever comes from a run that kept its rate. How long a probe
 * takes (the "< 30 s" goal) is a
 * benchmark, measured by `npm run load:rate-limit` / `load:webhook-retry` (bench/RESULTS.md),
 * never asserted here: npm test runs files side by side, and a busy machine is slower, not wrong.
 *
 * k6 comes from load/install-k6.sh (built with Go once per machine). When it cannot be found or
 * built, the file FAILS with install-k6's message: CI has Go, so a missing k6 is a broken set-up.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMIT_TOLERANCE } from '../../load/lib/windows.ts';
import { parseRunArgs } from '../../load/run.ts';
import { generateTlsMaterial } from '../../harness/webhooks/receiver.ts';
import { startReferenceServer } from '../../reference/server.ts';
import { remoteRunEnvironment, startRemoteReference } from '../../cli/remote-reference.ts';
import { freeLoopbackPort } from '../../cli/loopback-port.ts';

const root = resolve(import.meta.dirname, '../..');
const node = existsSync(join(root, 'node_modules/.bin/node')) ? join(root, 'node_modules/.bin/node') : process.execPath;
const THRESHOLDS_CROSSED = 99;
const dirs: string[] = [];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  reportDir: string;
}

function run(args: string[], killAfterMs = 180_000, env: Record<string, string> = {}): Promise<Run> {
  const reportDir = mkdtempSync(join(tmpdir(), 'occ-k6-test-'));
  dirs.push(reportDir);
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(node, ['commands/load.ts', ...args, '--report-dir', reportDir], {
      cwd: root,
      // The embedded reference server whatever the developer's .env says.
      env: {
        ...process.env,
        API_BASE_URL: '',
        AUTH_URL: '',
        OCC_REFERENCE_FAULTS: '',
        OCC_REFERENCE_VARIANTS: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, ms: Date.now() - started, reportDir });
    });
  });
}

/** What these tests read of each probe's k6-<probe>.json (written by load/rate-limit.ts and load/webhook-retry.ts). */
interface ProbeReports {
  'rate-limit': {
    passed: boolean;
    failedThresholds: string[];
    observations: {
      configured: { limit: number; windowMs: number };
      estimate: { limit: number; model: string; windowsUsed: number };
      'RATE-LIMIT-RESPONSE-SHAPE': { refusal: { status: number } } | null;
      'RATE-LIMIT-WINDOW-BEHAVIOUR': { servedAgainAfterRefusal: boolean };
    };
  };
  'webhook-retry': {
    passed: boolean;
    failedThresholds: string[];
    observations: { plans: Array<{ plan: string; attempts: number; intervalsS: number[] }> };
    chart: { series: Array<{ plan: string; attemptAtS: number[] }> };
  };
}

function report<P extends keyof ProbeReports>(r: Run, probe: P): ProbeReports[P] {
  return JSON.parse(readFileSync(join(r.reportDir, `k6-${probe}.json`), 'utf8'));
}

/** The rate-limit probe's own thresholds that say it could not send at its rate (not the target's fault). */
const COULD_NOT_KEEP_ITS_RATE = new Set(['late_requests', 'dropped_iterations']);
const RATE_ATTEMPTS = 3;

/** A rate-limit run, run again while the probe says it could not keep its rate (at most RATE_ATTEMPTS runs). */
async function rateRun(args: string[], env: Record<string, string> = {}): Promise<Run> {
  let r: Run | undefined;
  for (let attempt = 1; attempt <= RATE_ATTEMPTS; attempt++) {
    r = await run(['rate-limit', ...args], 180_000, env);
    let crossed: string[] = [];
    try {
      crossed = (
        JSON.parse(readFileSync(join(r.reportDir, 'k6-rate-limit.json'), 'utf8')) as {
          thresholds: Array<{ key: string; ok: boolean }>;
        }
      ).thresholds
        .filter((t) => !t.ok)
        .map((t) => t.key);
    } catch {
      return r; // no report: the run's own failure, for the test to show
    }
    if (!crossed.some((key) => COULD_NOT_KEEP_ITS_RATE.has(key))) return r;
    console.info(
      `rate-limit ${args.join(' ')}: the probe could not keep its rate (${crossed.join(', ')}), ` +
        `attempt ${attempt} of ${RATE_ATTEMPTS}`,
    );
  }
  return r!;
}

function describeRun(r: Run): string {
  return `exit ${r.code} after ${r.ms} ms\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

/** Runs of one lane go one after another; the lanes run side by side. */
type Lane = 'rate-a' | 'rate-b' | 'webhook';
const lanes: Record<Lane, Promise<unknown>> = {
  'rate-a': Promise.resolve(),
  'rate-b': Promise.resolve(),
  webhook: Promise.resolve(),
};
function inLane<T>(lane: Lane, fn: () => Promise<T>): Promise<T> {
  const next = lanes[lane].then(fn);
  lanes[lane] = next.catch(() => undefined);
  return next;
}

beforeAll(() => {
  // Find or build k6 once, before the lanes start (a first build takes minutes).
  const found = spawnSync('bash', [join(root, 'load/install-k6.sh')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 240_000,
  });
  if (found.status !== 0) {
    const reason = (found.stderr ?? '').trim().split('\n').pop() ?? `install-k6.sh exited with ${found.status}`;
    throw new Error(`k6 is required for the load probes and could not be found or built: ${reason}`);
  }
}, 250_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('a timed-runs file (vitest.config.ts)', () => {
  it("runs at vitest's own priority, not the batches' lower one: its probe sends on a real-time schedule", () => {
    expect(getPriority()).toBe(getPriority(process.ppid));
  });
});

describe('load/run.ts arguments', () => {
  it('parses a probe, faults and a report directory', () => {
    const args = parseRunArgs(
      ['webhook-retry', '--faults', 'backoff-constant, no-auto-disable', '--report-dir', '/tmp/x'],
      {},
    );
    expect(args).toEqual({
      probe: 'webhook-retry',
      faults: ['backoff-constant', 'no-auto-disable'],
      reportDir: '/tmp/x',
    });
    expect(parseRunArgs(['rate-limit'], { referenceFaults: ['no-rate-limit'] }).faults).toEqual(['no-rate-limit']);
  });

  it('refuses bad arguments with one line and exit 2, no stack trace', async () => {
    for (const args of [['no-such-probe'], ['rate-limit', '--faults', 'not-a-fault'], ['rate-limit', '--bogus']]) {
      const r = await run(args);
      expect(r.code, describeRun(r)).toBe(2);
      expect(r.stderr.trim().split('\n'), describeRun(r)).toHaveLength(1);
      expect(r.stderr).toMatch(/^load: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  }, 180_000);

  it('says webhook-retry needs a receiver on this machine when RECEIVER_URL names a deployed one', async () => {
    const r = await run(['webhook-retry'], 120_000, {
      API_BASE_URL: 'https://api.example.com/v1',
      TOKEN_ALL: 'tok_x',
      ALLOW_ORIGINATE: 'true',
      TEST_DESTINATION_NUMBER: '+15005550006',
      TEST_AGENT_ID: '1',
      WEBHOOK_PUBLIC_URL: 'https://hooks.example.com',
      RECEIVER_URL: 'https://hooks.example.com',
      RECEIVER_TOKEN: 'rcv_token_0123456789abcdef',
    });
    expect(r.code, describeRun(r)).toBe(2);
    expect(r.stderr.trim()).toBe(
      'load: webhook-retry uses a receiver on this machine, not a deployed one: ' +
        'unset RECEIVER_URL and RECEIVER_TOKEN, and point WEBHOOK_PUBLIC_URL at this machine ' +
        '(a tunnel or RECEIVER_TLS_CERT)',
    );
  }, 180_000);
});

describe.concurrent('k6 probes against the reference server', () => {
  it('rate-limit passes, estimating the limit within its tolerance of the configured one', async () => {
    const r = await inLane('rate-a', () => rateRun([]));
    expect(r.code, describeRun(r)).toBe(0);
    const { observations } = report(r, 'rate-limit');
    const configured = observations.configured.limit as number;
    const estimate = observations.estimate.limit as number;
    // Figures for load/README.md.
    console.info(
      `rate-limit: configured ${configured} per ${observations.configured.windowMs} ms, ` +
        `estimated ${estimate} over ${observations.estimate.windowsUsed} windows, probe ${r.ms} ms`,
    );
    expect(Math.abs(estimate - configured)).toBeLessThanOrEqual(configured * LIMIT_TOLERANCE);
    expect(observations.estimate.windowsUsed).toBeLessThanOrEqual(2);
    expect(observations['RATE-LIMIT-RESPONSE-SHAPE']!.refusal.status).toBe(429);
    expect(observations['RATE-LIMIT-WINDOW-BEHAVIOUR'].servedAgainAfterRefusal).toBe(true);
  }, 600_000);

  // Sliding or fixed is not said: a fixed window aligned to the clock (up to twice the limit in a
  // rolling window across a boundary) is conformant, and the probe must pass it.
  it('rate-limit passes a clock-aligned fixed window (conformant), counting the limit per window found', async () => {
    const r = await inLane('rate-b', () => rateRun([], { OCC_REFERENCE_VARIANTS: 'rate-limit-fixed-window' }));
    expect(r.code, describeRun(r)).toBe(0);
    const { observations } = report(r, 'rate-limit');
    expect(observations.estimate.model).toBe('blocks');
    const configured = observations.configured.limit as number;
    expect(Math.abs((observations.estimate.limit as number) - configured)).toBeLessThanOrEqual(
      configured * LIMIT_TOLERANCE,
    );
  }, 600_000);

  for (const [fault, lane] of [
    ['no-rate-limit', 'rate-a'],
    ['rate-limit-half', 'rate-b'],
  ] as const) {
    it(`rate-limit fails with ${fault}`, async () => {
      const r = await inLane(lane, () => rateRun(['--faults', fault]));
      expect(r.code, describeRun(r)).toBe(THRESHOLDS_CROSSED);
      expect(r.stderr).toMatch(/^load: rate-limit FAILED after .* thresholds crossed: /m);
      // Caught by a threshold on the target, not by the probe's own schedule.
      expect(
        report(r, 'rate-limit').failedThresholds.filter((t) => !COULD_NOT_KEEP_ITS_RATE.has(t.split(' ')[0]!)),
        describeRun(r),
      ).not.toEqual([]);
    }, 600_000);
  }

  it('webhook-retry passes', async () => {
    const r = await inLane('webhook', () => run(['webhook-retry']));
    expect(r.code, describeRun(r)).toBe(0);
    const { observations, chart } = report(r, 'webhook-retry');
    const server5xx = observations.plans.find((p) => p.plan === 'server5xx')!;
    console.info(
      `webhook-retry: server5xx ${server5xx.attempts} attempts, ` +
        `intervals ${server5xx.intervalsS.join(', ')} s (virtual), probe ${r.ms} ms`,
    );
    expect(server5xx.attempts).toBe(10);
    expect(chart.series.length).toBeGreaterThan(0);
  }, 600_000);

  for (const fault of ['retry-after-4xx', 'no-auto-disable', 'backoff-constant']) {
    it(`webhook-retry fails with ${fault}`, async () => {
      const r = await inLane('webhook', () => run(['webhook-retry', '--faults', fault]));
      expect(r.code, describeRun(r)).toBe(THRESHOLDS_CROSSED);
      expect(r.stderr).toMatch(/^load: webhook-retry FAILED after .* thresholds crossed: /m);
    }, 600_000);
  }

  it("webhook-retry drives a target's retries via CONTROL_URL: no auto-disable fails, no token shown", async () => {
    // A second reference process as the target, with every fixture and its control endpoint: the
    // probe jumps its virtual clock through the protocol (seconds), so the tenth failure is reached.
    const target = await startRemoteReference({ faults: ['no-auto-disable'] });
    try {
      const env = Object.fromEntries(
        Object.entries(remoteRunEnvironment(target)).filter((e): e is [string, string] => e[1] !== undefined),
      );
      const r = await inLane('rate-a', () => run(['webhook-retry'], 180_000, env));
      expect(r.stderr).toMatch(/deliveries driven in the target's virtual time \(CONTROL_URL\)/);
      expect(r.code, describeRun(r)).toBe(THRESHOLDS_CROSSED);
      expect(report(r, 'webhook-retry').failedThresholds).toEqual(['checks{req:WEBHOOK-AUTO-DISABLE-10} rate==1']);
      const token = env.CONTROL_TOKEN!;
      expect(r.stdout + r.stderr).not.toContain(token);
      expect(readFileSync(join(r.reportDir, 'k6-webhook-retry.json'), 'utf8')).not.toContain(token);
    } finally {
      await target.close();
    }
  }, 300_000);

  it('webhook-retry reaches a remote receiver with a user-supplied certificate (no x509 error), passes', async () => {
    // RECEIVER_TLS_CERT is issued by a CA only the target trusts; k6 never sees it. The stand-in
    // runs its clock 1000× so ten attempts of 60 s doubling (8.5 h) take about 31 s; the watch
    // judges the backoff from arrival times, within their jitter (harness/checks/backoff.ts).
    const tls = await generateTlsMaterial();
    const dir = mkdtempSync(join(tmpdir(), 'occ-k6-tls-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'cert.pem'), tls.cert);
    writeFileSync(join(dir, 'key.pem'), tls.key);
    const port = await freeLoopbackPort();
    const target = await startReferenceServer({ rateLimit: false, clockScale: 1000, trustedCaPem: [tls.caCertPem] });
    try {
      const r = await inLane('webhook', () =>
        run(['webhook-retry'], 180_000, {
          API_BASE_URL: target.baseUrl,
          TOKEN_ALL: target.fixtures.tokens.all,
          TEST_AGENT_ID: target.fixtures.agents.provisioned,
          ALLOW_ORIGINATE: 'true',
          TEST_DESTINATION_NUMBER: '+15005550006',
          TIME_BUDGET_S: '60',
          WEBHOOK_PUBLIC_URL: `https://127.0.0.1:${port}`,
          RECEIVER_PORT: String(port),
          RECEIVER_TLS_CERT: join(dir, 'cert.pem'),
          RECEIVER_TLS_KEY: join(dir, 'key.pem'),
        }),
      );
      expect(r.stderr + r.stdout).not.toMatch(/x509|certificate signed by unknown authority/);
      expect(r.code, describeRun(r)).toBe(0);
      const { observations } = report(r, 'webhook-retry');
      const attempts = Object.fromEntries(
        (observations.plans as Array<{ plan: string; attempts: number }>).map((p) => [p.plan, p.attempts]),
      );
      // What the receiver saw, read back by k6 through the query API.
      expect(attempts).toMatchObject({ ack: 1, client4xx: 1, server5xx: 10 });
    } finally {
      await target.close();
    }
  }, 600_000);
});
