/**
 * N = 3 cooperating k6 runners for real: `node commands/load.ts rate-limit --runners 3` against the
 * reference it starts (the scaled 2500 ms window, REFERENCE_WINDOW_MS), the runners on 127.0.0.2,
 * .3 and .4, the reference keying its limit on each socket's remote address:
 *
 *   - on the conformant reference the merged verdict equals the single runner's on every
 *     requirement the single runner decides, and it decides RATE-LIMIT-PER-IP, which one address
 *     cannot (a single runner leaves its second-address half not verifiable);
 *   - rate-limit-per-token and rate-limit-global each fail RATE-LIMIT-PER-IP in the merge;
 *   - a runner killed mid-run makes the merged verdict not run, never failed or passed.
 *
 * The runs go one after another (each runs three k6 processes and the reference). A run whose
 * probe could not keep its own schedule (late or dropped sends on a starved machine) proves
 * nothing either way and is run again, at most three times, as in k6-probes.timed.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromK6Summary } from '../../harness/report/files.ts';
import { judgeRequirement, type LoadProbeSummary } from '../../harness/report/model.ts';
import { PROBE_REQUIREMENTS, requirements } from '../../requirements/catalogue.ts';

const root = resolve(import.meta.dirname, '../..');
const node = existsSync(join(root, 'node_modules/.bin/node')) ? join(root, 'node_modules/.bin/node') : process.execPath;
const dirs: string[] = [];
const COULD_NOT_KEEP_ITS_RATE = new Set(['late_requests', 'dropped_iterations']);

interface Run {
  code: number | null;
  stderr: string;
  reportDir: string;
  ms: number;
}

/** One `commands/load.ts rate-limit` run; `during` sees the child (to kill one of its runners). */
function run(args: string[], during?: (pid: number) => void): Promise<Run> {
  const reportDir = mkdtempSync(join(tmpdir(), 'occ-runners-test-'));
  dirs.push(reportDir);
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(node, ['commands/load.ts', 'rate-limit', ...args, '--report-dir', reportDir], {
      cwd: root,
      env: {
        ...process.env,
        API_BASE_URL: '',
        AUTH_URL: '',
        OCC_REFERENCE_FAULTS: '',
        OCC_REFERENCE_VARIANTS: '',
        LOAD_RUNNERS: '',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), 240_000);
    if (during !== undefined) during(child.pid!);
    child.on('close', (code) => {
      clearTimeout(guard);
      done({ code, stderr, reportDir, ms: Date.now() - started });
    });
  });
}

// biome-ignore lint/suspicious/noExplicitAny: parsed documents, read by path in assertions
function summaryJson(r: Run): Record<string, any> {
  return JSON.parse(readFileSync(join(r.reportDir, 'k6-rate-limit.json'), 'utf8'));
}

/** A run again while the probe (any runner of it) says it could not keep its rate. */
async function rateRun(args: string[]): Promise<Run> {
  let r: Run | undefined;
  for (let attempt = 1; attempt <= 3; attempt++) {
    r = await run(args);
    let crossed: string[] = [];
    try {
      crossed = (summaryJson(r).thresholds as Array<{ key: string; ok: boolean }>)
        .filter((t) => !t.ok)
        .map((t) => t.key);
    } catch {
      return r;
    }
    if (!crossed.some((key) => COULD_NOT_KEEP_ITS_RATE.has(key))) return r;
    console.info(
      `rate-limit ${args.join(' ')}: could not keep its rate (${crossed.join(', ')}), attempt ${attempt} of 3`,
    );
  }
  return r!;
}

function verdicts(summary: LoadProbeSummary): Record<string, string> {
  const ids = PROBE_REQUIREMENTS['rate-limit'];
  return Object.fromEntries(
    requirements.filter((q) => ids.includes(q.id)).map((q) => [q.id, judgeRequirement(q, [], [summary]).status]),
  );
}

const describeRun = (r: Run) => `exit ${r.code} after ${r.ms} ms\n${r.stderr}`;

