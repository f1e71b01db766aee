/**
 * The run's target, started once per process: decides it from the configuration, starts the
 * embedded reference server and the webhook receiver when nothing is configured, hands workers
 * what they need, and at the end sweeps every hook and control state the run created.
 *
 * Started through ./shared-run.ts (one run per process, shared by every project, the CLI and
 * the self-proof's runners); this module is heavy (the reference server, the receiver, the API
 * client), so vitest's global set-up (./global-setup.ts) imports it only when nobody started the run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadConfig, type SuiteConfig } from '../config/config.ts';
import { createApiClient } from '../http/client.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { cachedTlsMaterial } from '../webhooks/tls-cache.ts';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.ts';
import { expandVariantIds } from '../../reference/variants.ts';
import { controlCapabilities, type ControlCapability } from '../../contract/control.ts';
import { createControlTransport, type ControlEndpoint } from '../seams/control-client.ts';
import { sweepStates } from '../seams/control-journal.ts';
import { sweepHooks } from '../seams/hook-journal.ts';
import { CALLS_IN_PROGRESS } from '../scheduling/gate.ts';
import { checkReceiverService } from '../seams/receiver-client.ts';
import type { ProvidedTarget } from './context.ts';

const EMBEDDED_WEBHOOK_BUDGET_S = 5;
/**
 * How long an originated call of the embedded reference lasts (its default is 300 ms). An
 * originating check holds the run's `webhooks` claim until its call has ended (gate.ts), and the
 * checks that hold that claim run one after another, so this wait is paid once per such check on
 * the run's longest path. The suite reads no duration from it: a call's CDR rounds it to 0 s
 * either way, and what the checks see is the order of the call's events, which stays the same.
 */
const EMBEDDED_CALL_DURATION_MS = 100;

/**
 * The embedded reference's delivery timeout, in running time (reference/webhooks/dispatcher.ts,
 * runningTimeDeadline): the receiver shares this process, so a pause of the process (a busy host)
 * delays its answer and the deadline alike and times nothing out. 250 ms of running time is ample
 * for a loopback TLS handshake and an answer; the check of a delivery left unanswered waits it
 * out holding the `webhooks` claim, on the run's longest path (1 s of wall time cost 1 s a run).
 */
const EMBEDDED_DELIVERY_TIMEOUT_MS = 250;

function faultsFromEnvironment(): string[] {
  return (process.env.OCC_REFERENCE_FAULTS ?? '').split(',').map((id) => id.trim()).filter((id) => id !== '');
}

/** Conformant variants of the embedded reference (reference/variants.ts), e.g. `all`. */
function variantsFromEnvironment(): string[] {
  return expandVariantIds((process.env.OCC_REFERENCE_VARIANTS ?? '').split(',').map((id) => id.trim()).filter((id) => id !== ''));
}

/**
 * What the control endpoint offers, read once per run: from the CLI (which read it before the
 * run, to stop on a broken endpoint with one line) or here; every capability on a dry run.
 */
export async function offeredCapabilities(endpoint: ControlEndpoint, dryRun: boolean): Promise<ControlCapability[]> {
  if (dryRun) return [...controlCapabilities];
  const fromCli = process.env.OCC_CONTROL_CAPABILITIES;
  if (fromCli !== undefined && fromCli !== '') return JSON.parse(fromCli) as ControlCapability[];
  const { states, inspections } = await createControlTransport(endpoint).capabilities();
  return [...states, ...inspections];
}

export interface SharedRun {
  /** Replaced by switchFaults; setup provides it to every project of the run. */
  target: ProvidedTarget;
  users: number;
  readonly projects: Set<TestProject>;
  /**
   * Embedded only (the self-proof's long-lived runner, cli/fault-runner.ts): between two test runs,
   * sweeps what the last one left, replaces the reference with a FRESH one with exactly these
   * faults on (seeded state, clock at now, nothing pending), clears the receiver, and provides
   * the new target to every project, so the next run sees what a new process would.
   */
  switchFaults(faults: readonly string[]): Promise<void>;
  end(): Promise<void>;
}

