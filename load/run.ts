/**
 * Runs one k6 probe: `occ load <rate-limit|webhook-retry> [--faults id,id] [--report-dir dir]`
 * (`npm run load:rate-limit`, `npm run load:webhook-retry`; commands/load.ts composes it).
 * rate-limit `--runners N` (or LOAD_RUNNERS) runs N cooperating k6 processes on N source addresses
 * and merges them into one verdict
 * (./distributed/local.ts); `occ load merge <dir>` and `occ load k6-operator-manifest` are
 * ./distributed/cli.ts (docs/load-distributed.md).
 *
 * With no API_BASE_URL it starts what the probe needs in-process and stops it afterwards (the
 * reference server by the starter commands/load.ts injects, so load/ never imports reference/):
 *   rate-limit     the reference server with a rate limit of LIMIT (100) per a scaled window of
 *                  2500 ms (REFERENCE_WINDOW_MS) instead of 60 s, so the probe takes seconds, not minutes;
 *   webhook-retry  the webhook receiver (its generated CA trusted by the dispatcher) and the
 *                  reference server with the rate limit off, the virtual clock frozen (scale 0:
 *                  the probe jumps it to each scheduled retry) and a 1 s delivery timeout;
 * faults from --faults or OCC_REFERENCE_FAULTS are switched on at start.
 * With API_BASE_URL (harness/config/config.ts reads it and .env) the same scripts run against
 * that target with TOKEN_ALL: RATE_LIMIT_PER_MINUTE (default 100) per RATE_LIMIT_WINDOW_MS
 * (default 60 000, the spec's minute; only a stand-in documenting a shorter window sets it) for
 * rate-limit; webhook-retry also needs WEBHOOK_PUBLIC_URL, and drives the deliveries in the target's
 * virtual time through CONTROL_URL where it offers the five capabilities for it (VIRTUAL_TIME_DELIVERIES:
 * seconds instead of a watch), else it needs ALLOW_ORIGINATE=true, TEST_DESTINATION_NUMBER and
 * TEST_AGENT_ID (a real call makes the event happen) and watches for TIME_BUDGET_S (default 600).
 *
 * k6 comes from `bash load/install-k6.sh` (PATH, cache, or a build with Go) and runs offline
 * (no usage report, no automatic extension resolution). Its exit code is the verdict: 0 pass,
 * 99 thresholds crossed (one line names them), anything else an error. Bad arguments or
 * configuration: one line, exit 2. k6 missing and not buildable: one line, exit 3. Tokens are
 * never printed (k6's own log lines are redacted before they are passed on).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isIP } from 'node:net';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { limits } from '../contract/openapi.ts';
import { createRedactor } from '../harness/http/redact.ts';
import { ConfigError } from '../harness/config/config.ts';
import { loadFromEnvironment } from '../harness/config/environment.ts';
import { machineVariables } from '../harness/config/machine.ts';
import { idList } from '../harness/config/rules.ts';
import type { RunSettings } from '../harness/config/settings.ts';
import { ControlError, createControlTransport } from '../harness/seams/control-client.ts';
import { VIRTUAL_TIME_DELIVERIES } from '../contract/control.ts';
import type { SuiteConfig } from '../harness/config/config.ts';
import { startReceiver } from '../harness/webhooks/receiver.ts';
import type { Receiver } from '../harness/webhooks/receiver.ts';
import {
  CONTROL_DRIVE_BUDGET_MS,
  parsePriorRequests,
  type PriorRequests,
  REFERENCE_WINDOW_MS,
  underStartMs,
} from './lib/probe-shape.ts';
import { secondAddressUnreachable } from '../harness/http/source-address.ts';
import { runLocalRunners, runnerAddresses } from './distributed/local.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const PROBES = ['rate-limit', 'webhook-retry'] as const;
type Probe = (typeof PROBES)[number];

/** Real ms a delivery attempt may take on the reference before it counts as a timeout. */
export const REFERENCE_DELIVERY_TIMEOUT_MS = 1_000;
export const THRESHOLDS_CROSSED = 99;
/** The rate-limit probe's tolerance on the limit (load/rate-limit.ts TOLERANCE). */
const RATE_TOLERANCE = 0.05;

class UsageError extends Error {}