beforeAll(() => {
  const found = spawnSync('bash', [join(root, 'load/install-k6.sh')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 240_000,
  });
  if (found.status !== 0)
    throw new Error(`k6 is required and could not be found or built: ${(found.stderr ?? '').trim().split('\n').pop()}`);
}, 250_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('occ load rate-limit --runners 3 against the reference (three loopback addresses)', () => {
  it("conformant: one merged verdict, the single runner's where it decides, RATE-LIMIT-PER-IP passed", async () => {
    const single = await rateRun([]);
    expect(single.code, describeRun(single)).toBe(0);
    const merged = await rateRun(['--runners', '3']);
    expect(merged.code, describeRun(merged)).toBe(0);
    expect(merged.stderr).toMatch(/3 runners from 127\.0\.0\.2, 127\.0\.0\.3, 127\.0\.0\.4/);
    expect(merged.stderr).toMatch(/^load: rate-limit: 3 runners merged: PASS/m);
    // ONE verdict: the merged summary is the report's k6-rate-limit.json, beside the runners' own.
    const files = readdirSync(merged.reportDir)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(files).toEqual([
      'k6-rate-limit.json',
      'k6-rate-limit.runner-1-of-3.json',
      'k6-rate-limit.runner-2-of-3.json',
      'k6-rate-limit.runner-3-of-3.json',
    ]);
    const one = fromK6Summary(summaryJson(single) as never);
    const many = fromK6Summary(summaryJson(merged) as never);
    expect(many.passed).toBe(one.passed);
    for (const [id, verdict] of Object.entries(one.requirements)) expect(many.requirements[id], id).toBe(verdict);
    const singleVerdicts = verdicts(one);
    const mergedVerdicts = verdicts(many);
    expect(singleVerdicts['RATE-LIMIT-PER-IP']).toBe('not_verifiable');
    expect(mergedVerdicts).toEqual({ ...singleVerdicts, 'RATE-LIMIT-PER-IP': 'passed' });
    const perIp = summaryJson(merged).observations['RATE-LIMIT-PER-IP'];
    expect(perIp.secondAddress).toEqual([
      { runner: 2, address: '127.0.0.3', status: 200, conclusive: true },
      { runner: 3, address: '127.0.0.4', status: 200, conclusive: true },
    ]);
  }, 600_000);

  for (const fault of ['rate-limit-per-token', 'rate-limit-global']) {
    it(`fails RATE-LIMIT-PER-IP in the merge with ${fault}`, async () => {
      const r = await rateRun(['--runners', '3', '--faults', fault]);
      expect(r.code, describeRun(r)).toBe(99);
      const json = summaryJson(r);
      expect(json.failedThresholds).toContain('second_address_served rate==1');
      if (fault === 'rate-limit-per-token') expect(json.failedThresholds).toContain('other_token_refused rate==1');
      expect(verdicts(fromK6Summary(json as never))['RATE-LIMIT-PER-IP']).toBe('failed');
    }, 600_000);
  }

  it('a runner killed mid-run makes the merged verdict not run (exit 1), never failed or passed', async () => {
    let killed = '';
    const r = await run(['--runners', '3'], (pid) => {
      // Mid-run: after the set-ups start (4 s) and into the phases, end runner 2's k6 (a child of this run) by its id.
      setTimeout(() => {
        const children = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], {
          encoding: 'utf8',
        }).stdout.split('\n');
        const line = children.find((l) => l.includes('--execution-segment=1/3:2/3'));
        if (line === undefined) return;
        killed = line.trim().split(/\s+/)[0]!;
        process.kill(Number(killed), 'SIGKILL');
      }, 12_000);
    });
    expect(killed, describeRun(r)).not.toBe('');
    expect(r.code, describeRun(r)).toBe(1);
    expect(r.stderr).toMatch(/runner 2 of 3 \(127\.0\.0\.3\) ended with SIGKILL/);
    const json = summaryJson(r);
    expect(json.notFinished.reason).toMatch(/runner 2 of 3 was ended by SIGKILL/);
    const statuses = verdicts(fromK6Summary(json as never));
    for (const id of PROBE_REQUIREMENTS['rate-limit']) expect(statuses[id], id).toBe('not_run');
  }, 600_000);
});
