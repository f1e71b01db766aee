/**
 * `occ`, the one command: every subcommand answers --help with exit 0, a bad command line with
 * one line on stderr and exit 2, through the same bin the npm package installs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync, zipSync, strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';

// Hang guards sized for a busy machine: npm test runs files side by side.
function occ(...args: string[]) {
  return spawnSync(process.execPath, ['bin/occ.js', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, CI: 'true' },
  });
}

describe('occ', { timeout: 300_000 }, () => {
  it('lists every subcommand in occ --help and exits 0', () => {
    const result = occ('--help');
    expect(result.status).toBe(0);
    for (const name of ['run', 'dry-run', 'load', 'receiver', 'reference', 'self-proof', 'control-check', 'verify'])
      expect(result.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
  });

  it('a reader that goes away (occ dry-run | head -1) leaves no stack trace; the command keeps its code', async () => {
    const child = spawn(process.execPath, ['bin/occ.js', 'dry-run'], { env: { ...process.env, CI: 'true' } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // As `head -1` does: read the first chunk, then close the pipe while the command still writes.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(code).toBe(0);
  });

  it('occ run --evidence writes evidence.zip that occ verify accepts; verify names a changed report, exit 1', () => {
    const reports = mkdtempSync(join(tmpdir(), 'occ-evidence-'));
    const run = occ('run', '--no-properties', '--only', 'ME-200-SHAPE', '--reports-dir', reports, '--evidence');
    expect(run.status, run.stderr).toBe(0);
    const zip = /evidence in (\S+evidence\.zip)/.exec(run.stdout)![1]!;
    const ok = occ('verify', zip);
    expect(ok.status, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/^ {2}✓ report\.html/m);
    expect(ok.stdout).toMatch(/at commit [0-9a-f]{40}/);
    const files = unzipSync(readFileSync(zip));
    files['report.md'] = strToU8('# conformance: PASSED\n');
    const tampered = join(reports, 'tampered.zip');
    writeFileSync(tampered, zipSync(files));
    const bad = occ('verify', tampered);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/^ {2}✗ report\.md/m);
    expect(bad.stdout).toMatch(/verify: DIFFERS: report\.md: SHA-256 [0-9a-f]{64} differs from the manifest's/);
    const unreadable = occ('verify', join(reports, 'nope.zip'));
    expect(unreadable.status).toBe(2);
    expect(unreadable.stderr.trim()).toMatch(/^verify: cannot read .*nope\.zip \(ENOENT\)$/);
  });

  it.each([['run'], ['dry-run'], ['load'], ['receiver'], ['reference'], ['self-proof'], ['control-check'], ['verify']])(
    'occ %s --help prints its usage and exits 0',
    (sub) => {
      const result = occ(sub, '--help');
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(/usage: occ /i);
      expect(result.stderr).toBe('');
    },
  );

  it.each([
    [['rnu'], /^occ: unknown command 'rnu'.*run occ --help$/],
    [['--bogus'], /^occ: unknown option '--bogus'/],
    [['run', '--bogus'], /^conformance: Unknown option '--bogus'; run occ run --help/],
    [['run', '--only', 'NOT-AN-ID'], /^conformance: --only: unknown requirement id NOT-AN-ID/],
    [['load', 'nope'], /^load: name one probe: rate-limit or webhook-retry/],
    [['receiver', 'extra'], /^receiver: unexpected argument "extra"/],
    [['reference', '--port', 'x'], /^reference: --port must be an integer/],
    [['self-proof', '--concurrency', '99'], /^self-proof: --concurrency must be a whole number from 1 to 8/],
  ])('occ %j is refused with one line and exit 2', (args, message) => {
    const result = occ(...args);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(message);
  });
});