/** What a probe asks of the reference server it starts (the embedded target: no API_BASE_URL). */
export interface LoadReferenceOptions {
  readonly faults: readonly string[];
  /** Conformant variants as OCC_REFERENCE_VARIANTS writes them (`all` included). */
  readonly variants: readonly string[];
  /** The spec's limit per a window, or none. */
  readonly rateLimit: { readonly perWindow: number; readonly windowMs: number } | false;
  /** 0: the virtual clock stands still (the probe jumps it). */
  readonly clockScale?: number;
  readonly deliveryTimeoutMs?: number;
  readonly trustedCaPem?: readonly string[];
}

/** A reference server a probe started: loopback, its API, its reference-only API and its tokens. */
export interface LoadReferenceServer {
  readonly baseUrl: string;
  /** The reference-only API (/_reference), not the test-control protocol. */
  readonly referenceUrl: string;
  readonly tokens: Readonly<Record<string, string>> & { readonly all: string; readonly none: string };
  close(): Promise<void>;
}

/** The reference as the composition root gives it (commands/load.ts): its catalogues' ids and its starter. */
export interface LoadReference {
  unknownFaultIds(ids: readonly string[]): string[];
  unknownVariantIds(ids: readonly string[]): string[];
  start(options: LoadReferenceOptions): Promise<LoadReferenceServer>;
}

interface Args {
  probe: Probe;
  faults: string[];
  reportDir: string;
  /** rate-limit: N cooperating runners (./distributed/local.ts), given only when more than one. */
  runners?: number;
  /** Their source addresses (default 127.0.0.2 … N+1 against a loopback target). */
  localIps?: string[];
  /**
   * rate-limit against a remote target: every request this machine sent it in the last window, by time
   * (occ run --with-load passes them), so "under" need not wait a whole window.
   */
  priorRequests?: PriorRequests[];
}

const USAGE =
  `usage: occ load <${PROBES.join('|')}> [--faults id,id] [--report-dir dir] ` +
  '[--runners N [--local-ips ip,ip]] [--prior-requests epoch-ms:count,…]' +
  ' | occ load merge <dir> | occ load k6-operator-manifest --out <dir> --parallelism N …';

