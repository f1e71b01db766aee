/**
 * A reference server run as a SEPARATE PROCESS standing in for a staging deployment: the suite
 * reaches it only through the variables a staging team would set (API_BASE_URL, every TOKEN_*,
 * the agent ids, the OAuth client and its registered scopes, CONTROL_URL/CONTROL_TOKEN, a receiver it can reach through
 * WEBHOOK_PUBLIC_URL with a certificate it trusts). Used by `npm run self-proof -- --remote` and
 * by `npm run conformance:remote-reference` (the measurement behind README's variable table).
 *
 *   node cli/remote-reference.ts [--no-control] [--rate-window-ms n] [--faults id,id]
 *                                [--variants id,id] [-- <occ run options>]
 *
 * By default the stand-in runs with its rate limit off (a run's throttle would only slow it down).
 * With --rate-window-ms it enforces the spec's 100 requests per that window (60000: the real
 * minute; shorter: the reference's documented time scale), and the run is TOLD the window through
 * RATE_LIMIT_WINDOW_MS (the suite never assumes one): the client throttle keeps to the default
 * REQUESTS_PER_MINUTE per that window, and the passive 429 judge and the k6 rate-limit probe of
 * --with-load count in it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { machineVariables } from '../harness/config/machine.ts';
import { type TokenName, tokenNames, tokenVariable } from '../harness/config/tokens.ts';
import type { TargetFixtures } from '../harness/run/target.ts';
import { limits } from '../contract/openapi.ts';
import { generateTlsMaterial } from '../harness/webhooks/receiver.ts';
import { freeLoopbackPort } from './loopback-port.ts';
import { machineEnvironment } from './machine-environment.ts';
import { entryPoint } from './package-root.ts';

/** How long the stand-in may take to print its fixtures before it counts as hung. */
const FIXTURES_GUARD_MS = 60_000;

/**
 * What the stand-in prints first (`occ reference --json`, one JSON line): its URLs, a token per
 * scope set, the OAuth client and the seeded agents. Read from its output, as a staging team
 * reads its own deployment's: this module never imports the reference.
 */
export interface ReferenceFixtures extends TargetFixtures {
  readonly baseUrl: string;
  readonly authUrl: string;
  /** The reference-only test API (faults, reset, raw views). */
  readonly referenceUrl: string;
}

export interface RemoteReference {
  /** The environment of a remote run against it: every fixture, and CONTROL_URL unless withControl is false. */
  readonly env: Record<string, string>;
  readonly fixtures: ReferenceFixtures;
  close(): Promise<void>;
}

/**
 * The variables a staging team would set for a reference standing in as a remote target: its
 * URLs, every token, the OAuth client, the agent ids and permission to ring the fictional test
 * number (no webhook receiver, no control endpoint: callers add those). Pure.
 */
export function fixtureEnv(
  fixtures: Pick<ReferenceFixtures, 'baseUrl' | 'authUrl' | 'tokens' | 'oauth' | 'agents'>,
): Record<string, string> {
  const env: Record<string, string> = {
    API_BASE_URL: fixtures.baseUrl,
    AUTH_URL: fixtures.authUrl,
    OAUTH_CLIENT_ID: fixtures.oauth.clientId,
    OAUTH_CLIENT_SECRET: fixtures.oauth.clientSecret,
    OAUTH_CLIENT_SCOPES: fixtures.oauth.scopes.join(' '),
    TEST_AGENT_ID: fixtures.agents.provisioned,
    TEST_UNPROVISIONED_AGENT_ID: fixtures.agents.unprovisioned,
    FOREIGN_AGENT_ID: fixtures.agents.foreign,
    NO_TRUNK_AGENT_ID: fixtures.agents.noTrunk,
    NO_DIALER_AGENT_ID: fixtures.agents.noDialer,
    TEST_DESTINATION_NUMBER: '+15005550006',
    ALLOW_ORIGINATE: 'true',
    // Loopback and no rate limit on the stand-in: the throttle would only make the run slower.
    REQUESTS_PER_MINUTE: '6000',
  };
  for (const name of tokenNames) {
    const token = fixtures.tokens[name as TokenName];
    if (token !== undefined) env[tokenVariable(name)] = token;
  }
  return env;
}

