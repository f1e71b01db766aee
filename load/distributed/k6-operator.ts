/**
 * `occ load k6-operator-manifest --out <dir> --parallelism N [options]`: the rate-limit probe as a
 * k6-operator `TestRun` (k6.io/v1alpha1; the CRD of the pinned release is vendored in
 * load/k6-operator/crd/ and the test validates against it), for a target a single machine cannot
 * judge per IP: N runner pods, each with the execution segment k6-operator gives it, on separate
 * nodes (`separate: true`: one source address each, when the nodes egress with their own).
 *
 * Written to <dir>:
 *   configmap.yaml    the probe and every module it imports (k6 runs TypeScript itself), one key each,
 *                     laid back into their folders by the volume's `items`
 *   testrun.yaml      the TestRun: RUNNERS=N, the target's limit and window, TOKEN/TOKEN_2 from a
 *                     Secret (never in the manifest), REPORT_DIR on a ReadWriteMany claim, under a
 *                     sub-path named after the run, where each runner writes
 *                     k6-rate-limit.runner-<i>-of-<N>.json
 *   collect-pod.yaml  a pod that mounts that claim, to copy the summaries out for `occ load merge`
 *
 * Each runner judges its own thresholds alone under k6-operator (grafana/k6-operator#812): the
 * verdict is the merge's, never a runner's exit code.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../harness/config/config.ts';
import { loadConfigFromEnvironment } from '../../harness/config/environment.ts';
import { limits } from '../../contract/openapi.ts';

/** The suite's root (a clone, or dist/ in the installed package, which mirrors its layout). */
const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The k6-operator release whose TestRun CRD the manifest is written for (load/k6-operator/crd/README.md). */
export const K6_OPERATOR_VERSION = 'v1.6.0';
/** k6 v2 runs the probes' TypeScript as it is; the same major as load/install-k6.sh pins. */
export const DEFAULT_IMAGE = 'grafana/k6:2.2.0';
const SCRIPT_ROOT = '/occ';
const REPORTS_MOUNT = '/reports';

export interface ManifestOptions {
  readonly name: string;
  readonly namespace?: string;
  readonly parallelism: number;
  readonly baseUrl: string;
  readonly limit: number;
  readonly windowMs: number;
  readonly image: string;
  /** Secret holding TOKEN_ALL and (optional) TOKEN_NONE: the tokens never appear in the manifest. */
  readonly tokenSecret: string;
  /** A ReadWriteMany PersistentVolumeClaim the runners write their summaries to. */
  readonly reportsClaim: string;
}

export interface ScriptFile {
  /** Path under the package root, e.g. load/lib/env.ts. */
  readonly path: string;
  readonly content: string;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/**
 * The probe and every module it imports, relatively, to the end. In the installed package the
 * suite's own modules are emitted JavaScript: their .js is valid TypeScript, laid under the .ts
 * name the probe imports.
 */
export function scriptFiles(root: string = packageRoot, entry = 'load/rate-limit.ts'): ScriptFile[] {
  const files = new Map<string, string>();
  const visit = (path: string): void => {
    if (files.has(path)) return;
    const ts = join(root, path);
    const js = ts.replace(/\.ts$/, '.js');
    const source = existsSync(ts) ? ts : existsSync(js) ? js : undefined;
    if (source === undefined) throw new Error(`the probe imports ${path}, which is missing from ${root}`);
    const content = readFileSync(source, 'utf8');
    files.set(path, content);
    for (const match of content.matchAll(IMPORT)) visit(normalize(join(dirname(path), match[1]!)).replace(/\\/g, '/'));
  };
  visit(entry);
  return [...files].map(([path, content]) => ({ path, content })).sort((a, b) => a.path.localeCompare(b.path));
}

/** A ConfigMap key for a path (keys may not hold "/"). */
export function configMapKey(path: string): string {
  return path.replace(/\//g, '__');
}

export function configMap(options: ManifestOptions, files: readonly ScriptFile[]): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `${options.name}-scripts`,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    },
    data: Object.fromEntries(files.map((f) => [configMapKey(f.path), f.content])),
  };
}

