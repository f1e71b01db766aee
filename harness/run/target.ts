/**
 * The run's target, started once per process: decided from the configuration (a remote target,
 * or the embedded reference server and a local webhook receiver when nothing is configured),
 * described to the workers in the run context (./context.ts), and at the end swept of every hook
 * and control state the run created.
 *
 * The embedded reference is started behind EmbeddedTarget by whoever starts the run (cli/, the
 * composition root), so harness/ never imports reference/. Started through ./lifecycle.ts; this
 * module is heavy (the receiver, the API client) and loads only when a run starts.
 */
import { budgetOf, EVERYTHING } from '../scheduling/budget.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { SuiteConfig } from '../config/config.ts';
import type { TokenName } from '../config/tokens.ts';
import { createApiClient } from '../http/client.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { cachedTlsMaterial } from '../webhooks/tls-cache.ts';
import { controlCapabilities, type ControlCapability } from '../../contract/control.ts';
import { createControlTransport, type ControlEndpoint } from '../seams/control-client.ts';
import { appendReading, clockLogOf } from '../seams/target-clock.ts';
import { sweepStates } from '../seams/control-journal.ts';
import { sweepHooks } from '../seams/hook-journal.ts';
import { checkReceiverService } from '../seams/receiver-client.ts';
import type { GateAddress, RunContext, RunTarget } from './context.ts';