export async function startRun(): Promise<SharedRun> {
  const config: SuiteConfig = loadConfig(process.env);
  const dryRun = process.env.OCC_DRY_RUN === '1';
  const hookJournal = process.env.OCC_HOOK_JOURNAL ?? join(mkdtempSync(join(tmpdir(), 'occ-run-')), 'hooks.jsonl');
  // Private (it can hold tokens a state returned): a directory of our own under the OS temp dir.
  const ownControlJournal = process.env.OCC_CONTROL_JOURNAL === undefined;
  const controlJournal = process.env.OCC_CONTROL_JOURNAL ?? join(mkdtempSync(join(tmpdir(), 'occ-control-')), 'states.jsonl');
  let reference: ReferenceServer | undefined;
  let receiver: Receiver | undefined;
  let target: ProvidedTarget;

  const common = {
    allowOriginate: config.allowOriginate,
    requestTimeoutMs: config.requestTimeoutMs,
    rateWindowMs: config.rateWindowMs,
    propertyNumRuns: config.propertyNumRuns,
    // The embedded reference delivers within milliseconds; a remote target gets WEBHOOK_BUDGET_S.
    webhookBudgetS: config.target.kind === 'embedded' ? EMBEDDED_WEBHOOK_BUDGET_S : config.webhookBudgetS,
    hookJournal,
    controlJournal,
    dryRun,
  };

  const startReference = (faults: readonly string[]): Promise<ReferenceServer> => startReferenceServer({
    rateLimit: false,
    trustedCaPem: receiver?.caCertPem === undefined ? [] : [receiver.caCertPem],
    faults: [...faults],
    variants: variantsFromEnvironment(),
    deliveryTimeoutMs: EMBEDDED_DELIVERY_TIMEOUT_MS,
    callDurationMs: EMBEDDED_CALL_DURATION_MS,
  });
  const embeddedTarget = async (faults: readonly string[]): Promise<ProvidedTarget> => {
    const fixtures = reference?.fixtures;
    return {
      ...common,
      kind: 'embedded',
      baseUrl: reference?.baseUrl ?? 'http://127.0.0.1:0/v1',
      authUrl: reference?.authUrl ?? 'http://127.0.0.1:0',
      // The embedded target is just a target whose control endpoint offers everything, asked the same way.
      control: fixtures === undefined ? undefined : {
        url: fixtures.controlUrl, token: fixtures.controlToken,
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
      secrets: fixtures === undefined ? [] : [...Object.values(fixtures.tokens), fixtures.oauth.clientSecret, fixtures.controlToken],
      faults,
    };
  };

  if (config.target.kind === 'embedded') {
    if (!dryRun) {
      // The same throwaway CA every run (harness/webhooks/tls-cache.ts): only this run's reference trusts it.
      receiver = await startReceiver({ tls: await cachedTlsMaterial() });
      reference = await startReference(faultsFromEnvironment());
      // For the check gate in this process (gate.ts): an originated call ends with call.ended later.
      (globalThis as { [CALLS_IN_PROGRESS]?: () => number })[CALLS_IN_PROGRESS] = () => reference?.callsInProgress() ?? 0;
    }
    target = await embeddedTarget(faultsFromEnvironment());
  } else {
    const service = config.receiverService;
    if (service !== undefined) {
      // A receiver deployed next to the target: polled over its pull API, never sent a secret.
      if (!dryRun) await checkReceiverService(service.url, service.token);
    } else if (!dryRun && config.webhookPublicUrl !== undefined) {
      // Reached through WEBHOOK_PUBLIC_URL (a tunnel, or a certificate the target trusts).
      receiver = await startReceiver({ ...config.receiver, publicUrl: config.webhookPublicUrl });
    }
    target = {
      ...common,
      kind: 'remote',
      baseUrl: config.target.baseUrl,
      authUrl: config.target.authUrl,
      control: config.control === undefined ? undefined : { ...config.control, offered: await offeredCapabilities(config.control, dryRun) },
      receiverLocalUrl: service?.url ?? receiver?.localUrl,
      receiverPublicUrl: service === undefined ? receiver?.url ?? (dryRun ? config.webhookPublicUrl : undefined) : config.webhookPublicUrl,
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
  }
  // What the run left on the target: control states, then hooks (the journals are emptied).
  const sweep = async (): Promise<void> => {
    if (dryRun) return;
    if (run.target.control !== undefined) {
      const failed = await sweepStates(controlJournal, createControlTransport(run.target.control));
      for (const line of failed) process.stderr.write(`conformance: could not tear down control state ${line}\n`);
    }
    const api = createApiClient({ baseUrl: run.target.baseUrl, timeoutMs: run.target.requestTimeoutMs, requestsPerMinute: run.target.requestsPerMinute, rateWindowMs: run.target.rateWindowMs, secrets: run.target.secrets });
    try {
      const { failed } = await sweepHooks(hookJournal, api, run.target.tokens);
      for (const line of failed) process.stderr.write(`conformance: could not delete hook ${line}\n`);
    } finally {
      await api.close();
    }
  };
  const run: SharedRun = {
    target,
    users: 0,
    projects: new Set(),
    async switchFaults(faults) {
      if (run.target.kind !== 'embedded' || dryRun) throw new Error('only the embedded reference server has fault switches');
      await sweep();
      await reference?.close();
      receiver?.clear();
      reference = await startReference(faults);
      run.target = await embeddedTarget(faults);
      for (const project of run.projects) project.provide('target', run.target);
    },
    async end() {
      await sweep();
      if (ownControlJournal) rmSync(dirname(controlJournal), { recursive: true, force: true });
      delete (globalThis as { [CALLS_IN_PROGRESS]?: () => number })[CALLS_IN_PROGRESS];
      await reference?.close();
      await receiver?.close();
    },
  };
  return run;
}