export function testRun(options: ManifestOptions, files: readonly ScriptFile[]): Record<string, unknown> {
  const env = (name: string, value: string) => ({ name, value });
  const secret = (name: string, key: string, optional: boolean) => ({
    name,
    valueFrom: { secretKeyRef: { name: options.tokenSecret, key, ...(optional ? { optional } : {}) } },
  });
  return {
    apiVersion: 'k6.io/v1alpha1',
    kind: 'TestRun',
    metadata: {
      name: options.name,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      labels: { 'app.kubernetes.io/part-of': 'outbound-calling-conformance', 'occ/probe': 'rate-limit' },
    },
    spec: {
      parallelism: options.parallelism,
      // One runner per node: per IP is measured only if each runner has an address of its own.
      separate: true,
      script: { localFile: `${SCRIPT_ROOT}/load/rate-limit.ts` },
      runner: {
        image: options.image,
        env: [
          env('BASE_URL', options.baseUrl),
          secret('TOKEN', 'TOKEN_ALL', false),
          secret('TOKEN_2', 'TOKEN_NONE', true),
          env('LIMIT', String(options.limit)),
          env('WINDOW_MS', String(options.windowMs)),
          env('RUNNERS', String(options.parallelism)),
          // The node's address: the one the target sees when the node egresses without a shared NAT.
          { name: 'SOURCE_ADDRESS', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
          env('REPORT_DIR', REPORTS_MOUNT),
          env('K6_NO_USAGE_REPORT', 'true'),
        ],
        volumes: [
          {
            name: 'occ-scripts',
            configMap: {
              name: `${options.name}-scripts`,
              items: files.map((f) => ({ key: configMapKey(f.path), path: f.path })),
            },
          },
          { name: 'occ-reports', persistentVolumeClaim: { claimName: options.reportsClaim } },
        ],
        volumeMounts: [
          { name: 'occ-scripts', mountPath: SCRIPT_ROOT, readOnly: true },
          // A sub-path per run: the kubelet creates it (k6 writes files, not folders).
          { name: 'occ-reports', mountPath: REPORTS_MOUNT, subPath: options.name },
        ],
      },
    },
  };
}

/** A pod that mounts the reports claim read-only, for `kubectl cp` of the runners' summaries. */
export function collectPod(options: ManifestOptions): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${options.name}-collect`,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    },
    spec: {
      restartPolicy: 'Never',
      containers: [
        {
          name: 'collect',
          image: 'busybox:1.37',
          command: ['sleep', '3600'],
          volumeMounts: [{ name: 'occ-reports', mountPath: REPORTS_MOUNT, readOnly: true }],
        },
      ],
      volumes: [{ name: 'occ-reports', persistentVolumeClaim: { claimName: options.reportsClaim, readOnly: true } }],
    },
  };
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
/** Strings YAML reads back as the same string unquoted; numbers, booleans and nulls in disguise stay quoted. */
const PLAIN_VALUE = /^[A-Za-z_/][A-Za-z0-9_./-]*$/;
const RESERVED = /^(y|n|yes|no|on|off|true|false|null)$/i;

/** YAML for plain data: multi-line strings as literal blocks, every other string JSON-quoted (valid YAML). Pure. */
export function toYaml(value: unknown, indent = 0): string {
  const pad = ' '.repeat(indent);
  const key = (k: string) => (PLAIN_KEY.test(k) ? k : JSON.stringify(k));
  const scalar = (v: unknown, at: number): string | undefined => {
    if (v === null) return 'null';
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (typeof v !== 'string') return undefined;
    // A literal block keeps a file readable; it needs a first line that does not start with a space.
    if (v.includes('\n') && !/^[ \t]/.test(v) && !/[^\S\n]\n/.test(v) && !v.includes('\r')) {
      const chomp = v.endsWith('\n') ? (v.endsWith('\n\n') ? '+' : '') : '-';
      const body = (v.endsWith('\n') ? v.slice(0, -1) : v)
        .split('\n')
        .map((line) => (line === '' ? '' : `${' '.repeat(at)}${line}`))
        .join('\n');
      return `|${chomp}\n${body}`;
    }
    return PLAIN_VALUE.test(v) && !RESERVED.test(v) ? v : JSON.stringify(v);
  };
  if (Array.isArray(value)) {
    if (value.length === 0) return `${pad}[]\n`;
    return value
      .map((item) => {
        const s = scalar(item, indent + 2);
        if (s !== undefined) return `${pad}- ${s}\n`;
        const inner = toYaml(item, indent + 2);
        return `${pad}- ${inner.slice(indent + 2)}`;
      })
      .join('');
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return `${pad}{}\n`;
    return entries
      .map(([k, v]) => {
        const s = scalar(v, indent + 2);
        if (s !== undefined) return `${pad}${key(k)}: ${s}\n`;
        if (Array.isArray(v) && v.length > 0) return `${pad}${key(k)}:\n${toYaml(v, indent)}`;
        if (Array.isArray(v) || Object.keys(v as object).length === 0)
          return `${pad}${key(k)}: ${Array.isArray(v) ? '[]' : '{}'}\n`;
        return `${pad}${key(k)}:\n${toYaml(v, indent + 2)}`;
      })
      .join('');
  }
  return `${pad}${scalar(value, indent) ?? JSON.stringify(value)}\n`;
}

export function manifestFiles(
  options: ManifestOptions,
  files: readonly ScriptFile[] = scriptFiles(),
): Record<'configmap.yaml' | 'testrun.yaml' | 'collect-pod.yaml', string> {
  const head =
    `# Written by occ load k6-operator-manifest for k6-operator ${K6_OPERATOR_VERSION} ` +
    '(docs/load-distributed.md)\n---\n';
  return {
    'configmap.yaml': `${head}${toYaml(configMap(options, files))}`,
    'testrun.yaml': `${head}${toYaml(testRun(options, files))}`,
    'collect-pod.yaml': `${head}${toYaml(collectPod(options))}`,
  };
}

