/**
 * `occ load k6-operator-manifest`: the TestRun it writes validates against the openAPIV3Schema of
 * the vendored k6-operator CRD (load/k6-operator/crd/, a pinned release), the ConfigMap carries the
 * probe and every module it imports byte for byte (laid back into their folders by the volume's
 * items), and no token is written into either: they come from a Secret. No cluster is needed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, resolve } from 'node:path';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { parseAllDocuments } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import {
  configMapKey,
  K6_OPERATOR_VERSION,
  manifestFiles,
  parseManifestArgs,
  scriptFiles,
  toYaml,
  type ManifestOptions,
} from '../../load/distributed/k6-operator.ts';

const root = resolve(import.meta.dirname, '../..');
const crdDir = join(root, 'load/k6-operator/crd');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The one document of a file the command wrote (a comment line, then `---`). */
// biome-ignore lint/suspicious/noExplicitAny: parsed documents, read by path in assertions
function documentOf(text: string): Record<string, any> {
  const docs = parseAllDocuments(text);
  expect(docs).toHaveLength(1);
  expect(docs[0]!.errors).toEqual([]);
  // biome-ignore lint/suspicious/noExplicitAny: as above
  return docs[0]!.toJS() as Record<string, any>;
}

function crdValidator() {
  const crd = documentOf(readFileSync(join(crdDir, 'k6.io_testruns.yaml'), 'utf8'));
  expect(crd.spec.names.kind).toBe('TestRun');
  const version = crd.spec.versions.find((v: { name: string }) => v.name === 'v1alpha1');
  // Kubernetes' structural schemas: OpenAPI 3.0 with x-kubernetes-* keywords and k8s formats.
  const ajv = new Ajv({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: its function is the default export's default under Node's ESM interop.
  ((formats as unknown as { default: (a: Ajv) => void }).default ?? (formats as unknown as (a: Ajv) => void))(ajv);
  for (const format of ['int32', 'int64'])
    ajv.addFormat(format, { type: 'number', validate: (n: number) => Number.isInteger(n) });
  return ajv.compile(version.schema.openAPIV3Schema);
}

const options: ManifestOptions = {
  name: 'occ-rate-limit',
  namespace: 'loadtest',
  parallelism: 3,
  baseUrl: 'https://staging.example.com/v1',
  limit: 100,
  windowMs: 60_000,
  image: 'grafana/k6:2.2.0',
  tokenSecret: 'occ-tokens',
  reportsClaim: 'occ-reports',
};

describe('the vendored CRD', () => {
  it(`is k6-operator ${K6_OPERATOR_VERSION}'s TestRun, and its README names version, source path and commit`, () => {
    const readme = readFileSync(join(crdDir, 'README.md'), 'utf8');
    expect(readme).toContain(`k6-operator ${K6_OPERATOR_VERSION}`);
    expect(readme).toContain('config/crd/bases/k6.io_testruns.yaml');
    expect(readme).toMatch(/\b[0-9a-f]{40}\b/);
  });
});

describe('occ load k6-operator-manifest', () => {
  const validate = crdValidator();
  const files = scriptFiles();
  const written = manifestFiles(options, files);
  const run = documentOf(written['testrun.yaml']);
  const map = documentOf(written['configmap.yaml']);

  it('writes a TestRun that the CRD schema accepts, with separate: true and the parallelism given', () => {
    expect(validate(run), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(run).toMatchObject({
      apiVersion: 'k6.io/v1alpha1',
      kind: 'TestRun',
      metadata: { name: 'occ-rate-limit', namespace: 'loadtest' },
    });
    expect(run.spec).toMatchObject({
      parallelism: 3,
      separate: true,
      script: { localFile: '/occ/load/rate-limit.ts' },
    });
    const env = Object.fromEntries(
      run.spec.runner.env.map((e: { name: string; value?: string; valueFrom?: unknown }) => [
        e.name,
        e.value ?? e.valueFrom,
      ]),
    );
    expect(env).toMatchObject({
      BASE_URL: 'https://staging.example.com/v1',
      RUNNERS: '3',
      LIMIT: '100',
      WINDOW_MS: '60000',
      REPORT_DIR: '/reports',
      TOKEN: { secretKeyRef: { name: 'occ-tokens', key: 'TOKEN_ALL' } },
      TOKEN_2: { secretKeyRef: { name: 'occ-tokens', key: 'TOKEN_NONE', optional: true } },
    });
  });

  it('the schema check is real: a broken TestRun is refused', () => {
    expect(validate({ ...run, spec: { ...run.spec, parallelism: '3' } })).toBe(false);
    const { script: _script, ...withoutScript } = run.spec;
    expect(validate({ ...run, spec: withoutScript })).toBe(false);
    expect(
      validate({ ...run, spec: { ...run.spec, runner: { ...run.spec.runner, env: [{ value: 'no name' }] } } }),
    ).toBe(false);
  });

  it('ships the probe and every module it imports in the ConfigMap, byte for byte, under their import paths', () => {
    expect(map).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'occ-rate-limit-scripts' } });
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'load/rate-limit.ts',
        'load/lib/summary.ts',
        'load/lib/runners.ts',
        'harness/http/redact.ts',
      ]),
    );
    for (const f of files) {
      expect(configMapKey(f.path)).toMatch(/^[-._a-zA-Z0-9]+$/);
      expect(map.data[configMapKey(f.path)], f.path).toBe(f.content);
    }
    // Every relative import resolves to a file the volume lays out.
    const volume = run.spec.runner.volumes.find((v: { name: string }) => v.name === 'occ-scripts');
    const laid = new Set(volume.configMap.items.map((i: { path: string }) => i.path));
    for (const f of files) {
      for (const m of f.content.matchAll(/from\s*['"](\.{1,2}\/[^'"]+)['"]/g))
        expect(laid.has(normalize(join(dirname(f.path), m[1]!))), `${f.path} imports ${m[1]}`).toBe(true);
    }
    expect(Buffer.byteLength(written['configmap.yaml'])).toBeLessThan(1024 * 1024);
  });

  it("writes the runners' summaries under a sub-path of the claim the collect pod mounts, for occ load merge", () => {
    expect(run.spec.runner.volumeMounts).toContainEqual({
      name: 'occ-reports',
      mountPath: '/reports',
      subPath: 'occ-rate-limit',
    });
    expect(run.spec.runner.volumes).toContainEqual({
      name: 'occ-reports',
      persistentVolumeClaim: { claimName: 'occ-reports' },
    });
    const pod = documentOf(written['collect-pod.yaml']);
    expect(pod.spec.volumes[0].persistentVolumeClaim.claimName).toBe('occ-reports');
  });

  it('YAML it writes reads back as the same data (literal blocks, quoted look-alikes)', () => {
    const value = {
      a: 'x\n  y\n',
      b: ['true', '3', 'null', 'plain/path', ' lead', 'k: v'],
      c: { d: [] as string[], e: {} },
      f: 'no newline\nat end',
      g: 'two\n\n',
    };
    expect(documentOf(`---\n${toYaml(value)}`)).toEqual(value);
  });

  it('CLI: writes the three files; refuses one runner, an http target, no --out: one line, exit 2', () => {
    const out = mkdtempSync(join(tmpdir(), 'occ-k6op-'));
    dirs.push(out);
    const env = { ...process.env, API_BASE_URL: '', AUTH_URL: '' };
    const node = process.execPath;
    const ok = spawnSync(
      node,
      [
        'commands/occ.ts',
        'load',
        'k6-operator-manifest',
        '--out',
        out,
        '--parallelism',
        '3',
        '--base-url',
        'https://api.example.com/v1',
      ],
      { cwd: root, env, encoding: 'utf8' },
    );
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/occ load merge \.\/occ-rate-limit-runners/);
    expect(validate(documentOf(readFileSync(join(out, 'testrun.yaml'), 'utf8')))).toBe(true);
    for (const args of [
      ['--out', out, '--parallelism', '1', '--base-url', 'https://api.example.com/v1'],
      ['--out', out, '--parallelism', '2', '--base-url', 'http://api.example.com/v1'],
      ['--parallelism', '2'],
    ]) {
      const bad = spawnSync(node, ['commands/occ.ts', 'load', 'k6-operator-manifest', ...args], {
        cwd: root,
        env,
        encoding: 'utf8',
      });
      expect(bad.status, bad.stderr).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(() =>
      parseManifestArgs(['--out', out, '--parallelism', '2', '--name', 'Bad_Name'], {
        baseUrl: 'https://x.example/v1',
      }),
    ).toThrow(/Kubernetes name/);
  });
});