/** `settings`: OCC_REFERENCE_FAULTS and LOAD_RUNNERS, as harness/config/settings.ts read them (the flags win). */
export function parseRunArgs(
  argv: readonly string[],
  settings: { readonly referenceFaults?: readonly string[]; readonly loadRunners?: number | undefined } = {},
): Args {
  const config = {
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: {
      faults: { type: 'string' },
      'report-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      runners: { type: 'string' },
      'local-ips': { type: 'string' },
      'prior-requests': { type: 'string' },
    },
  } satisfies ParseArgsConfig;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (e) {
    throw new UsageError(`${(e as Error).message.split('\n')[0]}; ${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) throw new UsageError(USAGE);
  if (positionals.length !== 1 || !PROBES.includes(positionals[0] as Probe)) {
    throw new UsageError(
      `name one probe: ${PROBES.join(' or ')}${positionals.length ? ` (got "${positionals.join(' ')}")` : ''}`,
    );
  }
  const faults = values.faults === undefined ? [...(settings.referenceFaults ?? [])] : idList(values.faults);
  if (values['report-dir'] !== undefined && values['report-dir'].trim() === '')
    throw new UsageError('--report-dir needs a directory');
  // LOAD_RUNNERS: the same for `occ run --with-load`, whose merged verdict then joins the run's report.
  const rawRunners = values.runners?.trim() ?? '';
  if (rawRunners !== '' && (!/^[0-9]+$/.test(rawRunners) || Number(rawRunners) < 1 || Number(rawRunners) > 64)) {
    throw new UsageError(`--runners (LOAD_RUNNERS) must be a whole number from 1 to 64, got "${rawRunners}"`);
  }
  const runners = rawRunners === '' ? (settings.loadRunners ?? 1) : Number(rawRunners);
  const localIps = (values['local-ips'] ?? '')
    .split(',')
    .map((ip) => ip.trim())
    .filter((ip) => ip !== '');
  if (localIps.some((ip) => isIP(ip) === 0)) {
    throw new UsageError(`--local-ips takes IP addresses, comma-separated (got "${values['local-ips']}")`);
  }
  if (runners > 1 && positionals[0] !== 'rate-limit' && values.runners !== undefined) {
    throw new UsageError('--runners is for rate-limit: the per-IP limit is what several addresses measure');
  }
  if (localIps.length > 0 && localIps.length !== runners) {
    throw new UsageError(`--local-ips names ${localIps.length} address(es) for ${runners} runner(s): one per runner`);
  }
  const priorText = values['prior-requests'];
  const priorRequests = priorText === undefined ? undefined : parsePriorRequests(priorText);
  if (priorRequests === undefined && priorText !== undefined)
    throw new UsageError(
      `--prior-requests takes epoch-ms:count pairs, comma-separated (got "${priorText.slice(0, 80)}")`,
    );
  return {
    probe: positionals[0] as Probe,
    faults,
    ...(priorRequests === undefined ? {} : { priorRequests }),
    reportDir: resolve(values['report-dir'] ?? join('reports', 'latest')),
    ...(runners > 1 && positionals[0] === 'rate-limit' ? { runners } : {}),
    ...(localIps.length > 0 ? { localIps } : {}),
  };
}

/** Finds or builds k6 through load/install-k6.sh; its one-line reason when it can't. */
function findK6(): Promise<{ ok: true; path: string } | { ok: false; message: string }> {
  return new Promise((done) => {
    const child = spawn('bash', [join(here, 'install-k6.sh')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (/building k6/.test(d.toString())) process.stderr.write(d); // a first build takes minutes: say so
    });
    child.on('error', (e) =>
      done({
        ok: false,
        message:
          `cannot run bash load/install-k6.sh (${e.message}); ` +
          'install k6 v2 (https://grafana.com/docs/k6/latest/set-up/install-k6/) and put it on PATH',
      }),
    );
    child.on('close', (code) => {
      const path = out.trim().split('\n').pop()?.trim() ?? '';
      if (code === 0 && path !== '' && existsSync(path)) return done({ ok: true, path });
      const last =
        err
          .trim()
          .split('\n')
          .filter((l) => l.trim() !== '')
          .pop() ?? `load/install-k6.sh exited with ${code}`;
      done({ ok: false, message: last.replace(/^install-k6: /, '') });
    });
  });
}

interface Prepared {
  env: Record<string, string>;
  secrets: string[];
  timeoutMs: number;
  cleanup: Array<() => Promise<void> | void>;
  describe: string;
}

/**
 * Whether the target's control endpoint offers every capability that drives deliveries in its virtual time;
 * a configured endpoint that does not answer is a configuration error (one line).
 */
async function drivesVirtualTime(config: SuiteConfig): Promise<boolean> {
  if (config.control === undefined) return false;
  try {
    const { states, inspections } = await createControlTransport(config.control).capabilities();
    const offered = new Set<string>([...states, ...inspections]);
    return VIRTUAL_TIME_DELIVERIES.every((capability) => offered.has(capability));
  } catch (e) {
    if (e instanceof ControlError)
      throw new UsageError(`CONTROL_URL: ${e.message}; check CONTROL_URL and CONTROL_TOKEN, or unset CONTROL_URL`);
    throw e;
  }
}

function missingForRemoteWebhooks(config: SuiteConfig, virtualTime: boolean): string[] {
  const missing: string[] = [];
  if (config.webhookPublicUrl === undefined)
    missing.push('WEBHOOK_PUBLIC_URL (a public https URL that reaches the local receiver)');
  if (virtualTime) return missing; // the event comes from the control endpoint's event-emitted
  if (!config.allowOriginate) missing.push('ALLOW_ORIGINATE=true (a real call makes the events happen)');
  if (config.destinationNumber === undefined) missing.push('TEST_DESTINATION_NUMBER');
  if (config.agents.provisioned === undefined) missing.push('TEST_AGENT_ID');
  return missing;
}

/** The probe's environment against a remote target (API_BASE_URL), and the local receiver webhook-retry needs. */
async function prepareRemote(
  args: Args,
  config: SuiteConfig,
  settings: RunSettings,
  prepared: Pick<Prepared, 'env' | 'secrets' | 'cleanup'>,
): Promise<Prepared> {
  const { env, secrets, cleanup } = prepared;
  const token = config.tokens.all;
  if (token === undefined)
    throw new UsageError('TOKEN_ALL is not set: the probes need an all-scope token of the target');
  const target = config.target as { baseUrl: string };
  env.BASE_URL = target.baseUrl;
  env.TOKEN = token;
  if (args.probe === 'rate-limit') {
    const second = secondToken(config.tokens);
    if (second !== undefined) env.TOKEN_2 = second;
    const limit = config.rateLimitPerWindow;
    // The spec's minute, or the shortened window a stand-in documents (RATE_LIMIT_WINDOW_MS): never assumed.
    const windowMs = config.rateWindowMs;
    env.LIMIT = String(limit);
    env.WINDOW_MS = String(windowMs);
    // "under" starts late enough after the requests this machine sent for the client to stay under the
    // limit (lib/probe-shape.ts underStartMs); not knowing them, a whole window from the probe's start.
    if (args.priorRequests !== undefined) {
      const priors = args.priorRequests;
      env.UNDER_AT_MS = String(underStartMs({ nowMs: Date.now(), priors, limit, windowMs, tolerance: RATE_TOLERANCE }));
    }
    return {
      env,
      secrets,
      timeoutMs: 6 * windowMs + 120_000,
      cleanup,
      describe:
        `${target.baseUrl} (limit ${limit} per ${windowMs / 1000} s` +
        `${windowMs === 60_000 ? '' : ', RATE_LIMIT_WINDOW_MS'})`,
    };
  }
  const virtualTime = await drivesVirtualTime(config);
  const missing = missingForRemoteWebhooks(config, virtualTime);
  if (missing.length > 0) throw new UsageError(`webhook-retry against ${target.baseUrl} needs ${missing.join(', ')}`);
  if (config.receiverService !== undefined) {
    // The probe registers secrets with its receiver and reads its verdicts: it needs one here.
    throw new UsageError(
      'webhook-retry uses a receiver on this machine, not a deployed one: unset RECEIVER_URL and RECEIVER_TOKEN, ' +
        'and point WEBHOOK_PUBLIC_URL at this machine (a tunnel or RECEIVER_TLS_CERT)',
    );
  }
  const budget = settings.timeBudgetS;
  // k6 queries the receiver over its plain-HTTP loopback query port: a user-supplied
  // certificate (RECEIVER_TLS_CERT) is issued for the public name, never for 127.0.0.1, so no
  // CA bundle could make k6 trust it there. The target alone speaks TLS to the receiver.
  // In virtual time the target may sign with its virtual clock (control-openapi.json): the receiver then
  // takes any timestamp rather than answer 401 to a retry the probe made happen hours ahead.
  const receiver = await startReceiver({
    ...config.receiver,
    loopbackQueryPort: true,
    ...(virtualTime ? { toleranceSeconds: Number.MAX_SAFE_INTEGER } : {}),
  });
  cleanup.push(() => receiver.close());
  env.RECEIVER_URL = receiver.queryUrl as string;
  env.RECEIVER_PUBLIC_URL = receiver.url;
  env.TIME_BUDGET_S = String(budget);
  if (virtualTime && config.control !== undefined) {
    env.CONTROL_URL = config.control.url;
    env.CONTROL_TOKEN = config.control.token;
  } else {
    env.AGENT_ID = config.agents.provisioned as string;
    env.DESTINATION_NUMBER = config.destinationNumber as string;
  }
  return {
    env,
    secrets,
    timeoutMs: (virtualTime ? CONTROL_DRIVE_BUDGET_MS : budget * 1000) + 300_000,
    cleanup,
    describe:
      `${target.baseUrl}, receiver ${receiver.url}, ` +
      (virtualTime ? "deliveries driven in the target's virtual time (CONTROL_URL)" : `budget ${budget} s`),
  };
}

/** The probe's environment against the embedded reference server (and receiver) it starts, loopback only. */
async function prepareEmbedded(
  args: Args,
  settings: RunSettings,
  reference: LoadReference,
  prepared: Pick<Prepared, 'env' | 'secrets' | 'cleanup'>,
): Promise<Prepared> {
  const { env, secrets, cleanup } = prepared;
  // Embedded reference server (and receiver), loopback only.
  let receiver: Receiver | undefined;
  // OCC_REFERENCE_VARIANTS: conformant variants of the reference (reference/variants.ts), e.g. rate-limit-fixed-window.
  const variants = settings.referenceVariants;
  const unknownVariants = reference.unknownVariantIds(variants.filter((id) => id !== 'all'));
  if (unknownVariants.length > 0)
    throw new UsageError(
      `OCC_REFERENCE_VARIANTS: unknown variant id ${unknownVariants.join(', ')}; reference/variants.ts lists them`,
    );
  let options: LoadReferenceOptions = {
    faults: args.faults,
    variants,
    rateLimit: { perWindow: limits.requestsPerMinute, windowMs: REFERENCE_WINDOW_MS },
  };
  if (args.probe === 'webhook-retry') {
    // The probe jumps the reference's virtual clock, which may sign with it (the variant
    // control-virtual-clock-signing): the receiver takes any timestamp rather than answer 401.
    receiver = await startReceiver({
      host: '127.0.0.1',
      port: 0,
      loopbackQueryPort: true,
      toleranceSeconds: Number.MAX_SAFE_INTEGER,
    });
    cleanup.push(() => receiver!.close());
    options = {
      ...options,
      rateLimit: false,
      clockScale: 0,
      deliveryTimeoutMs: REFERENCE_DELIVERY_TIMEOUT_MS,
      trustedCaPem: [receiver.caCertPem as string],
    };
  }
  let server: LoadReferenceServer;
  try {
    server = await reference.start(options);
  } catch (e) {
    for (const c of cleanup.reverse()) await c();
    throw e;
  }
  cleanup.unshift(() => server.close());
  secrets.push(...Object.values(server.tokens));
  env.BASE_URL = server.baseUrl;
  env.TOKEN = server.tokens.all;
  env.REFERENCE_URL = server.referenceUrl; // the reference-only API (/_reference), not the test-control protocol
  const faults = args.faults.length ? `, faults ${args.faults.join(',')}` : '';
  if (args.probe === 'rate-limit') {
    env.TOKEN_2 = server.tokens.none;
    env.LIMIT = String(limits.requestsPerMinute);
    env.WINDOW_MS = String(REFERENCE_WINDOW_MS);
    // A reference started for the probe has heard from no one: "under" starts at once.
    env.UNDER_AT_MS = String(Date.now());
    return {
      env,
      secrets,
      timeoutMs: 90_000,
      cleanup,
      describe: `reference server (limit ${limits.requestsPerMinute} per ${REFERENCE_WINDOW_MS} ms${faults})`,
    };
  }
  env.RECEIVER_URL = receiver!.queryUrl as string;
  env.RECEIVER_PUBLIC_URL = receiver!.url;
  return {
    env,
    secrets,
    timeoutMs: 150_000,
    cleanup,
    describe:
      `reference server (virtual clock, delivery timeout ${REFERENCE_DELIVERY_TIMEOUT_MS} ms${faults}) ` +
      'and receiver',
  };
}

async function prepare(
  args: Args,
  config: SuiteConfig,
  settings: RunSettings,
  reference: LoadReference,
): Promise<Prepared> {
  const prepared = { env: {}, secrets: [...config.secrets], cleanup: [] };
  if (config.target.kind === 'remote') {
    if (args.faults.length > 0)
      throw new UsageError(
        '--faults / OCC_REFERENCE_FAULTS switch faults of the embedded reference server; ' +
          'unset API_BASE_URL to use them',
      );
    return prepareRemote(args, config, settings, prepared);
  }
  return prepareEmbedded(args, settings, reference, prepared);
}

/** Another token of the TOKEN_ALL account that GET /me accepts (any valid one: ME-ANY-SCOPE), for RATE-LIMIT-PER-IP. */
export function secondToken(tokens: SuiteConfig['tokens']): string | undefined {
  const names = ['none', 'read:balance', 'read:cdrs', 'read:agents', 'write:calls', 'write:hooks'] as const;
  return names.map((name) => tokens[name]).find((token) => token !== undefined);
}

function redact(line: string, secrets: readonly string[]): string {
  return createRedactor(secrets)(line);
}

function failedThresholds(reportFile: string): string[] {
  try {
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { failedThresholds?: string[] };
    return report.failedThresholds ?? [];
  } catch {
    return [];
  }
}

function runK6(
  k6: string,
  script: string,
  prepared: Prepared,
  reportDir: string,
  extra: { args?: string[]; env?: Record<string, string> } = {},
): Promise<{ code: number; signal: NodeJS.Signals | null; stderrTail: string }> {
  return new Promise((done) => {
    const env: Record<string, string> = {
      ...machineVariables(['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']),
      K6_NO_USAGE_REPORT: 'true',
      K6_AUTO_EXTENSION_RESOLUTION: 'false',
      REPORT_DIR: reportDir,
      ...prepared.env,
      ...extra.env,
    };
    const args = ['run', '--quiet', '--no-color', ...(extra.args ?? []), script];
    const child = spawn(k6, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    let pending = '';
    const timer = setTimeout(() => {
      process.stderr.write(`load: k6 ran longer than ${prepared.timeoutMs / 1000} s; stopping it\n`);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    }, prepared.timeoutMs);
    child.stdout.on('data', (d: Buffer) => process.stdout.write(redact(d.toString(), prepared.secrets)));
    child.stderr.on('data', (d: Buffer) => {
      pending += d.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const raw of lines) {
        const line = redact(raw, prepared.secrets);
        if (line.trim() === '') continue;
        tail = line;
        // The crossed-threshold verdict is ours to print, in one line.
        if (/thresholds on metrics .* have been crossed/.test(line)) continue;
        process.stderr.write(`${line}\n`);
      }
    });
    const stop = (signal: NodeJS.Signals) => child.kill(signal);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    child.on('error', (e) => {
      clearTimeout(timer);
      done({ code: 1, signal: null, stderrTail: `cannot start k6 at ${k6}: ${e.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (pending.trim() !== '') tail = redact(pending, prepared.secrets);
      done({ code: code ?? (signal ? 1 : 0), signal, stderrTail: tail });
    });
  });
}