const USAGE =
  'usage: occ load k6-operator-manifest --out <dir> --parallelism N [--name occ-rate-limit] [--namespace ns] ' +
  '[--base-url url] [--limit n] [--window-ms ms] [--image grafana/k6:2.2.0] [--token-secret occ-tokens] ' +
  '[--reports-claim occ-reports]';

const NAME = /^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$/;

/** Options from the command line, the target's configuration filling what is not given. */
export function parseManifestArgs(
  argv: readonly string[],
  configured: { baseUrl?: string; limit?: number; windowMs?: number },
): ManifestOptions & { out: string } {
  const { values, positionals } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      parallelism: { type: 'string' },
      name: { type: 'string' },
      namespace: { type: 'string' },
      'base-url': { type: 'string' },
      limit: { type: 'string' },
      'window-ms': { type: 'string' },
      image: { type: 'string' },
      'token-secret': { type: 'string' },
      'reports-claim': { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new RangeError(`unexpected ${positionals.join(' ')}; ${USAGE}`);
  const whole = (flag: string, raw: string | undefined, fallback: number | undefined, min: number): number => {
    if (raw === undefined && fallback !== undefined) return fallback;
    if (raw === undefined || !/^[0-9]+$/.test(raw) || Number(raw) < min)
      throw new RangeError(
        `--${flag} must be a whole number >= ${min}${raw === undefined ? ' (required)' : `, got "${raw}"`}`,
      );
    return Number(raw);
  };
  if (values.out === undefined || values.out.trim() === '') throw new RangeError(`--out <dir> is required; ${USAGE}`);
  const parallelism = whole('parallelism', values.parallelism, undefined, 2);
  const baseUrl = values['base-url'] ?? configured.baseUrl;
  if (baseUrl === undefined)
    throw new RangeError('--base-url (or API_BASE_URL) is required: the target the runners load');
  if (!/^https:\/\/[^/]+/.test(baseUrl))
    throw new RangeError(`--base-url must be an https URL reachable from the cluster, got "${baseUrl}"`);
  const name = values.name ?? 'occ-rate-limit';
  for (const [flag, v] of [
    ['name', name],
    ['token-secret', values['token-secret']],
    ['reports-claim', values['reports-claim']],
    ['namespace', values.namespace],
  ] as const) {
    if (v !== undefined && !NAME.test(v))
      throw new RangeError(`--${flag} must be a Kubernetes name (lower-case letters, digits, "-"), got "${v}"`);
  }
  return {
    out: resolve(values.out),
    name,
    ...(values.namespace === undefined ? {} : { namespace: values.namespace }),
    parallelism,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    limit: whole('limit', values.limit, configured.limit ?? limits.requestsPerMinute, 1),
    windowMs: whole('window-ms', values['window-ms'], configured.windowMs ?? 60_000, 1_000),
    image: values.image ?? DEFAULT_IMAGE,
    tokenSecret: values['token-secret'] ?? 'occ-tokens',
    reportsClaim: values['reports-claim'] ?? 'occ-reports',
  };
}

export async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let options: ManifestOptions & { out: string };
  try {
    const config = loadConfigFromEnvironment('.env');
    const remote = config.target.kind === 'remote' ? (config.target as { baseUrl: string }).baseUrl : undefined;
    options = parseManifestArgs(argv, {
      ...(remote === undefined ? {} : { baseUrl: remote }),
      limit: config.rateLimitPerWindow,
      windowMs: config.rateWindowMs,
    });
  } catch (e) {
    if (
      e instanceof ConfigError ||
      e instanceof RangeError ||
      (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      process.stderr.write(`load k6-operator-manifest: ${(e as Error).message.split('\n')[0]}\n`);
      return 2;
    }
    throw e;
  }
  mkdirSync(options.out, { recursive: true });
  const written = manifestFiles(options);
  for (const [file, text] of Object.entries(written)) writeFileSync(join(options.out, file), text);
  const ns = options.namespace === undefined ? '' : ` -n ${options.namespace}`;
  const out = (file: string) => join(options.out, file);
  const collect = `${options.name}-collect`;
  const runners = `./${options.name}-runners`;
  process.stdout.write(
    [
      `k6-operator ${K6_OPERATOR_VERSION} TestRun ${options.name}: ${options.parallelism} runners, ` +
        `${options.limit} per ${options.windowMs / 1000} s against ${options.baseUrl}`,
      `written: ${Object.keys(written).map(out).join(', ')}`,
      'needs: a Secret with the tokens, a ReadWriteMany claim for the summaries, ' +
        'nodes that egress with addresses of their own:',
      `  kubectl${ns} create secret generic ${options.tokenSecret} ` +
        '--from-literal=TOKEN_ALL=… --from-literal=TOKEN_NONE=…',
      `  kubectl${ns} apply -f ${out('configmap.yaml')} -f ${out('testrun.yaml')}`,
      `then, once "kubectl${ns} get testrun ${options.name}" says finished:`,
      `  kubectl${ns} apply -f ${out('collect-pod.yaml')} && kubectl${ns} wait --for=condition=Ready pod/${collect}`,
      `  kubectl${ns} cp ${options.namespace ?? 'default'}/${collect}:${REPORTS_MOUNT}/${options.name} ${runners}`,
      `  occ load merge ${runners}`,
      '',
    ].join('\n'),
  );
  return 0;
}
