/**
 * Vitest global set-up of the conformance and property projects: decides the target from the
 * configuration, starts the embedded reference server and the webhook receiver when nothing
 * is configured, hands workers what they need, and at the end sweeps every hook the run created.
 *
 * One run per process, shared by every project. Vitest 5 runs a project's globalSetup once per
 * project (each through its own module runner, so module state is not shared), and tears them
 * all down when it closes. A root-level globalSetup would run once, but also for `--project unit`
 * alone. So the first project that needs a target starts the run and parks it on `globalThis`;
 * the others reuse it, and the last teardown ends it: one receiver on RECEIVER_PORT, one
 * reference server, one sweep.
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
import { controlCapabilities, type ControlCapability } from '../contract/control.ts';
import { createControlTransport, type ControlEndpoint } from './control-client.ts';
import { sweepStates } from './control-journal.ts';
import { sweepHooks } from './hook-journal.ts';
import { checkReceiverService } from './receiver-client.ts';
import type { ProvidedTarget } from './provided.ts';

const EMBEDDED_WEBHOOK_BUDGET_S = 5;

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

interface SharedRun {
  readonly target: ProvidedTarget;
  users: number;
  end(): Promise<void>;
}

const RUN = Symbol.for('outbound-calling-conformance.global-setup.run');
const shared = globalThis as { [RUN]?: Promise<SharedRun> };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared[RUN] ??= startRun();
  const run = await shared[RUN];
  run.users += 1;
  project.provide('target', run.target);
  return async () => {
    run.users -= 1;
    if (run.users > 0) return;
    delete shared[RUN];
    await run.end();
  };
}

async function startRun(): Promise<SharedRun> {
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

  if (config.target.kind === 'embedded') {
    if (!dryRun) {
      // The same throwaway CA every run (harness/webhooks/tls-cache.ts): only this run's reference trusts it.
      receiver = await startReceiver({ tls: await cachedTlsMaterial() });
      reference = await startReferenceServer({
        rateLimit: false,
        trustedCaPem: receiver.caCertPem === undefined ? [] : [receiver.caCertPem],
        faults: faultsFromEnvironment(),
        variants: variantsFromEnvironment(),
        deliveryTimeoutMs: 1_000,
      });
    }
    const fixtures = reference?.fixtures;
    target = {
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
    };
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
  const end = async (): Promise<void> => {
    if (!dryRun && target.control !== undefined) {
      const failed = await sweepStates(controlJournal, createControlTransport(target.control));
      for (const line of failed) process.stderr.write(`conformance: could not tear down control state ${line}\n`);
      if (ownControlJournal) rmSync(dirname(controlJournal), { recursive: true, force: true });
    }
    if (!dryRun) {
      const api = createApiClient({ baseUrl: target.baseUrl, timeoutMs: target.requestTimeoutMs, requestsPerMinute: target.requestsPerMinute, rateWindowMs: target.rateWindowMs, secrets: target.secrets });
      try {
        const { failed } = await sweepHooks(hookJournal, api, target.tokens);
        for (const line of failed) process.stderr.write(`conformance: could not delete hook ${line}\n`);
      } finally {
        await api.close();
      }
    }
    await reference?.close();
    await receiver?.close();
  };
  return { target, users: 0, end };
}