export interface RemoteReferenceOptions {
  readonly faults?: readonly string[];
  /** Conformant variants the stand-in runs with (reference/variants.ts). */
  readonly variants?: readonly string[];
  readonly withControl?: boolean;
  /**
   * Enforce the spec's 100 requests per this window (ms) instead of no limit; the run is told it
   * (RATE_LIMIT_WINDOW_MS).
   */
  readonly rateWindowMs?: number;
}

/** The stand-in's own flags for its rate limit: off, or the spec's limit per the given window. Pure. */
export function rateLimitFlags(rateWindowMs: number | undefined): string[] {
  return rateWindowMs === undefined
    ? ['--rate-limit', '0']
    : ['--rate-limit', String(limits.requestsPerMinute), '--rate-window-ms', String(rateWindowMs)];
}

/**
 * What a run must be told about the stand-in's rate limit: nothing extra when it is off (only a
 * throttle that would slow the run down is lifted), its window when it is on (the default client
 * throttle then applies per that window). Pure.
 */
export function rateLimitEnv(rateWindowMs: number | undefined): Record<string, string | undefined> {
  return rateWindowMs === undefined
    ? {}
    : { REQUESTS_PER_MINUTE: undefined, RATE_LIMIT_WINDOW_MS: String(rateWindowMs) };
}

/** Starts `npm run reference` in its own process and reads its fixtures (the --json line). */
export async function startRemoteReference(options: RemoteReferenceOptions = {}): Promise<RemoteReference> {
  const dir = mkdtempSync(join(tmpdir(), 'occ-remote-ref-'));
  const tls = await generateTlsMaterial();
  writeFileSync(join(dir, 'cert.pem'), tls.cert);
  writeFileSync(join(dir, 'key.pem'), tls.key, { mode: 0o600 });
  writeFileSync(join(dir, 'ca.pem'), tls.caCertPem);
  const receiverPort = await freeLoopbackPort();
  const args = [
    entryPoint('reference/cli'),
    '--port',
    '0',
    '--json',
    ...rateLimitFlags(options.rateWindowMs),
    '--trust-ca',
    join(dir, 'ca.pem'),
  ];
  if (options.faults !== undefined && options.faults.length > 0) args.push('--faults', options.faults.join(','));
  if (options.variants !== undefined && options.variants.length > 0)
    args.push('--variants', options.variants.join(','));
  const child: ChildProcess = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    // The stand-in is configured by its flags alone: of the machine's environment it keeps PATH.
    env: { PATH: machineVariables(['PATH']).PATH ?? '' },
  });
  // Never outlive the process that started it (a crash, an uncaught error, process.exit).
  const orphanGuard = () => child.kill('SIGTERM');
  process.once('exit', orphanGuard);
  child.once('exit', () => process.off('exit', orphanGuard));
  const fixtures = await new Promise<ReferenceFixtures>((resolve, reject) => {
    let out = '';
    let err = '';
    // A hang guard, not a speed limit: beside npm test and CPU hogs its start has taken over 20 s.
    const timer = setTimeout(
      () => reject(new Error(`the reference process printed no fixtures within ${FIXTURES_GUARD_MS / 1000} s`)),
      FIXTURES_GUARD_MS,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n', 2);
      if (line.length < 2) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line[0]!) as ReferenceFixtures);
      } catch {
        reject(new Error(`the reference process printed no fixtures JSON: ${line[0]!.slice(0, 120)}`));
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the reference process exited (${code}): ${err.trim().split('\n').at(-1) ?? ''}`));
    });
  });
  const variables: Record<string, string | undefined> = {
    ...fixtureEnv(fixtures),
    ...rateLimitEnv(options.rateWindowMs),
    WEBHOOK_PUBLIC_URL: `https://127.0.0.1:${receiverPort}`,
    RECEIVER_PORT: String(receiverPort),
    RECEIVER_TLS_CERT: join(dir, 'cert.pem'),
    RECEIVER_TLS_KEY: join(dir, 'key.pem'),
    ...(options.withControl === false
      ? {}
      : { CONTROL_URL: fixtures.controlUrl, CONTROL_TOKEN: fixtures.controlToken }),
  };
  const env = Object.fromEntries(
    Object.entries(variables).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  let closed: Promise<void> | undefined;
  return {
    env,
    fixtures,
    close() {
      closed ??= new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
      });
      return closed;
    },
  };
}

