/**
 * Waivers and replay commands end to end, through `occ run` as a user runs it, against a faulty
 * reference: the embedded one with OCC_REFERENCE_FAULTS for waivers, and one started here and
 * used as a remote target (API_BASE_URL + TOKEN_*) for the curl replay, which must reproduce the
 * status the check saw against that same target.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenNames, tokenVariable } from '../../harness/config/tokens.ts';
import { startReferenceServer } from '../../reference/server.ts';
import { runOcc, runProcess } from './occ-process.ts';

const occ = (args: string[], extra: Record<string, string>, cwd: string) => runOcc(args, extra, cwd);

/** The text a reader sees in HTML or XML (entities decoded). */
const unescapeXml = (text: string) =>
  text.replace(
    /&(quot|apos|lt|gt|#39|#x27|amp);/g,
    (_, e: string) => ({ quot: '"', apos: "'", lt: '<', gt: '>', '#39': "'", '#x27': "'", amp: '&' })[e]!,
  );

const read = (dir: string, file: string) => readFileSync(join(dir, 'reports', 'latest', file), 'utf8');
type Report = {
  checks: { name: string; status: string; exchanges: { status?: number; curl?: string }[] }[];
  requirements: { id: string; status: string }[];
  waivers: { mode: string; expired: unknown[]; unused: { requirement: string }[] };
};

// me-missing-field fails the GET /me check (tagged ME-200-SHAPE and FORMAT-JSON-CONTENT-TYPE);
// BALANCE-200-SHAPE's check runs and passes, so a waiver of it is unused.
const faulty = { OCC_REFERENCE_FAULTS: 'me-missing-field' };
const only = ['--no-properties', '--only', 'ME-200-SHAPE,BALANCE-200-SHAPE'];

describe('occ run --waivers', { timeout: 300_000 }, () => {
  it('--update-waivers writes failures, reported waived; unused, expired flagged; --strict ignores all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'occ-waivers-'));
    // A person's existing entry, with a field of their own: --update-waivers must leave it as it is.
    const mine = {
      requirement: 'BALANCE-200-SHAPE',
      reason: 'fixed last week',
      owner: 'team-billing',
      expires: '2099-12-31',
    };
    writeFileSync(join(dir, 'waivers.json'), JSON.stringify({ waivers: [mine] }));

    const update = await occ(['run', ...only, '--waivers', 'waivers.json', '--update-waivers'], faulty, dir);
    expect(update.code, update.stderr).toBe(1);
    expect(update.stdout).toMatch(/--update-waivers: 2 failures added to waivers\.json/);
    const written = JSON.parse(readFileSync(join(dir, 'waivers.json'), 'utf8')) as {
      waivers: Record<string, unknown>[];
    };
    expect(written.waivers[0]).toEqual(mine);
    expect(written.waivers.slice(1).map((w) => [w.requirement, w.reason, w.expires])).toEqual([
      ['ME-200-SHAPE', null, null],
      ['FORMAT-JSON-CONTENT-TYPE', null, null],
    ]);
    expect(written.waivers[1]!.check).toMatch(/^GET \/me /);

    // A person fills in the reason and expiry; the run passes with the failure waived.
    for (const w of written.waivers.slice(1))
      Object.assign(w, { reason: 'rename ships in 2.4', ticket: 'OPS-42', expires: '2099-01-31' });
    writeFileSync(join(dir, 'waivers.json'), JSON.stringify(written));
    const waived = await occ(['run', ...only], { ...faulty, WAIVERS_FILE: 'waivers.json' }, dir);
    expect(waived.code, waived.stdout + waived.stderr).toBe(0);
    expect(waived.stdout).toMatch(/unused waiver .*BALANCE-200-SHAPE/);
    const report = JSON.parse(read(dir, 'report.json')) as Report;
    expect(report.waivers.mode).toBe('waivers');
    expect(report.checks.find((c) => c.name.startsWith('GET /me '))!.status).toBe('waived');
    expect(report.requirements.find((r) => r.id === 'ME-200-SHAPE')!.status).toBe('waived');
    expect(report.waivers.unused.map((w) => w.requirement)).toEqual(['BALANCE-200-SHAPE']);
    const md = read(dir, 'report.md');
    expect(md).toMatch(/\| ME-200-SHAPE \| MUST \| ⚠️ waived/);
    expect(md).toMatch(/Waivers: waivers applied from waivers\.json/);
    expect(md).toMatch(/\*\*unused\*\*.*BALANCE-200-SHAPE/);
    expect(md).toMatch(/OPS-42/);
    const page = read(dir, 'report.html');
    expect(page).toMatch(/data-requirement="ME-200-SHAPE" data-status="waived"/);
    expect(page).toMatch(/<li data-waiver="unused">BALANCE-200-SHAPE/);
    const junit = read(dir, 'junit.xml');
    expect(junit).toMatch(/<property name="status" value="waived"\/>/);
    expect(junit).toMatch(/name="unused waiver BALANCE-200-SHAPE"/);
    expect(junit).toMatch(/name="waivers" value="waivers applied from waivers\.json/);

    // Vendor acceptance: --strict ignores every waiver and says so everywhere.
    const strict = await occ(['run', ...only, '--waivers', 'waivers.json', '--strict'], faulty, dir);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/waivers: strict: every waiver ignored \(3 in waivers\.json\)/);
    expect((JSON.parse(read(dir, 'report.json')) as Report).waivers.mode).toBe('strict');
    expect(read(dir, 'report.md')).toMatch(/Waivers: strict: every waiver ignored/);
    expect(read(dir, 'report.html')).toMatch(/Waivers: strict: every waiver ignored/);
    expect(read(dir, 'junit.xml')).toMatch(/value="strict: every waiver ignored/);

    // An expired waiver covers nothing and fails the run, naming it.
    written.waivers[1]!.expires = '2020-01-31';
    writeFileSync(join(dir, 'waivers.json'), JSON.stringify(written));
    const expired = await occ(['run', ...only, '--waivers', 'waivers.json'], faulty, dir);
    expect(expired.code).toBe(1);
    expect(expired.stdout).toMatch(/EXPIRED waiver .*ME-200-SHAPE .*expires 2020-01-31/);
    expect(read(dir, 'report.md')).toMatch(/\*\*expired, fails the run\*\*: ME-200-SHAPE/);
    expect(read(dir, 'report.html')).toMatch(/<li data-waiver="expired">ME-200-SHAPE/);
    expect(read(dir, 'junit.xml')).toMatch(
      new RegExp(
        /name="expired waiver ME-200-SHAPE"[^>]*>\s*<properties>\s*/.source +
          /<property name="status" value="expired"\/>\s*<\/properties>\s*<failure/.source,
      ),
    );
  });

  it("the README's example, copied as written, waives the check it names against a target that fails it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'occ-waivers-'));
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('## Known failures: waivers'));
    const example = /```json\n([\s\S]*?)```/.exec(section)![1]!;
    writeFileSync(join(dir, 'waivers.json'), example);
    const { requirement, check } = (JSON.parse(example) as { waivers: { requirement: string; check: string }[] })
      .waivers[0]!;
    // A window of 32 days accepted: the named check fails, and so do others of the requirement.
    const run = await occ(
      ['run', '--no-properties', '--only', requirement, '--waivers', 'waivers.json'],
      { OCC_REFERENCE_FAULTS: 'cdrs-window-32d-accepted' },
      dir,
    );
    expect(run.stdout).toMatch(/waivers applied from waivers\.json \(1 entry: 1 used, 0 unused, 0 expired\)/);
    const report = JSON.parse(read(dir, 'report.json')) as Report;
    expect(report.checks.find((c) => c.name === check)?.status).toBe('waived');
  });

  it('refuses a broken waiver file with one line and exit 2, before sending anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'occ-waivers-'));
    writeFileSync(
      join(dir, 'waivers.json'),
      JSON.stringify({ waivers: [{ requirement: 'ME-200-SHAPE', expires: '31/12/2026' }] }),
    );
    const bad = await occ(['run', ...only, '--waivers', 'waivers.json'], faulty, dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(
      'conformance: waivers.json: waivers[0].expires "31/12/2026" is not a date; ' +
        'write YYYY-MM-DD (the last day the waiver holds)',
    );
    const missing = await occ(['run', '--waivers', 'nope.json'], {}, dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('replay commands in the reports', { timeout: 300_000 }, () => {
  it('give each failing exchange a curl command, secrets as $TOKEN_ variables, that gets the same status', async () => {
    const target = await startReferenceServer({ rateLimit: false, faults: ['scope-unchecked-balance'] });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'occ-replay-'));
      const tokens: Record<string, string> = {};
      for (const name of tokenNames)
        tokens[tokenVariable(name)] = target.fixtures.tokens[name as keyof typeof target.fixtures.tokens];
      const run = await occ(
        ['run', '--no-properties', '--only', 'AUTH-SCOPE-BALANCE'],
        { API_BASE_URL: target.baseUrl, REQUESTS_PER_MINUTE: '6000', ...tokens },
        dir,
      );
      expect(run.code, run.stdout + run.stderr).toBe(1);
      const report = JSON.parse(read(dir, 'report.json')) as Report;
      const failed = report.checks.filter((c) => c.status === 'failed');
      expect(failed.length).toBeGreaterThan(0);
      for (const file of ['report.md', 'report.html', 'junit.xml', 'report.json']) {
        const text = read(dir, file);
        for (const value of Object.values(tokens)) expect(text, `${file} leaks a token`).not.toContain(value);
      }
      const exchanges = failed.flatMap((c) => c.exchanges);
      expect(exchanges.length).toBeGreaterThan(0);
      for (const e of exchanges) expect(e.curl).toMatch(/^curl -sS -i .*"\$TOKEN_[A-Z_]+"/);
      const md = read(dir, 'report.md');
      const html = read(dir, 'report.html');
      const junit = read(dir, 'junit.xml');
      for (const e of exchanges) {
        expect(md).toContain(e.curl!);
        expect(unescapeXml(junit)).toContain(e.curl!);
        expect(unescapeXml(html)).toContain(e.curl!);
      }

      // Replay the command as printed in report.md, in a shell holding the run's TOKEN_* variables.
      const seen = exchanges.at(-1)!;
      const command = md
        .split('\n')
        .map((line) => line.trim())
        .find((line) => line === seen.curl)!;
      // Asynchronous: spawnSync would starve the target, which lives in this process.
      const replay = await runProcess('bash', ['-c', command], tokens, { timeoutMs: 30_000 });
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.stdout.split('\r\n')[0]).toMatch(new RegExp(`^HTTP/1\\.1 ${seen.status} `));
    } finally {
      await target.close();
    }
  });
});
