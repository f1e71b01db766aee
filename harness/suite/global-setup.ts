/**
 * Vitest global set-up of the conformance and property projects: decides the target from the
 * configuration, starts the embedded reference server and the webhook receiver when nothing
 * is configured, hands workers what they need, and at the end sweeps every hook the run created.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadConfig, type SuiteConfig } from '../config/config.ts';
import { createApiClient } from '../http/client.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.ts';
import { sweepHooks } from './hook-journal.ts';
import type { ProvidedTarget } from './provided.ts';

const EMBEDDED_WEBHOOK_BUDGET_S = 5;

function faultsFromEnvironment(): string[] {
  return (process.env.OCC_REFERENCE_FAULTS ?? '').split(',').map((id) => id.trim()).filter((id) => id !== '');
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config: SuiteConfig = loadConfig(process.env);
  const dryRun = process.env.OCC_DRY_RUN === '1';
  const hookJournal = process.env.OCC_HOOK_JOURNAL ?? join(mkdtempSync(join(tmpdir(), 'occ-run-')), 'hooks.jsonl');
  let reference: ReferenceServer | undefined;
  let receiver: Receiver | undefined;
  let target: ProvidedTarget;

  const common = {
    allowOriginate: config.allowOriginate,
    requestTimeoutMs: config.requestTimeoutMs,
    propertyNumRuns: config.propertyNumRuns,
    // The embedded reference delivers within milliseconds; a remote target gets WEBHOOK_BUDGET_S.
    webhookBudgetS: config.target.kind === 'embedded' ? EMBEDDED_WEBHOOK_BUDGET_S : config.webhookBudgetS,
    hookJournal,
    dryRun,
  };

  if (config.target.kind === 'embedded') {
    if (!dryRun) {
      receiver = await startReceiver();
      reference = await startReferenceServer({
        rateLimit: false,
        trustedCaPem: receiver.caCertPem === undefined ? [] : [receiver.caCertPem],
        faults: faultsFromEnvironment(),
        deliveryTimeoutMs: 1_000,
      });
    }
    const fixtures = reference?.fixtures;
    target = {
      ...common,
      kind: 'embedded',
      baseUrl: reference?.baseUrl ?? 'http://127.0.0.1:0/v1',
      authUrl: reference?.authUrl ?? 'http://127.0.0.1:0',
      controlUrl: reference?.controlUrl ?? 'http://127.0.0.1:0/_control',
      receiverLocalUrl: receiver?.localUrl ?? 'https://127.0.0.1:0',
      receiverPublicUrl: receiver?.url ?? 'https://127.0.0.1:0',
      receiverCaPem: receiver?.caCertPem,
      tokens: fixtures?.tokens ?? {},
      oauth: fixtures?.oauth,
      agents: fixtures?.agents ?? {},
      destinationNumber: config.destinationNumber ?? '+15005550006',
      requestsPerMinute: undefined,
      secrets: fixtures === undefined ? [] : [...Object.values(fixtures.tokens), fixtures.oauth.clientSecret],
    };
  } else {
    if (!dryRun && config.webhookPublicUrl !== undefined) {
      // Reached through WEBHOOK_PUBLIC_URL (a tunnel, or a certificate the target trusts).
      receiver = await startReceiver({ ...config.receiver, publicUrl: config.webhookPublicUrl });
    }
    target = {
      ...common,
      kind: 'remote',
      baseUrl: config.target.baseUrl,
      authUrl: config.target.authUrl,
      controlUrl: undefined,
      receiverLocalUrl: receiver?.localUrl,
      receiverPublicUrl: receiver?.url ?? (dryRun ? config.webhookPublicUrl : undefined),
      receiverCaPem: receiver?.caCertPem,
      tokens: config.tokens,
      oauth: config.oauth,
      agents: config.agents,
      destinationNumber: config.destinationNumber,
      requestsPerMinute: config.requestsPerMinute,
      secrets: config.secrets,
    };
  }
  project.provide('target', target);

  return async () => {
    if (!dryRun) {
      const api = createApiClient({ baseUrl: target.baseUrl, timeoutMs: target.requestTimeoutMs, requestsPerMinute: target.requestsPerMinute, secrets: target.secrets });
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
}
