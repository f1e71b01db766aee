/**
 * The run context: what whoever started the run (`occ run`, the self-proof's runner, or vitest's
 * global set-up when vitest runs directly) decided about it, built once by that composition root
 * (commands/) and handed to every test worker as ONE typed value through vitest's provide/inject
 * (key `run`; harness/run/session.ts injects it). What travels in it:
 *
 * - target: where the target is and what this configuration has for it (fixtures, the control
 *   endpoint with the capabilities it offers, read once per run, the webhook receiver), the
 *   run's budgets (computed once, here), whether it is a dry run, and the embedded reference's
 *   fault switches;
 * - seed: the run's seed (--seed or PROPERTY_SEED), which the properties and the rotations follow;
 * - channel: where the run channel listens (./channel.ts): what the workers share while the run
 *   goes on (the journals of hooks and control states, the clock readings, the webhook watch,
 *   the check gate, a check's own reference) lives in the process that started the run, reached
 *   by calls, never through files or globals;
 * - gated: whether checks pass the check gate (a parallel embedded run);
 * - shrink: whether a failing property shrinks its counterexample (harness/checks/property.ts).
 *
 * Environment variables carry only what a user configures (.env.example), read once by whoever
 * starts the run. Also declared here: the task meta a check leaves for the report's collector.
 */
import type { TokenName } from '../config/tokens.ts';
import type { ControlCapability } from '../../contract/control.ts';
import type { RunBudget } from '../scheduling/budget.ts';
import type { ChannelAddress } from './channel-client.ts';

export interface RunTarget {
  readonly kind: 'embedded' | 'remote';
  readonly baseUrl: string;
  readonly authUrl: string | undefined;
  /**
   * The test-control endpoint (CONTROL_URL; the embedded reference's own) and what it offers,
   * read once per run (every capability assumed on a dry run, which sends nothing).
   */
  readonly control:
    | { readonly url: string; readonly token: string; readonly offered: readonly ControlCapability[] }
    | undefined;
  /**
   * The webhook receiver's query API: the local receiver, or RECEIVER_URL; undefined when deliveries can't reach one.
   */
  readonly receiverLocalUrl: string | undefined;
  /** The https URL the target must deliver to (the receiver, or WEBHOOK_PUBLIC_URL). */
  readonly receiverPublicUrl: string | undefined;
  readonly receiverCaPem: string | undefined;
  /** A remote, store-only receiver (RECEIVER_URL): never sent a secret. */
  readonly receiverRemote: boolean;
  /** RECEIVER_TOKEN of a remote receiver (a secret, redacted like the others). */
  readonly receiverToken: string | undefined;
  readonly tokens: Readonly<Partial<Record<TokenName, string>>>;
  /** The OAuth client; `scopes`: the ones it is registered for (OAUTH_CLIENT_SCOPES), when known. */
  readonly oauth:
    | { readonly clientId: string; readonly clientSecret: string; readonly scopes?: readonly string[] }
    | undefined;
  readonly agents: {
    readonly provisioned?: string | undefined;
    readonly unprovisioned?: string | undefined;
    readonly foreign?: string | undefined;
    readonly noTrunk?: string | undefined;
    readonly noDialer?: string | undefined;
  };
  readonly destinationNumber: string | undefined;
  readonly allowOriginate: boolean;
  readonly requestsPerMinute: number | undefined;
  /** The target's rate window (RATE_LIMIT_WINDOW_MS; absent: the spec's minute, 60 000). */
  readonly rateWindowMs?: number;
  /** RATE_LIMIT_SOLE_CLIENT: a 429 under the documented limit is the target's, not a neighbour's. */
  readonly soleClient?: boolean;
  readonly requestTimeoutMs: number;
  readonly propertyNumRuns: number;
  /** Seconds the run watches for deliveries it caused (and their retries), from when it caused them. */
  readonly webhookBudgetS: number;
  /** What the run may send (rate × time budget, or everything): sizes every rotation (rotation.ts). */
  readonly budget: RunBudget;
  readonly secrets: readonly string[];
  readonly dryRun: boolean;
  /**
   * The fault switches the embedded reference runs with (OCC_REFERENCE_FAULTS, or the one the
   * self-proof turned on for this run); absent for a remote target, which has none.
   */
  readonly faults?: readonly string[];
  /**
   * The conformant variants the embedded reference runs with (OCC_REFERENCE_VARIANTS, as written:
   * `all` included); absent for a remote target. A check that starts a reference of its own uses them too.
   */
  readonly variants?: readonly string[];
}

export interface RunContext {
  readonly target: RunTarget;
  /**
   * The run's seed; undefined (vitest started directly without PROPERTY_SEED):
   * each property seeds from the clock, rotations take slice 0.
   */
  readonly seed: number | undefined;
  /** The run channel (./channel.ts): where the workers reach what the run's parts share. */
  readonly channel: ChannelAddress;
  /** Whether checks pass the check gate (a parallel embedded run); otherwise every check passes at once. */
  readonly gated: boolean;
  /**
   * Whether a failing property against the embedded reference shrinks its counterexample: a run's
   * report shows the smallest one found. The self-proof's runs do not: a fault is caught or not
   * whatever the counterexample, and shrinking only adds requests after the verdict is in.
   */
  readonly shrink: boolean;
  /** Where compiled validators are kept between processes (OCC_CACHE_DIR; contract/precompiled.ts). */
  readonly cacheDirectory: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    run: RunContext;
  }
  interface TaskMeta {
    /** Requests this check sent (all of them, 429 retries included). */
    requestCount?: number;
    /** 429s this check received. */
    rateLimited?: number;
    /** Exchanges of this check the network broke (refused, reset, stalled, cut short). */
    transportFailures?: number;
    /** Requests this check sent again: after a transport failure, a 429 or an undocumented 503. */
    retries?: number;
    /** Requests the check declares it needs, for --dry-run and the budget. */
    plannedRequests?: number;
    /** Requests it would need sending every probe (--dry-run: the time the full set takes). */
    plannedRequestsAll?: number;
    /** Its rotated near-miss probes: how many this run sends of how many, and which it leaves to later seeds. */
    probes?: { requirement: string; sent: number; of: number; left: string[] };
    /** What the target did where the spec is silent. */
    observations?: Array<{ requirement: string; text: string }>;
    /** Redacted exchanges behind a failure (the last few of the check). */
    exchanges?: Array<Record<string, unknown>>;
    /** Earlier exchanges of the failed check left out of `exchanges`. */
    exchangesOmitted?: number;
    /** Why a check could not run with this configuration, and what would enable it. */
    notVerifiable?: string;
    /** The control capabilities whose absence alone made the check not verifiable (harness/checks/needs.ts). */
    missingCapabilities?: string[];
    /** Per-requirement verdicts recorded by t.verify. */
    verdicts?: Array<{ requirement: string; passed: boolean; message?: string }>;
    /** Set when the check failed only by t.verify: the requirements it failed (the others it verifies passed). */
    failedRequirements?: string[];
  }
}
