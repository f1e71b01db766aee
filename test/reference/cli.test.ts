/**
 * `npm run reference`: the --json fixtures line, the human summary, bad flags, clean SIGTERM.
 * The timeouts are hang guards sized for a busy machine (npm test runs files side by side).
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { http } from './helpers.ts';

const cli = fileURLToPath(new URL('../../reference/cli.ts', import.meta.url));

describe('reference CLI', () => {
  it('--json prints the fixtures first, serves, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [cli, '--json', '--rate-limit', '0', '--seed', '3'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const first = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no fixtures line within 60 s')), 60_000);
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('Ctrl-C')) {
          clearTimeout(timer);
          resolve(out.split('\n', 1)[0]!);
        }
      });
    });
    const fixtures = JSON.parse(first) as {
      baseUrl: string;
      authUrl: string;
      controlUrl: string;
      tokens: Record<string, string>;
      oauth: object;
      agents: object;
    };
    expect(Object.keys(fixtures).sort()).toEqual([
      'agents',
      'authUrl',
      'baseUrl',
      'controlToken',
      'controlUrl',
      'oauth',
      'referenceUrl',
      'tokens',
    ]);
    expect(Object.keys(fixtures.tokens).sort()).toEqual(
      [
        'all',
        'expired',
        'noDialer',
        'noTrunk',
        'none',
        'read:agents',
        'read:balance',
        'read:cdrs',
        'read:invoices',
        'read:numbers',
        'revoked',
        'suspended',
        'write:calls',
        'write:hooks',
      ].sort(),
    );
    expect(out).toContain(fixtures.tokens.all!);
    expect((await http('GET', `${fixtures.baseUrl}/me`, { token: fixtures.tokens.all })).status).toBe(200);
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
  }, 90_000);

  it('a bad flag is one line on stderr and exit 2', () => {
    for (const args of [
      ['--nope'],
      ['--faults', 'me-wrong-status,bogus'],
      ['--port', 'x'],
      ['--rate-limit', '-1'],
      ['--clock-scale', 'fast'],
      ['--trust-ca', '/nonexistent.pem'],
    ]) {
      const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60_000 });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  }, 180_000);
});
