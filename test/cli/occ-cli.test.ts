/**
 * `occ`, the one command: every subcommand answers --help with exit 0, a bad command line with
 * one line on stderr and exit 2, through the same bin the npm package installs.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function occ(...args: string[]) {
  return spawnSync(process.execPath, ['bin/occ.js', ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, CI: 'true' } });
}

describe('occ', { timeout: 60_000 }, () => {
  it('lists every subcommand in occ --help and exits 0', () => {
    const result = occ('--help');
    expect(result.status).toBe(0);
    for (const name of ['run', 'dry-run', 'load', 'receiver', 'reference', 'self-proof']) expect(result.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
  });

  it.each([['run'], ['dry-run'], ['load'], ['receiver'], ['reference'], ['self-proof']])('occ %s --help prints its usage and exits 0', (sub) => {
    const result = occ(sub, '--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/usage: occ /i);
    expect(result.stderr).toBe('');
  });

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
