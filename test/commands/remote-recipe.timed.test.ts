/**
 * The README's remote webhook recipe, run as written: the block marked
 * `remote-webhook-recipe` is read from README.md and executed step by step. A second reference
 * process (started through npm, as a user would) stands in for staging, the configuration comes
 * from the JSON line it prints, and `npm run conformance` does a full run, properties included,
 * with the receiver on RECEIVER_PORT serving a certificate the stand-in trusts.
 *
 * Only what a shared machine forces is substituted: the PEM paths (files made here) and the
 * port 8443 (another run may hold it; a free port takes its place everywhere it appears). The full
 * run also proves redaction with every secret the recipe sets: its API_BASE_URL and AUTH_URL are
 * those of a recording proxy in front of the stand-in (./recording-proxy.ts), which forwards each
 * request and remembers every access token and hook secret the stand-in hands out, so none of
 * them, nor a configured secret, may appear in an output or a report.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { generateTlsMaterial } from '../../harness/webhooks/receiver.ts';
// The OS's own variables only, so the developer's .env or shell can't leak in.
import { cleanEnv } from './occ-process.ts';
import { freeLoopbackPort } from '../../cli/loopback-port.ts';
import { startRecordingProxy } from './recording-proxy.ts';

const MARKER = '<!-- remote-webhook-recipe';

/** The recipe's steps: the reference command, the variables, the conformance command. */
export function parseRecipe(readme: string): { reference: string[]; env: Array<[string, string]>; run: string[] } {
  const start = readme.indexOf(MARKER);
  if (start === -1) throw new Error('README.md has no remote-webhook-recipe block');
  const open = readme.indexOf('```sh\n', start);
  const block = readme.slice(open + '```sh\n'.length, readme.indexOf('\n```', open + 1));
  const lines = block
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const commands = lines.filter((line) => line.startsWith('npm '));
  const env = lines
    .filter((line) => !line.startsWith('npm '))
    .map((line): [string, string] => {
      const match = /^([A-Z][A-Z0-9_]*)=(\S*)$/.exec(line);
      if (match === null) throw new Error(`recipe line is neither a command nor NAME=value: ${line}`);
      return [match[1]!, match[2]!];
    });
  const [reference, run] = commands.map((command) => command.split(/\s+/));
  if (reference === undefined || run === undefined || commands.length !== 2)
    throw new Error('the recipe must have exactly two commands: the reference and the run');
  return { reference, env, run };
}

function fixtureValue(fixtures: Record<string, unknown>, path: string): string {
  // `tokens.read:balance`: the first dot separates the group, the rest is the key.
  const dot = path.indexOf('.');
  const value =
    dot === -1
      ? fixtures[path]
      : (fixtures[path.slice(0, dot)] as Record<string, unknown> | undefined)?.[path.slice(dot + 1)];
  // A list (`oauth.scopes`) is written as the variable takes it: space-separated.
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(' ');
  if (typeof value !== 'string') throw new Error(`the reference's JSON line has no ${path}`);
  return value;
}

const started: ChildProcess[] = [];
afterAll(() => {
  // npm runs node as a child: end the whole process group we started.
  for (const child of started)
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
});

interface RecipeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  reports: string;
  fixtures: Record<string, unknown>;
  /** The variables the run was given. */
  env: Record<string, string>;
  /** What the stand-in handed out through the recording proxy (empty without one). */
  handedOut: ReadonlySet<string>;
}

/**
 * Runs the README's recipe (the stand-in keeps running until afterAll, so its hooks can be inspected):
 * its reference command (plus `referenceExtra`), its variables, and its conformance command (plus
 * `runExtra` and a reports directory); `proxied`: the API and token endpoint through a recording proxy.
 */
