/**
 * Second proofs of GET /cdrs defaults, timestamp offsets, account isolation and OAuth client
 * authentication, taking turns across remote runs (harness/scheduling/rotation.ts turnOf): a
 * remote run sends one slice, at most 2 requests, so the run stays inside its 150-request budget.
 * Every requirement they verify is also verified every run by another check: CDRS-DEFAULT-WINDOW
 * and CDRS-LIMIT-DEFAULT-100 by cdrs.suite.ts and cdrs-boundaries.suite.ts, CDRS-WINDOW-MAX-31D and
 * CDRS-TILL-AFTER-FROM by cdrs.suite.ts, CDRS-TIMESTAMP-OFFSETS by the GET /cdrs property,
 * ACCOUNT-ISOLATION by the credential check of agents.suite.ts (the configured agents of other
 * accounts), AUTH-OAUTH-CLIENT-CREDENTIALS by the HTTP Basic grant and AUTH-OAUTH-CLIENT-AUTH-METHODS
 * by the discovery check of oauth.suite.ts. Embedded, every member runs.
 */
import type { Turn } from '../../harness/checks/check.ts';
import { session } from '../../harness/run/session.ts';
import { turnOf } from '../../harness/scheduling/rotation.ts';

export const secondProofs = [
  'only till 10 days ago, only from 40 days ago',
  'from left out',
  'till left out',
  'from and till left out',
  'limit left out',
  'offsets',
  "another account's agents",
  "another account's records",
  'OAuth credentials in the body',
] as const;

export type SecondProof = (typeof secondProofs)[number];

/** The turn of one member: 1 slice a remote run (9 seeds see them all, the remote self-proof's bound). */
export function secondProofTurn(member: SecondProof): Turn {
  return turnOf(
    secondProofs,
    member,
    1,
    session().target.kind === 'remote',
    'the second proofs of GET /cdrs defaults and offsets, of account isolation and of OAuth client authentication',
  );
}
