/**
 * What the global set-up hands every test worker (vitest `provide`/`inject`): where the target
 * is, which fixtures this configuration has, and where the run's side-effect journal lives.
 */
import type { TokenName } from '../config/config.ts';

export interface ProvidedTarget {
  readonly kind: 'embedded' | 'remote';
  readonly baseUrl: string;
  readonly authUrl: string | undefined;
  /** The reference server's control API; only on the embedded target. */
  readonly controlUrl: string | undefined;
  /** Local URL of the webhook receiver (its query API); undefined when deliveries can't reach it. */
  readonly receiverLocalUrl: string | undefined;
  /** The https URL the target must deliver to (the receiver, or WEBHOOK_PUBLIC_URL). */
  readonly receiverPublicUrl: string | undefined;
  readonly receiverCaPem: string | undefined;
  readonly tokens: Readonly<Partial<Record<TokenName, string>>>;
  readonly oauth: { readonly clientId: string; readonly clientSecret: string } | undefined;
  readonly agents: { readonly provisioned?: string | undefined; readonly unprovisioned?: string | undefined; readonly foreign?: string | undefined };
  readonly destinationNumber: string | undefined;
  readonly allowOriginate: boolean;
  readonly requestsPerMinute: number | undefined;
  readonly requestTimeoutMs: number;
  readonly propertyNumRuns: number;
  /** Seconds the run watches for deliveries it caused (and their retries), from when it caused them. */
  readonly webhookBudgetS: number;
  /** Append-only journal of hooks the run created, swept at the end whatever happens. */
  readonly hookJournal: string;
  readonly secrets: readonly string[];
  readonly dryRun: boolean;
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
    /** Why a check could not run with this configuration, and what would enable it. */
    notVerifiable?: string;
  }
}
