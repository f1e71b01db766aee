/**
 * Account isolation as a rule of its own (ACCOUNT-ISOLATION): nothing of another account appears
 * in an answer to this account. Each check reads another account's data with that account's own
 * token (TOKEN_NO_DIALER: an account with a trunk, so it has lines and may have records), adds the
 * configured agents of other accounts (FOREIGN_AGENT_ID, NO_TRUNK_AGENT_ID, NO_DIALER_AGENT_ID),
 * and looks for each of those values (needles) in this account's list, where a value of its kind
 * sits (suites/rules/isolation.ts). Against a remote target they take turns with the other second
 * proofs (suites/data/second-proofs.ts); the credential check of agents.suite.ts looks for the
 * configured agents every run.
 */
import { describe } from 'vitest';
import { CDR_WINDOW_MAX_MS, limits } from '../contract/openapi.ts';
import { check } from '../harness/checks/check.ts';
import { codeOf } from '../harness/checks/verdicts.ts';
import { secondProofTurn } from './data/second-proofs.ts';
import { agentNeedles, cdrNeedles, describeLeaks, foreignAgentNeedles, leakedNeedles } from './rules/isolation.ts';

const HOUR_MS = 3_600_000;
const OTHER = 'the TOKEN_NO_DIALER account';
const iso = (ms: number): string => new Date(ms).toISOString();

/** The last 31 days, ending an hour ago: the widest window one request reads. */
function widestWindow(): { from: string; till: string; limit: number } {
  const till = Math.floor((Date.now() - HOUR_MS) / 1000) * 1000;
  return { from: iso(till - CDR_WINDOW_MAX_MS), till: iso(till), limit: limits.cdrLimitMax };
}

describe("Account isolation: nothing of another account in this account's answers", () => {
  check(
    "GET /agents lists none of another account's agents (read with its own token) nor a configured foreign agent",
    {
      verifies: ['ACCOUNT-ISOLATION'],
      needs: { tokens: ['read:agents', 'noDialer'] },
      requests: 2,
      turn: secondProofTurn("another account's agents"),
    },
    async (t) => {
      const theirs = await t.call({ method: 'GET', path: '/agents', token: t.token('noDialer') });
      t.ensure(theirs.status === 200, `GET /agents with the token of ${OTHER}: expected 200, got ${codeOf(theirs)}`);
      const needles = [...agentNeedles(theirs.json, OTHER), ...foreignAgentNeedles(t.target.agents)];
      const ours = await t.call({ method: 'GET', path: '/agents', token: t.token('read:agents') });
      t.expectStatus(ours, 200);
      const leaks = leakedNeedles(ours.json, needles);
      t.ensure(
        leaks.length === 0,
        `${describeLeaks('GET /agents', leaks)} (a value listed for both accounts means one of the two lists ` +
          'shows what is not its own)',
      );
      t.observe('ACCOUNT-ISOLATION', `GET /agents searched for ${needles.length} values of other accounts: none found`);
    },
  );

  check(
    "GET /cdrs returns none of another account's records or SIP lines (read with that account's token)",
    {
      verifies: ['ACCOUNT-ISOLATION'],
      needs: { tokens: ['read:cdrs', 'noDialer'] },
      requests: 2,
      turn: secondProofTurn("another account's records"),
    },
    async (t) => {
      const window = widestWindow();
      const theirs = await t.call({ method: 'GET', path: '/cdrs', token: t.token('noDialer'), query: window });
      t.ensure(theirs.status === 200, `GET /cdrs with the token of ${OTHER}: expected 200, got ${codeOf(theirs)}`);
      const needles = cdrNeedles(theirs.json, OTHER);
      const ours = await t.call({ method: 'GET', path: '/cdrs', token: t.token('read:cdrs'), query: window });
      t.expectStatus(ours, 200);
      const leaks = leakedNeedles(ours.json, needles);
      t.ensure(
        leaks.length === 0,
        `${describeLeaks(`GET /cdrs from=${window.from} till=${window.till}`, leaks)} (a value returned for both ` +
          'accounts means one of the two answers shows what is not its own)',
      );
      t.observe(
        'ACCOUNT-ISOLATION',
        needles.length === 0
          ? `${OTHER} has no record in the last 31 days: nothing of its records to look for`
          : `GET /cdrs searched for ${needles.length} values of ${OTHER}: none found`,
      );
    },
  );
});
