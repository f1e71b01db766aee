/**
 * What the global set-up hands every test worker (vitest `provide`/`inject`): where the target
 * is, which fixtures this configuration has, and where the run's side-effect journal lives.
 */
import type { TokenName } from '../config/tokens.ts';
import type { ControlCapability } from '../../contract/control.ts';

export interface ProvidedTarget {
  readonly kind: 'embedded' | 'remote';
  readonly baseUrl: string;
  readonly authUrl: string | undefined;
  /**
   * The test-control endpoint (CONTROL_URL; the embedded reference's own) and what it offers,
   * read once per run (every capability assumed on a dry run, which sends nothing).
   */
  readonly control: { readonly url: string; readonly token: string; readonly offered: readonly ControlCapability[] } | undefined;
  /** Journal of test-control states set up and not yet torn down (a private temporary file). */
  readonly controlJournal: string;
  /** The webhook receiver's query API: the local receiver, or RECEIVER_URL; undefined when deliveries can't reach one. */
  readonly receiverLocalUrl: string | undefined;
  /** The https URL the target must deliver to (the receiver, or WEBHOOK_PUBLIC_URL). */
  readonly receiverPublicUrl: string | undefined;
  readonly receiverCaPem: string | undefined;
  /** A remote, store-only receiver (RECEIVER_URL): never sent a secret. */
  readonly receiverRemote: boolean;
  /** RECEIVER_TOKEN of a remote receiver (a secret, redacted like the others). */
  readonly receiverToken: string | undefined;
  readonly tokens: Readonly<Partial<Record<TokenName, string>>>;
  readonly oauth: { readonly clientId: string; readonly clientSecret: string } | undefined;
  readonly agents: {
    readonly provisioned?: string | undefined; readonly unprovisioned?: string | undefined; readonly foreign?: string | undefined;
    readonly noTrunk?: string | undefined; readonly noDialer?: string | undefined;
  };
  readonly destinationNumber: string | undefined;
  readonly allowOriginate: boolean;
  readonly requestsPerMinute: number | undefined;
  /** The target's rate window (RATE_LIMIT_WINDOW_MS; absent: the spec's minute, 60 000). */
  readonly rateWindowMs?: number;
  readonly requestTimeoutMs: number;
  readonly propertyNumRuns: number;
  /** Seconds the run watches for deliveries it caused (and their retries), from when it caused them. */
  readonly webhookBudgetS: number;
  /** Append-only journal of hooks the run created, swept at the end whatever happens. */
  readonly hookJournal: string;
  readonly secrets: readonly string[];
  readonly dryRun: boolean;
  /**
   * The fault switches the embedded reference runs with (OCC_REFERENCE_FAULTS, or the one the
   * self-proof turned on for this run); absent for a remote target, which has none.
   */
  readonly faults?: readonly string[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    target: ProvidedTarget;
  }
  interface TaskMeta {
    /** Requests this check sent (all of them, 429 retries included). */
    requestCount?: number;
    /** 429s this check received. */
    rateLimited?: number;
    /** Requests the check declares it needs, for --dry-run and the budget. */
    plannedRequests?: number;
    /** What the target did where the spec is silent. */
    observations?: Array<{ requirement: string; text: string }>;
    /** Redacted exchanges behind a failure (the last few of the check). */
    exchanges?: Array<Record<string, unknown>>;
    /** Earlier exchanges of the failed check left out of `exchanges`. */
    exchangesOmitted?: number;
    /** Why a check could not run with this configuration, and what would enable it. */
    notVerifiable?: string;
    /** Per-requirement verdicts recorded by t.verify. */
    verdicts?: Array<{ requirement: string; passed: boolean; message?: string }>;
    /** Set when the check failed only by t.verify: the requirements it failed (the others it verifies passed). */
    failedRequirements?: string[];
  }
}