/**
 * Origins that stand between a run and the stand-in's seams (a network-fault proxy, e.g.
 * `http://127.0.0.1:20345`): the API (API_BASE_URL), the token endpoint (AUTH_URL), the control
 * endpoint (CONTROL_URL), and where the target delivers webhooks (WEBHOOK_PUBLIC_URL, an https
 * origin; the receiver still listens on RECEIVER_PORT, behind it).
 */
export interface SeamRoutes {
  readonly api?: string;
  readonly auth?: string;
  readonly control?: string;
  readonly webhook?: string;
}

/** `env` with each routed seam's URL moved to its route's origin, its path kept; the others as they are. Pure. */
export function throughRoutes(env: Readonly<Record<string, string>>, routes: SeamRoutes): Record<string, string> {
  const moved = { ...env };
  const variables = { api: 'API_BASE_URL', auth: 'AUTH_URL', control: 'CONTROL_URL', webhook: 'WEBHOOK_PUBLIC_URL' };
  for (const [seam, name] of Object.entries(variables)) {
    const origin = routes[seam as keyof SeamRoutes];
    const value = env[name];
    if (origin === undefined || value === undefined) continue;
    const url = new URL(value);
    moved[name] = `${new URL(origin).origin}${url.pathname === '/' ? '' : url.pathname}${url.search}`;
  }
  return moved;
}

/**
 * The environment of a conformance run against it: the machine's own (its trust store and proxy
 * settings reach every child) without the suite's configuration, which comes from the stand-in
 * alone (a developer's .env or shell must not leak in); PROPERTY_* and the watch budgets
 * (WEBHOOK_BUDGET_S of the checks, TIME_BUDGET_S of the k6 webhook-retry probe) passed through.
 */
export function remoteRunEnvironment(reference: RemoteReference): NodeJS.ProcessEnv {
  const passed = (name: string) =>
    name.startsWith('PROPERTY_') || name === 'WEBHOOK_BUDGET_S' || name === 'TIME_BUDGET_S';
  return { CI: 'true', ...machineEnvironment(passed), ...reference.env };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: {
      'no-control': { type: 'boolean', default: false },
      faults: { type: 'string' },
      variants: { type: 'string' },
      'rate-window-ms': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const windowText = values['rate-window-ms'];
  if (windowText !== undefined && (!/^[0-9]+$/.test(windowText) || Number(windowText) < 1000))
    throw new Error(
      `--rate-window-ms must be a whole number of ms >= 1000 (60000 is the spec's minute), got "${windowText}"`,
    );
  const rateWindowMs = windowText === undefined ? undefined : Number(windowText);
  const reference = await startRemoteReference({
    withControl: !values['no-control'],
    faults: values.faults?.split(',').filter((id) => id !== '') ?? [],
    variants: values.variants?.split(',').filter((id) => id !== '') ?? [],
    ...(rateWindowMs === undefined ? {} : { rateWindowMs }),
  });
  try {
    const limit =
      rateWindowMs === undefined
        ? 'no rate limit'
        : `${limits.requestsPerMinute} requests per ${rateWindowMs / 1000} s (RATE_LIMIT_WINDOW_MS=${rateWindowMs})`;
    process.stdout.write(
      `remote reference: ${reference.fixtures.baseUrl} (a separate process, ${limit})` +
        `${values['no-control'] ? ', without CONTROL_URL' : `, CONTROL_URL ${reference.fixtures.controlUrl}`}\n`,
    );
    const child = spawn(process.execPath, [entryPoint('commands/run'), ...positionals], {
      stdio: 'inherit',
      env: remoteRunEnvironment(reference),
    });
    return await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  } finally {
    await reference.close();
  }
}

if (import.meta.main) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`remote-reference: ${(error as Error).message}\n`);
      process.exitCode = 2;
    },
  );
}