/** What a run needs of an embedded target (reference/server.ts's ReferenceServer is one). */
export interface EmbeddedTarget {
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly fixtures: {
    readonly controlUrl: string;
    readonly controlToken: string;
    readonly tokens: Readonly<Record<TokenName, string>>;
    /** `scopes`: the ones the client is registered for. */
    readonly oauth: { readonly clientId: string; readonly clientSecret: string; readonly scopes: readonly string[] };
    readonly agents: {
      readonly provisioned: string;
      readonly unprovisioned: string;
      readonly foreign: string;
      readonly noTrunk: string;
      readonly noDialer: string;
    };
  };
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

/** What the starter of a run decides about it; the first user of a process's run decides (./lifecycle.ts). */
export interface RunOptions {
  readonly startEmbedded: StartEmbeddedTarget;
  /** The configuration, read once by whoever starts the run (harness/config/environment.ts). */
  readonly config: SuiteConfig;
  /** Where the workers keep compiled validators (OCC_CACHE_DIR; harness/config/settings.ts). */
  readonly cacheDirectory: string;
  readonly dryRun?: boolean;
  /** Append-only journal of the hooks the run creates; default: a file in a new temporary directory. */
  readonly hookJournal?: string;
  /** Journal of control states (it can hold tokens): a private temporary file; default: one of the run's own. */
  readonly controlJournal?: string;
  /** What CONTROL_URL offers, when the caller read it before the run; otherwise read here. */
  readonly controlCapabilities?: readonly ControlCapability[];
  /** Fault switches the embedded reference starts with. */
  readonly faults?: readonly string[];
  /** Conformant variants the embedded reference runs with (OCC_REFERENCE_VARIANTS, as written). */
  readonly variants?: readonly string[];
  /** The run's seed (./context.ts). */
  readonly seed?: number;
  /** The check gate of a parallel run (harness/scheduling/gate.ts). */
  readonly gate?: GateAddress;
  /** Where a parallel run hands the webhook watch over (harness/seams/event-watch.ts). */
  readonly watchFile?: string;
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
async function readClockAtStart(target: RunTarget): Promise<void> {
  if (target.dryRun || target.control === undefined || !target.control.offered.includes('clock')) return;
  const sent = Date.now();
  // A clock the endpoint fails to report is unknown: deliveries are then judged on real time.
  const now = (
    await createControlTransport(target.control)
      .inspect('clock')
      .catch(() => undefined)
  )?.now;
  if (typeof now === 'number')
    appendReading(clockLogOf(target.controlJournal), {
      url: target.control.url,
      kind: 'clock',
      sent,
      answered: Date.now(),
      now,
    });
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

export interface SharedRun {
  /**
   * What the workers are given (cli/vitest-global-setup.ts provides it
   * to every project of the run); replaced by switchFaults and setSeed.
   */
  context: RunContext;
  users: number;
  readonly projects: Set<TestProject>;
  /** Calls of the embedded target in progress (0 for a remote target): the check gate waits for them. */
  callsInProgress(): number;
  /**
   * Embedded only (the self-proof's long-lived runner, cli/fault-runner.ts): between two test runs,
   * sweeps what the last one left, replaces the reference with a FRESH one with exactly these
   * faults on (seeded state, clock at now, nothing pending), clears the receiver, and provides
   * the new target to every project, so the next run sees what a new process would.
   */
  switchFaults(faults: readonly string[]): Promise<void>;
  /** The seed of the next test run (the self-proof's runner: a new seed per fault), provided to every project. */
  setSeed(seed: number): void;
  end(): Promise<void>;
}

/** What a target of this configuration is given whatever it is: its budgets and timeouts. */
function targetBasics(
  config: SuiteConfig,
): Pick<
  RunTarget,
  'allowOriginate' | 'requestTimeoutMs' | 'rateWindowMs' | 'propertyNumRuns' | 'webhookBudgetS' | 'budget'
> {
  return {
    allowOriginate: config.allowOriginate,
    requestTimeoutMs: config.requestTimeoutMs,
    rateWindowMs: config.rateWindowMs,
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
  common: Pick<RunTarget, 'hookJournal' | 'controlJournal' | 'dryRun'> & ReturnType<typeof targetBasics>,
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
  common: Pick<RunTarget, 'kind' | 'hookJournal' | 'controlJournal' | 'dryRun'> & ReturnType<typeof targetBasics>,
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
    receiver = await startReceiver({
      ...config.receiver,
      publicUrl: config.webhookPublicUrl,
      ...(offered?.includes('clock-advanced') ? { toleranceSeconds: ANY_TIMESTAMP_S } : {}),
    });
  }
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

export async function startRun(options: RunOptions): Promise<SharedRun> {
  const { config } = options;
  const variants = [...(options.variants ?? [])];
  const dryRun = options.dryRun ?? false;
  const hookJournal = options.hookJournal ?? join(mkdtempSync(join(tmpdir(), 'occ-run-')), 'hooks.jsonl');
  // Private (it can hold tokens a state returned): a directory of our own under the OS temp dir.
  const ownControlJournal = options.controlJournal === undefined;
  const controlJournal = options.controlJournal ?? join(mkdtempSync(join(tmpdir(), 'occ-control-')), 'states.jsonl');
  const initialFaults = [...(options.faults ?? [])];
  let reference: EmbeddedTarget | undefined;
  let receiver: Receiver | undefined;
  let target: RunTarget;

  const common = { ...targetBasics(config), hookJournal, controlJournal, dryRun };

  const startReference = (faults: readonly string[]): Promise<EmbeddedTarget> =>
    options.startEmbedded({
      faults,
      variants,
      trustedCaPem: receiver?.caCertPem === undefined ? [] : [receiver.caCertPem],
    });
  const embeddedTarget = (faults: readonly string[]): Promise<RunTarget> =>
    embeddedRunTarget(common, config, { reference, receiver, faults, variants });

  if (config.target.kind === 'embedded') {
    if (!dryRun) {
      // The same throwaway CA every run (harness/webhooks/tls-cache.ts): only this run's reference trusts it.
      // The reference offers clock-advanced: the suite judges signature freshness, not the receiver.
      receiver = await startReceiver({ tls: await cachedTlsMaterial(), toleranceSeconds: ANY_TIMESTAMP_S });
      // A reference that cannot start (an unknown fault id) ends the run: its receiver must not keep it alive.
      reference = await startReference(initialFaults).catch(async (error: unknown) => {
        await receiver?.close();
        throw error;
      });
    }
    target = await embeddedTarget(initialFaults);
  } else {
    ({ target, receiver } = await startRemoteTarget(config, config.target, { ...common, kind: 'remote' }, options));
  }
  await readClockAtStart(target);
  // What the run left on the target: control states, then hooks (the journals are emptied).
  const sweep = async (): Promise<void> => {
    if (dryRun) return;
    const { target } = run.context;
    if (target.control !== undefined) {
      const failed = await sweepStates(controlJournal, createControlTransport(target.control));
      for (const line of failed) process.stderr.write(`conformance: could not tear down control state ${line}\n`);
    }
    const api = createApiClient({
      baseUrl: target.baseUrl,
      timeoutMs: target.requestTimeoutMs,
      requestsPerMinute: target.requestsPerMinute,
      rateWindowMs: target.rateWindowMs,
      secrets: target.secrets,
    });
    try {
      const { failed } = await sweepHooks(hookJournal, api, target.tokens);
      for (const line of failed) process.stderr.write(`conformance: could not delete hook ${line}\n`);
    } finally {
      await api.close();
    }
  };
  const provide = (context: RunContext): void => {
    run.context = context;
    for (const project of run.projects) project.provide('run', context);
  };
  const run: SharedRun = {
    context: {
      target,
      seed: options.seed,
      gate: options.gate,
      watchFile: options.watchFile,
      cacheDirectory: options.cacheDirectory,
    },
    users: 0,
    projects: new Set(),
    callsInProgress: () => reference?.callsInProgress() ?? 0,
    async switchFaults(faults) {
      if (run.context.target.kind !== 'embedded' || dryRun)
        throw new Error('only the embedded reference server has fault switches');
      await sweep();
      await reference?.close();
      receiver?.clear();
      reference = await startReference(faults);
      const next = await embeddedTarget(faults);
      await readClockAtStart(next);
      provide({ ...run.context, target: next });
    },
    setSeed(seed) {
      provide({ ...run.context, seed });
    },
    async end() {
      await sweep();
      if (ownControlJournal) rmSync(dirname(controlJournal), { recursive: true, force: true });
      await reference?.close();
      await receiver?.close();
    },
  };
  return run;
}
