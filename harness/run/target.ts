/**
 * The run's target, started once by the composition root that starts the run (commands/: `occ
 * run`, the self-proof's runner, vitest's global set-up): decided from the configuration (a
 * remote target, or the embedded reference server and a local webhook receiver when nothing is
 * configured), described to the workers in the run context (./context.ts), served its shared
 * state by the run channel (./channel.ts), and at the end swept of every hook and control state
 * the run created.
 *
 * The reference servers are started by the starters the composition root injects (EmbeddedTarget,
 * StartOwnReference), so harness/ never imports reference/.
 */
import { budgetOf, EVERYTHING } from '../scheduling/budget.ts';
import type { TestProject } from 'vitest/node';
import { ConfigError, type SuiteConfig } from '../config/config.ts';
import type { TokenName } from '../config/tokens.ts';
import { createApiClient } from '../http/client.ts';
import { describeStartError, startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { cachedTlsMaterial } from '../webhooks/tls-cache.ts';
import { controlCapabilities, type ControlCapability } from '../../contract/control.ts';
import { createControlTransport, type ControlEndpoint } from '../seams/control-client.ts';
import { ensureReachable } from '../http/reachable.ts';
import { START_UP_PATIENCE } from '../http/transport.ts';
import { sweepStates } from '../seams/control-journal.ts';
import { sweepHooks } from '../seams/hook-journal.ts';
import { checkReceiverService } from '../seams/receiver-client.ts';
import { Gate } from '../scheduling/gate.ts';
import { startRunChannel, type RunChannel, type StartOwnReference } from './channel.ts';
import type { RunContext, RunTarget } from './context.ts';

/** The fixtures a reference gives a run: its control endpoint, a token per scope set, the OAuth client, its agents. */
export interface TargetFixtures {
  readonly controlUrl: string;
  readonly controlToken: string;
  readonly tokens: Readonly<Record<TokenName, string>>;
  /** `scopes`: the ones the client is registered for (OAUTH_CLIENT_SCOPES). */
  readonly oauth: { readonly clientId: string; readonly clientSecret: string; readonly scopes: readonly string[] };
  readonly agents: {
    readonly provisioned: string;
    readonly unprovisioned: string;
    readonly foreign: string;
    readonly noTrunk: string;
    readonly noDialer: string;
  };
}

/** What a run needs of an embedded target (reference/server.ts's ReferenceServer is one). */
export interface EmbeddedTarget {
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly fixtures: TargetFixtures;
  /** Calls originated and not yet ended (each ends with a call.ended event). */
  callsInProgress(): number;
  close(): Promise<void>;
}

/** Starts a fresh embedded target with exactly these faults and variants on, trusting the receiver's CA. */
export type StartEmbeddedTarget = (options: {
  readonly faults: readonly string[];
  readonly variants: readonly string[];
  readonly trustedCaPem: readonly string[];
}) => Promise<EmbeddedTarget>;

/** How the composition root starts reference servers (commands/embedded-reference.ts). */
export interface ReferenceStarters {
  /** The run's target when nothing is configured. */
  readonly embedded: StartEmbeddedTarget;
  /** A check's own reference (the rate-limit checks), served through the run channel. */
  readonly own?: StartOwnReference;
}

/** What the composition root decides about a run, before it starts it (once). */
export interface RunOptions {
  readonly starters: ReferenceStarters;
  /** The configuration, read once by whoever starts the run (harness/config/environment.ts). */
  readonly config: SuiteConfig;
  /** Where the workers keep compiled validators (OCC_CACHE_DIR; harness/config/settings.ts). */
  readonly cacheDirectory: string;
  readonly dryRun?: boolean;
  /** Where the hook journal is written for the user (reports/<run>/hooks.jsonl); none: kept in memory alone. */
  readonly hookFile?: string;
  /** What CONTROL_URL offers, when the caller read it before the run; otherwise read here. */
  readonly controlCapabilities?: readonly ControlCapability[];
  /** Fault switches the embedded reference starts with. */
  readonly faults?: readonly string[];
  /** Conformant variants the embedded reference runs with (OCC_REFERENCE_VARIANTS, as written). */
  readonly variants?: readonly string[];
  /** The run's seed (./context.ts). */
  readonly seed?: number;
  /** Whether checks pass the check gate: a parallel (embedded) run (harness/scheduling/gate.ts). */
  readonly gated?: boolean;
  /** Whether failing properties shrink their counterexamples (./context.ts). Default: true. */
  readonly shrink?: boolean;
}

const EMBEDDED_WEBHOOK_BUDGET_S = 5;
/**
 * Tolerance of the run's own receiver for a signature's timestamp where the run may move the
 * target's clock (it offers clock-advanced): none. After an advance the target may sign with its
 * virtual clock (control-openapi.json, Time), and a 401 for that would end the delivery (a 4xx is
 * permanent); the suite judges freshness itself, against real time or the clock the target reports.
 */
const ANY_TIMESTAMP_S = Number.MAX_SAFE_INTEGER;

/**
 * The run's first reading of the target's clock, before any check (../seams/target-clock.ts): a
 * clock an earlier run moved stays moved, and a delivery signed with it is judged against it.
 */
async function readClockAtStart(target: RunTarget, channel: RunChannel): Promise<void> {
  if (target.dryRun || target.control === undefined || !target.control.offered.includes('clock')) return;
  const sent = Date.now();
  // A clock the endpoint fails to report is unknown: deliveries are then judged on real time.
  const now = (
    await createControlTransport(target.control)
      .inspect('clock')
      .catch(() => undefined)
  )?.now;
  if (typeof now === 'number')
    channel.clock.add({ url: target.control.url, kind: 'clock', sent, answered: Date.now(), now });
}

/**
 * What the control endpoint offers, read once per run: given
 * by the caller, or asked here; every capability on a dry run.
 */
async function offeredCapabilities(
  endpoint: ControlEndpoint,
  dryRun: boolean,
  given?: readonly ControlCapability[],
): Promise<ControlCapability[]> {
  if (dryRun) return [...controlCapabilities];
  if (given !== undefined) return [...given];
  const { states, inspections } = await createControlTransport(endpoint).capabilities();
  return [...states, ...inspections];
}

export interface Run {
  /** What the workers are given; replaced by switchFaults and setSeed, and provided again to every project. */
  readonly context: RunContext;
  /** What the run's parts share (./channel.ts): its journals, and the gate's reporter for vitest. */
  readonly channel: RunChannel;
  /** Provides the context to a project of vitest's now, and again whenever it changes. */
  provideTo(project: TestProject): void;
  /** Calls of the embedded target in progress (0 for a remote target): the check gate waits for them. */
  callsInProgress(): number;
  /**
   * Embedded only (the self-proof's long-lived runner): between two test runs, sweeps what the
   * last one left, replaces the reference with a FRESH one with exactly these faults on (seeded
   * state, clock at now, nothing pending), clears the receiver and the channel's watch and clock
   * readings, and provides the new target to every project, so the next run sees what a new process would.
   */
  switchFaults(faults: readonly string[]): Promise<void>;
  /** The seed of the next test run (the self-proof's runner: a new seed per fault), provided to every project. */
  setSeed(seed: number): void;
  /** Sweeps what the run left, stops its servers; resolves with the API requests the sweep sent. */
  end(): Promise<number>;
}

/** What a target of this configuration is given whatever it is: its budgets and timeouts. */
function targetBasics(
  config: SuiteConfig,
): Pick<
  RunTarget,
  | 'allowOriginate'
  | 'requestTimeoutMs'
  | 'rateWindowMs'
  | 'soleClient'
  | 'propertyNumRuns'
  | 'webhookBudgetS'
  | 'budget'
> {
  return {
    allowOriginate: config.allowOriginate,
    requestTimeoutMs: config.requestTimeoutMs,
    rateWindowMs: config.rateWindowMs,
    soleClient: config.soleClient,
    propertyNumRuns: config.propertyNumRuns,
    // The embedded reference delivers within milliseconds; a remote target gets WEBHOOK_BUDGET_S.
    webhookBudgetS: config.target.kind === 'embedded' ? EMBEDDED_WEBHOOK_BUDGET_S : config.webhookBudgetS,
    // Embedded, requests are free and the self-proof needs every probe; remotely rate × time.
    budget:
      config.target.kind === 'embedded'
        ? EVERYTHING
        : budgetOf(config.requestsPerMinute, config.rateWindowMs, config.runBudgetS, config.allProbes),
  };
}

/**
 * The embedded reference as the run's target: a target whose control endpoint offers everything,
 * asked the same way; placeholders where a dry run started nothing.
 */
async function embeddedRunTarget(
  common: Pick<RunTarget, 'dryRun'> & ReturnType<typeof targetBasics>,
  config: SuiteConfig,
  started: {
    readonly reference: EmbeddedTarget | undefined;
    readonly receiver: Receiver | undefined;
    readonly faults: readonly string[];
    readonly variants: readonly string[];
  },
): Promise<RunTarget> {
  const { reference, receiver, faults, variants } = started;
  const fixtures = reference?.fixtures;
  return {
    ...common,
    kind: 'embedded',
    baseUrl: reference?.baseUrl ?? 'http://127.0.0.1:0/v1',
    authUrl: reference?.authUrl ?? 'http://127.0.0.1:0',
    // The embedded target is just a target whose control endpoint offers everything, asked the same way.
    control:
      fixtures === undefined
        ? undefined
        : {
            url: fixtures.controlUrl,
            token: fixtures.controlToken,
            offered: await offeredCapabilities({ url: fixtures.controlUrl, token: fixtures.controlToken }, false),
          },
    receiverLocalUrl: receiver?.localUrl ?? 'https://127.0.0.1:0',
    receiverPublicUrl: receiver?.url ?? 'https://127.0.0.1:0',
    receiverCaPem: receiver?.caCertPem,
    receiverRemote: false,
    receiverToken: undefined,
    tokens: fixtures?.tokens ?? {},
    oauth: fixtures?.oauth,
    agents: fixtures?.agents ?? {},
    destinationNumber: config.destinationNumber ?? '+15005550006',
    requestsPerMinute: undefined,
    secrets:
      fixtures === undefined
        ? []
        : [...Object.values(fixtures.tokens), fixtures.oauth.clientSecret, fixtures.controlToken],
    faults,
    variants,
  };
}

/**
 * A remote target as the configuration describes it: its control endpoint's capabilities (read
 * once), and the receiver its deliveries reach (a deployed one, checked, or a local one started
 * here behind WEBHOOK_PUBLIC_URL).
 */
async function startRemoteTarget(
  config: SuiteConfig,
  remote: Extract<SuiteConfig['target'], { kind: 'remote' }>,
  common: Pick<RunTarget, 'kind' | 'dryRun'> & ReturnType<typeof targetBasics>,
  options: Pick<RunOptions, 'controlCapabilities'>,
): Promise<{ target: RunTarget; receiver: Receiver | undefined }> {
  const { dryRun } = common;
  let receiver: Receiver | undefined;
  const service = config.receiverService;
  const offered =
    config.control === undefined
      ? undefined
      : await offeredCapabilities(config.control, dryRun, options.controlCapabilities);
  if (service !== undefined) {
    // A receiver deployed next to the target: polled over its pull API, never sent a secret.
    if (!dryRun) await checkReceiverService(service.url, service.token);
  } else if (!dryRun && config.webhookPublicUrl !== undefined) {
    // Reached through WEBHOOK_PUBLIC_URL (a tunnel, or a certificate the target trusts).
    const receiverOptions = {
      ...config.receiver,
      publicUrl: config.webhookPublicUrl,
      ...(offered?.includes('clock-advanced') ? { toleranceSeconds: ANY_TIMESTAMP_S } : {}),
    };
    // A port another process holds, a host not of this machine, a bad PEM pair: the configuration's to fix.
    receiver = await startReceiver(receiverOptions).catch((error: unknown) => {
      const line = `the webhook receiver could not start: ${describeStartError(error, receiverOptions)}`;
      throw new ConfigError('RECEIVER_PORT', line, line);
    });
  }
  // Last, so that what is wrong in the configuration (the receiver's port) is said first.
  if (!dryRun)
    await ensureReachable(remote.baseUrl, 'API_BASE_URL', {
      ...START_UP_PATIENCE,
      timeoutMs: config.requestTimeoutMs,
    }).catch(async (error: unknown) => {
      await receiver?.close();
      throw error;
    });
  const target: RunTarget = {
    ...common,
    baseUrl: remote.baseUrl,
    authUrl: remote.authUrl,
    control: config.control === undefined ? undefined : { ...config.control, offered: offered ?? [] },
    receiverLocalUrl: service?.url ?? receiver?.localUrl,
    receiverPublicUrl:
      service === undefined
        ? (receiver?.url ?? (dryRun ? config.webhookPublicUrl : undefined))
        : config.webhookPublicUrl,
    receiverCaPem: receiver?.caCertPem,
    receiverRemote: service !== undefined,
    receiverToken: service?.token,
    tokens: config.tokens,
    oauth: config.oauth,
    agents: config.agents,
    destinationNumber: config.destinationNumber,
    requestsPerMinute: config.requestsPerMinute,
    secrets: config.secrets,
  };
  return { target, receiver };
}

/** Sweeps what the run left on the target (control states, then hooks); resolves with the API requests sent. */
async function sweepRun(target: RunTarget, channel: RunChannel): Promise<number> {
  if (target.control !== undefined) {
    const failed = await sweepStates(channel.states, createControlTransport(target.control));
    for (const line of failed) process.stderr.write(`conformance: could not tear down control state ${line}\n`);
  }
  if (channel.hooks.outstanding().length === 0) return 0;
  const api = createApiClient({
    baseUrl: target.baseUrl,
    timeoutMs: target.requestTimeoutMs,
    requestsPerMinute: target.requestsPerMinute,
    rateWindowMs: target.rateWindowMs,
    secrets: target.secrets,
  });
  try {
    const { failed } = await sweepHooks(channel.hooks, api, target.tokens);
    for (const line of failed) process.stderr.write(`conformance: could not delete hook ${line}: delete it by hand\n`);
    return api.stats.requestsSent;
  } finally {
    await api.close();
  }
}

/** Starts the run: its channel, then its target (the receiver and the embedded reference, or the remote's). */
export async function startRun(options: RunOptions): Promise<Run> {
  const { config } = options;
  const variants = [...(options.variants ?? [])];
  const dryRun = options.dryRun ?? false;
  let faults = [...(options.faults ?? [])];
  let reference: EmbeddedTarget | undefined;
  let receiver: Receiver | undefined;
  let target: RunTarget;
  const channel = await startRunChannel({
    ...(options.gated === true ? { gate: new Gate(() => reference?.callsInProgress() ?? 0) } : {}),
    ...(options.hookFile === undefined ? {} : { hookFile: options.hookFile }),
    ...(options.starters.own === undefined
      ? {}
      : { ownReference: { start: options.starters.own, switches: () => ({ faults, variants }) } }),
  });
  const common = { ...targetBasics(config), dryRun };
  const startReference = (switches: readonly string[]): Promise<EmbeddedTarget> =>
    options.starters.embedded({
      faults: switches,
      variants,
      trustedCaPem: receiver?.caCertPem === undefined ? [] : [receiver.caCertPem],
    });
  const embeddedTarget = (switches: readonly string[]): Promise<RunTarget> =>
    embeddedRunTarget(common, config, { reference, receiver, faults: switches, variants });

  try {
    if (config.target.kind === 'embedded') {
      if (!dryRun) {
        // The same throwaway CA every run (harness/webhooks/tls-cache.ts): only this run's reference trusts it.
        // The reference offers clock-advanced: the suite judges signature freshness, not the receiver.
        receiver = await startReceiver({ tls: await cachedTlsMaterial(), toleranceSeconds: ANY_TIMESTAMP_S });
        reference = await startReference(faults);
      }
      target = await embeddedTarget(faults);
    } else {
      ({ target, receiver } = await startRemoteTarget(config, config.target, { ...common, kind: 'remote' }, options));
    }
    await readClockAtStart(target, channel);
  } catch (error) {
    // A target that cannot start (an unknown fault id) ends the run: nothing it started may keep it alive.
    await receiver?.close();
    await channel.close();
    throw error;
  }
  const projects = new Set<TestProject>();
  let context: RunContext = {
    target,
    seed: options.seed,
    channel: channel.address,
    gated: options.gated === true,
    shrink: options.shrink !== false,
    cacheDirectory: options.cacheDirectory,
  };
  const provide = (next: RunContext): void => {
    context = next;
    for (const project of projects) project.provide('run', context);
  };
  return {
    get context() {
      return context;
    },
    channel,
    provideTo(project) {
      projects.add(project);
      project.provide('run', context);
    },
    callsInProgress: () => reference?.callsInProgress() ?? 0,
    async switchFaults(next) {
      if (context.target.kind !== 'embedded' || dryRun)
        throw new Error('only the embedded reference server has fault switches');
      await sweepRun(context.target, channel);
      await reference?.close();
      receiver?.clear();
      await channel.reset();
      faults = [...next];
      reference = await startReference(faults);
      const target = await embeddedTarget(faults);
      await readClockAtStart(target, channel);
      provide({ ...context, target });
    },
    setSeed(seed) {
      provide({ ...context, seed });
    },
    async end() {
      const requests = dryRun ? 0 : await sweepRun(context.target, channel);
      await channel.close();
      await reference?.close();
      await receiver?.close();
      return requests;
    },
  };
}