async function runRecipe(referenceExtra: string[] = [], runExtra: string[] = [], proxied = false): Promise<RecipeRun> {
  const recipe = parseRecipe(readFileSync('README.md', 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'occ-recipe-'));
  const tls = await generateTlsMaterial();
  const files: Record<string, string> = {
    '/path/to/ca.pem': join(dir, 'ca.pem'),
    '/path/to/receiver-cert.pem': join(dir, 'cert.pem'),
    '/path/to/receiver-key.pem': join(dir, 'key.pem'),
  };
  writeFileSync(files['/path/to/ca.pem']!, tls.caCertPem);
  writeFileSync(files['/path/to/receiver-cert.pem']!, tls.cert);
  writeFileSync(files['/path/to/receiver-key.pem']!, tls.key);
  const port = String(await freeLoopbackPort());
  const substitute = (text: string): string => (files[text] ?? text).replace(/\b8443\b/g, port);

  // Step 1: the stand-in target, through npm as written.
  const [npm, ...referenceArgs] = recipe.reference.map(substitute);
  const reference = spawn(npm!, [...referenceArgs, ...referenceExtra], {
    env: cleanEnv({}),
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.push(reference);
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: reference.stdout! });
    lines.once('line', resolve);
    reference.once('exit', (code) => reject(new Error(`the reference exited ${code} before printing its fixtures`)));
  });
  reference.stdout!.resume();
  const fixtures = JSON.parse(firstLine) as Record<string, unknown>;

  // Step 2: the configuration, placeholders filled from the JSON line.
  const env: Record<string, string> = {};
  for (const [name, value] of recipe.env)
    env[name] = substitute(value).replace(/^<(.+)>$/, (_, path: string) => fixtureValue(fixtures, path));
  expect(env.RECEIVER_PORT).toBe(port);
  const reports = mkdtempSync(join(tmpdir(), 'occ-recipe-reports-'));
  const proxy = proxied ? await startRecordingProxy(new URL(env.API_BASE_URL!).origin) : undefined;
  if (proxy !== undefined) {
    expect(new URL(env.AUTH_URL!).origin).toBe(new URL(env.API_BASE_URL!).origin);
    env.API_BASE_URL = `${proxy.origin}${new URL(env.API_BASE_URL!).pathname}`;
    env.AUTH_URL = proxy.origin;
  }

  // Step 3: the run, as written, plus where its reports go.
  const [npmRun, ...runArgs] = recipe.run;
  expect(runArgs).toEqual(['run', 'conformance']);
  const run = spawn(npmRun!, [...runArgs, '--', '--reports-dir', reports, ...runExtra], {
    env: cleanEnv(env),
    detached: true,
  });
  started.push(run);
  let stdout = '';
  let stderr = '';
  run.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  run.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
  await proxy?.close();
  return { code, stdout, stderr, reports, fixtures, env, handedOut: proxy?.handedOut ?? new Set() };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("the README's remote webhook recipe", () => {
  it('runs to the end: a full run (properties included) against another reference process, exit 0, all hooks deleted', {
    timeout: 300_000,
  }, async () => {
    const { code, stdout, stderr, reports, fixtures, env, handedOut } = await runRecipe([], [], true);
    expect(stderr, stderr).not.toMatch(/EADDRINUSE|could not delete hook/);
    expect(
      code,
      `${stdout
        .split('\n')
        .filter((line) => /FAIL|failed|error/i.test(line))
        .join('\n')}\n${stderr}`,
    ).toBe(0);
    const report = JSON.parse(readFileSync(join(reports, 'latest', 'report.json'), 'utf8'));
    const checks = report.checks as Array<{ project: string; status: string }>;
    // Properties ran (no --no-properties), beside the conformance checks, from the one receiver.
    expect(checks.filter((c) => c.project === 'properties' && c.status === 'passed').length).toBeGreaterThan(0);
    const correlation = (report.requirements as Array<{ id: string; status: string }>).find(
      (r) => r.id === 'CALLS-CORRELATE-CALL-ENDED',
    );
    expect(correlation?.status).toBe('passed');

    // Every hook the run created was deleted on the target (the hook journal names them).
    const runDir = readdirSync(reports).find((name) => name !== 'latest')!;
    const created = readFileSync(join(reports, runDir, 'hooks.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"created"'))
      .map((line) => JSON.parse(line).hookId as string);
    expect(created.length).toBeGreaterThan(0);
    for (const id of created) {
      const view = (await (await fetch(`${fixtureValue(fixtures, 'referenceUrl')}/hooks/${id}`)).json()) as {
        status: string;
      };
      expect(view.status, `hook ${id} left active`).toBe('disabled');
    }

    // No secret the recipe sets, nor an access token or hook secret the stand-in gave, in the
    // output or any report (redaction happens before anything is written).
    const given = [...handedOut];
    expect(
      given.some((value) => value.startsWith('whsec_')),
      'the run created hooks',
    ).toBe(true);
    expect(
      given.some((value) => !value.startsWith('whsec_')),
      'the run obtained OAuth access tokens',
    ).toBe(true);
    const configured = Object.entries(env)
      .filter(([name]) => /^TOKEN_|_SECRET$/.test(name))
      .map(([, value]) => value);
    expect(configured.length).toBeGreaterThan(10);
    const secrets = [...configured, ...given];
    for (const secret of secrets)
      expect(`${stdout}\n${stderr}`.includes(secret), `${secret.slice(0, 6)}… in the output`).toBe(false);
    const files = filesUnder(reports);
    expect(files.some((f) => f.endsWith('report.html'))).toBe(true);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const secret of secrets)
        expect(text.includes(secret), `${secret.slice(0, 6)}… found in ${file}`).toBe(false);
      expect(text, `a whsec_ secret in ${file}`).not.toMatch(/whsec_(?!\[REDACTED\])[A-Za-z0-9]/);
    }
  });

  it('with a target that signs wrongly, the correlation check fails at once, naming the wrong part of the signature', {
    timeout: 300_000,
  }, async () => {
    const { code, stdout, stderr, reports } = await runRecipe(
      ['--faults', 'signature-without-timestamp'],
      ['--no-properties', '--only', 'CALLS-CORRELATE-CALL-ENDED'],
    );
    expect(code, `${stdout}\n${stderr}`).toBe(1);
    const report = JSON.parse(readFileSync(join(reports, 'latest', 'report.json'), 'utf8'));
    const check = (report.checks as Array<{ name: string; status: string; failure?: string; durationMs: number }>).find(
      (c) => c.name.includes('call.ended delivery'),
    )!;
    expect(check.status).toBe('failed');
    expect(check.failure).toMatch(
      new RegExp(
        /refused by the receiver with 401: signature_mismatch: .*/.source +
          /the signed input is the raw body alone, without the `t\.` prefix/.source,
      ),
    );
    expect(check.failure).not.toMatch(/undefined/);
    // The refusal ended the wait, not the budget a remote call.ended may take.
    expect(check.failure).not.toMatch(/within \d+ s/);
  });
});
