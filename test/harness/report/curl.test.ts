/**
 * Replay commands: runnable in a POSIX shell as printed, never carrying a secret value.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { curlCommand, secretVariables } from '../../../harness/report/curl.ts';

const variables = secretVariables(
  { all: 'oc_live_SECRET1', 'read:balance': "it's$weird" },
  { clientSecret: 'cs_SECRET2' },
);

/** What the shell hands curl: each argument after word splitting and expansion. */
function argv(command: string, env: Record<string, string>): string[] {
  const out = spawnSync('bash', ['-c', `printf '%s\\n' ${command.replace(/^curl /, '')}`], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  return out.stdout.trimEnd().split('\n');
}

describe('curlCommand', () => {
  it('names each token by its variable, quotes everything else, and the shell rebuilds the request exactly', () => {
    const command = curlCommand(
      {
        method: 'POST',
        url: 'http://127.0.0.1:1/v1/calls?x=a b&y=1',
        requestHeaders: { authorization: 'Bearer oc_live_SECRET1', 'content-type': 'application/json' },
        requestBody: `{"toNumber":"+15005550006","note":"it's \\"quoted\\" $HOME \`id\`"}`,
      },
      variables,
    );
    expect(command).not.toContain('SECRET1');
    expect(command).toContain('"$TOKEN_ALL"');
    expect(argv(command, { TOKEN_ALL: 'oc_live_SECRET1' })).toEqual([
      '-sS',
      '-i',
      '-X',
      'POST',
      'http://127.0.0.1:1/v1/calls?x=a b&y=1',
      '-H',
      'authorization: Bearer oc_live_SECRET1',
      '-H',
      'content-type: application/json',
      '--data-binary',
      `{"toNumber":"+15005550006","note":"it's \\"quoted\\" $HOME \`id\`"}`,
    ]);
  });

  it('gives HTTP Basic credentials to -u with the client secret as OAUTH_CLIENT_SECRET', () => {
    const basic = Buffer.from('client-1:cs_SECRET2').toString('base64');
    const command = curlCommand(
      {
        method: 'POST',
        url: 'http://127.0.0.1:1/oauth/token',
        requestHeaders: { authorization: `Basic ${basic}` },
        requestBody: 'grant_type=client_credentials',
      },
      variables,
    );
    expect(command).not.toContain(basic);
    expect(argv(command, { OAUTH_CLIENT_SECRET: 'cs_SECRET2' })).toContain('client-1:cs_SECRET2');
  });

  it('redacts a secret it has no variable for', () => {
    const command = curlCommand(
      {
        method: 'GET',
        url: 'http://127.0.0.1:1/v1/me',
        requestHeaders: { authorization: 'Bearer minted_at_run_time' },
        requestBody: undefined,
      },
      variables,
      (t) => t.replaceAll('minted_at_run_time', '[redacted]'),
    );
    expect(command).toBe("curl -sS -i -X GET 'http://127.0.0.1:1/v1/me' -H 'authorization: Bearer [redacted]'");
  });
});
