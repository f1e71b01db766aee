/**
 * What each state and inspection of the test-control protocol unlocks, for `occ control-check`'s
 * list of what an endpoint does not offer (before any run: a run's own report reads the same from
 * its checks' skip reasons, harness/report/control-gaps.ts). Written down from the checks'
 * `needs.control` in suites/ and properties/ (docs/control-protocol.md, "What it unlocks");
 * test/control-check/control-check.run.test.ts holds every id to the requirement catalogue.
 */
import type { ControlCapability } from '../contract/control.ts';

export interface Unlock {
  /** Every capability the checks need together. */
  readonly needs: readonly ControlCapability[];
  readonly requirements: readonly string[];
  /** The fixtures that verify the same without the protocol, when there are. */
  readonly orFixtures?: string;
  /** What else the checks need. */
  readonly note?: string;
}

const VIRTUAL_TIME: readonly ControlCapability[] = [
  'event-emitted',
  'deliveries-idle',
  'hook-attempts',
  'clock',
  'clock-advanced',
];

export const controlUnlocks: readonly Unlock[] = [
  { needs: ['account-suspended'], requirements: ['ME-SUSPENDED-403'], orFixtures: 'TOKEN_SUSPENDED' },
  {
    needs: ['account-without-trunk'],
    requirements: ['CALLS-NOT-PROVISIONED-409'],
    orFixtures: 'TOKEN_NO_TRUNK + NO_TRUNK_AGENT_ID',
  },
  {
    needs: ['account-without-dialer'],
    requirements: ['CALLS-DIALER-REQUIRED-409'],
    orFixtures: 'TOKEN_NO_DIALER + NO_DIALER_AGENT_ID',
  },
  {
    needs: ['agent-not-provisioned'],
    requirements: ['CALLS-AGENT-NOT-PROVISIONED-409'],
    orFixtures: 'TEST_UNPROVISIONED_AGENT_ID',
  },
  { needs: ['balance-upstream-failing'], requirements: ['BALANCE-UPSTREAM-500'] },
  { needs: ['originate-failing'], requirements: ['CALLS-ORIGINATE-FAILED-502', 'CALLS-ORIGINATE-FAILED-DETAIL'] },
  { needs: ['engine-not-configured'], requirements: ['CALLS-ENGINE-NOT-CONFIGURED-503'] },
  { needs: ['token-issued', 'token-revoked'], requirements: ['AUTH-REVOKE-IMMEDIATE', 'AUTH-REVOKED-TOKEN'] },
  { needs: ['token-issued', 'token-last-used'], requirements: ['AUTH-LAST-USED'] },
  {
    needs: ['event-emitted'],
    requirements: [
      'EVENT-CALL-TRANSFERRED-PAYLOAD',
      'EVENT-DISPOSITION-SET-PAYLOAD',
      'EVENT-DNC-ADDED-PAYLOAD',
      'EVENT-LEAD-COMPLETED-PAYLOAD',
      'WEBHOOK-ORDERING',
    ],
    note: "WEBHOOK_PUBLIC_URL; unless the target emits these kinds within the run's webhook watch",
  },
  { needs: ['event-emitted'], requirements: ['HOOKS-REFUSED-NO-SUBSCRIPTION'], note: 'WEBHOOK_PUBLIC_URL' },
  { needs: ['clock', 'clock-advanced'], requirements: ['CALLS-REFUSED-NOT-PLACED'] },
  {
    needs: ['event-emitted', 'hook-attempts'],
    requirements: ['HOOKS-DELETE-HISTORY-KEPT'],
    note: 'WEBHOOK_PUBLIC_URL',
  },
  {
    needs: VIRTUAL_TIME,
    requirements: [
      'WEBHOOK-RETRY-HORIZON-24H',
      'WEBHOOK-AUTO-DISABLE-10',
      'WEBHOOK-RECOVERY-BEFORE-10',
      'WEBHOOK-TIMEOUT-RETRY',
      'WEBHOOK-BACKOFF-EXPONENTIAL',
    ],
    note: "WEBHOOK_PUBLIC_URL; deliveries driven in the target's virtual time",
  },
  {
    needs: ['call-record'],
    requirements: ['CALLS-TRANSITIONS', 'CALLS-METADATA-NOT-PERSISTED', 'CALLS-INERT-FIELDS'],
    note: 'ALLOW_ORIGINATE and TEST_DESTINATION_NUMBER',
  },
];

export interface CapabilityUnlock {
  readonly requirements: readonly string[];
  /** The other capabilities the same checks need. */
  readonly with: readonly ControlCapability[];
  readonly orFixtures?: string;
  readonly note?: string;
}

/** What `capability` would unlock, one line per group of checks that need it. */
export function unlocksOf(capability: ControlCapability): CapabilityUnlock[] {
  return controlUnlocks
    .filter((unlock) => unlock.needs.includes(capability))
    .map((unlock) => ({
      requirements: unlock.requirements,
      with: unlock.needs.filter((other) => other !== capability),
      ...(unlock.orFixtures === undefined ? {} : { orFixtures: unlock.orFixtures }),
      ...(unlock.note === undefined ? {} : { note: unlock.note }),
    }));
}
