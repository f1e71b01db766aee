/**
 * The npm package as a user gets it: `npm pack` (whose prepack emits dist/), installed into an
 * empty folder from the tarball, run there with nothing configured. Nothing outside the tarball may
 * be needed: the folder is outside the repository and the run's working directory is that folder.
 *
 * The folder is a user project with a lockfile: the tarball, and of its dependencies the versions
 * this repository's lock pins (its production entries, as `npm ci` installed them). `npm ci
 * --offline` then installs from the npm cache that the repository's own `npm ci` filled, so the
 * test needs no network and fails at once, naming the package, where the cache lacks one.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv } from '../commands/occ-process.ts';

const repo = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'occ-package-'));
const project = join(work, 'project');

/** The machine's environment (trust store, proxy, npm cache), Node 24 first on PATH as `engines` asks. */
const env = cleanEnv({ PATH: [join(repo, 'node_modules/.bin'), process.env.PATH].join(delimiter) });

function sh(command: string, args: string[], cwd: string, timeout = 120_000) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout });
  return { code: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

interface LockEntry {
  readonly dev?: boolean;
  readonly [field: string]: unknown;
}
interface Manifest {
  name: string;
  version: string;
  license: string;
  dependencies: Record<string, string>;
  bin: unknown;
  engines: unknown;
}

/** A user project's package.json and lockfile: the tarball, and the repository's pinned production tree. */
function userProject(tarball: string): { manifest: object; lock: object } {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as Manifest;
  const repoLock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const spec = `file:${tarball}`;
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const { name, version, license, dependencies, bin, engines } = pkg;
  const packages: Record<string, unknown> = {
    '': { name: 'uses-occ', dependencies: { [name]: spec } },
    [`node_modules/${name}`]: { version, resolved: spec, integrity, license, dependencies, bin, engines },
  };
  for (const [path, entry] of Object.entries(repoLock.packages))
    if (path !== '' && entry.dev !== true) packages[path] = entry;
  return {
    manifest: { name: 'uses-occ', private: true, dependencies: { [name]: spec } },
    lock: { name: 'uses-occ', lockfileVersion: 3, requires: true, packages },
  };
}

let tarball = '';

beforeAll(() => {
  const packed = sh('npm', ['pack', '--pack-destination', work, '--silent'], repo);
  expect(packed.code, packed.stderr).toBe(0);
  tarball = join(work, packed.stdout.trim().split('\n').at(-1)!);
  mkdirSync(project);
  const { manifest, lock } = userProject(tarball);
  writeFileSync(join(project, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lock, null, 2));
  const installed = sh('npm', ['ci', '--offline', '--no-audit', '--no-fund'], project);
  expect(
    installed.code,
    `${installed.stderr}\n(npm ci --offline installs from the cache the repository's npm ci filled: ` +
      'run npm ci in the clone first)',
  ).toBe(0);
}, 240_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed npm package', () => {
  it('ships JavaScript, the contract documents and the k6 probes, and no TypeScript for Node to strip', () => {
    const listing = sh('tar', ['tzf', tarball], work).stdout.split('\n');
    expect(listing).toContain('package/dist/openapi.json');
    expect(listing).toContain('package/dist/requirements/catalogue.js');
    expect(listing).toContain('package/dist/load/rate-limit.ts');
    expect(listing).toContain('package/dist/load/install-k6.sh');
    expect(listing).toContain('package/bin/occ.js');
    if (existsSync(join(repo, 'control-openapi.json'))) expect(listing).toContain('package/dist/control-openapi.json');
    // k6 runs the load/*.ts probes itself; Node never loads a .ts file from the package.
    expect(listing.filter((f) => f.endsWith('.ts') && !f.startsWith('package/dist/load/'))).toEqual([]);
  });

  it('k6 loads both installed probes: every module they import ships in the package', () => {
    const k6 = sh('bash', [join(repo, 'load/install-k6.sh')], repo, 600_000);
    expect(k6.code, k6.stderr).toBe(0);
    const installed = join(project, 'node_modules', 'outbound-calling-conformance', 'dist', 'load');
    const variables = ['BASE_URL=http://127.0.0.1:9/v1', 'TOKEN=t', 'RECEIVER_URL=http://127.0.0.1:9'];
    for (const probe of ['rate-limit', 'webhook-retry']) {
      const args = ['inspect', ...variables.flatMap((v) => ['-e', v]), join(installed, `${probe}.ts`)];
      const inspected = sh(k6.stdout.trim().split('\n').at(-1)!, args, project);
      expect(inspected.code, `${probe}: ${inspected.stderr}`).toBe(0);
    }
  });

  it('npx occ --help exits 0 in the folder it was installed into', () => {
    const help = sh('npx', ['--no-install', 'occ', '--help'], project, 60_000);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^ {2}run /m);
  }, 60_000);

  it('npx occ run passes on the embedded reference with nothing set, reports and evidence in the working dir', () => {
    const run = sh('npx', ['--no-install', 'occ', 'run', '--evidence'], project, 240_000);
    expect(run.code, `${run.stdout.slice(-2000)}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/conformance: \d+ MUST passed, 0 failed/);
    const report = JSON.parse(readFileSync(join(project, 'reports/latest/report.json'), 'utf8')) as {
      checks: { status: string }[];
    };
    expect(report.checks.length).toBeGreaterThan(100);
    expect(report.checks.every((c) => c.status === 'passed')).toBe(true);
    expect(readdirSync(join(project, 'reports/latest'))).toEqual(
      expect.arrayContaining(['report.html', 'report.md', 'junit.xml']),
    );
    // The evidence names the package's own openapi.json, byte for byte the repository's.
    const zip = /evidence in (\S+evidence\.zip)/.exec(run.stdout)![1]!;
    const verified = sh('npx', ['--no-install', 'occ', 'verify', zip], project, 60_000);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/contract {4}openapi\.json is this suite's; requirement catalogue is this suite's/);
    expect(verified.stdout).toMatch(/no git commit: an installed package/);
  }, 300_000);
});