/** `occ load`: the exit code (k6's verdict, or 2 for a usage or configuration error, 3 without k6). */
export async function main(argv: readonly string[], reference: LoadReference): Promise<number> {
  let args: Args;
  let config: SuiteConfig;
  let settings: RunSettings;
  try {
    if (argv[0] === 'merge' || argv[0] === 'k6-operator-manifest') {
      return await (await import('./distributed/cli.ts')).main(argv);
    }
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(`${USAGE}   (default report dir: reports/latest)\n`);
      return 0;
    }
    // The user's .env and reports/, not the installed package's folder.
    ({ config, settings } = loadFromEnvironment('.env'));
    args = parseRunArgs(argv, settings);
    const unknown = reference.unknownFaultIds(args.faults);
    if (unknown.length > 0)
      throw new UsageError(`unknown fault id ${unknown.join(', ')}; reference/faults.ts lists them`);
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      process.stderr.write(`load: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  // Several runners need several source addresses: loopback has them, a remote target sees this machine as one.
  const remote = config.target.kind === 'remote' ? (config.target as { baseUrl: string }).baseUrl : undefined;
  const targetUrl = remote ?? 'http://127.0.0.1/';
  const unreachable = secondAddressUnreachable(targetUrl);
  if (args.runners !== undefined && args.localIps === undefined && unreachable !== undefined) {
    process.stderr.write(
      `load: --runners ${args.runners}: ${unreachable}; give this machine's own addresses with ` +
        '--local-ips, one per runner, or run a k6-operator TestRun (occ load k6-operator-manifest)\n',
    );
    return 2;
  }
  const k6 = await findK6();
  if (!k6.ok) {
    process.stderr.write(`load: k6 is needed and could not be found or built: ${k6.message}\n`);
    return 3;
  }
  let prepared: Prepared;
  try {
    prepared = await prepare(args, config, settings, reference);
  } catch (e) {
    const reason =
      e instanceof UsageError || e instanceof ConfigError
        ? e.message
        : `cannot start the probe's services: ${(e as Error).message}`;
    process.stderr.write(`load: ${reason}\n`);
    return 2;
  }
  try {
    mkdirSync(args.reportDir, { recursive: true });
    process.stderr.write(`load: ${args.probe} against ${prepared.describe}\n`);
    const started = Date.now();
    if (args.runners !== undefined) {
      const script = join(here, `${args.probe}.ts`);
      return await runLocalRunners({
        probe: args.probe,
        count: args.runners,
        addresses: runnerAddresses(args.runners, args.localIps),
        reportDir: args.reportDir,
        windowMs: Number(prepared.env.WINDOW_MS),
        runOne: (extra) => {
          const timeoutMs = prepared.timeoutMs + extra.extraTimeoutMs;
          return runK6(k6.path, script, { ...prepared, timeoutMs }, args.reportDir, extra);
        },
      });
    }
    const result = await runK6(k6.path, join(here, `${args.probe}.ts`), prepared, args.reportDir);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (result.code === 0) return 0;
    if (result.code === THRESHOLDS_CROSSED) {
      const failed = failedThresholds(join(args.reportDir, `k6-${args.probe}.json`));
      process.stderr.write(
        `load: ${args.probe} FAILED after ${seconds} s: ` +
          `thresholds crossed: ${failed.length ? failed.join('; ') : '(see the k6 summary above)'}\n`,
      );
      return THRESHOLDS_CROSSED;
    }
    process.stderr.write(
      `load: ${args.probe}: k6 exited with code ${result.code}` +
        `${result.stderrTail ? `: ${result.stderrTail.slice(0, 400)}` : ''}\n`,
    );
    return result.code === 0 ? 1 : result.code;
  } finally {
    for (const c of prepared.cleanup) {
      try {
        await c();
      } catch {
        // best effort: the process exits next
      }
    }
  }
}
