import { describe } from 'vitest';
import { check } from '../harness/checks/check.ts';
import type { AgentList } from '../contract/openapi.ts';
import { credentialPaths } from './rules/agents.ts';
import { describeLeaks, foreignAgentNeedles, leakedNeedles } from './rules/isolation.ts';

describe('GET /agents', () => {
  check(
    'GET /agents answers 200 with the SIP lines of the account, count matching the records',
    {
      verifies: ['AGENTS-200-SHAPE', 'AGENTS-COUNT-MATCHES-ROWS', 'CDR-REQUIRED-FIELDS'],
      needs: { tokens: ['read:agents'] },
      requests: 1,
    },
    async (t) => {
      const response = await t.call({ method: 'GET', path: '/agents', token: t.token('read:agents') });
      t.expectStatus(response, 200);
      const list = response.json as AgentList;
      t.ensure(
        list.count === list.agents.length,
        `GET /agents: count is ${list.count} but agents holds ${list.agents.length} records`,
      );
      const missing = new Set(
        list.agents.flatMap((agent) =>
          ['id', 'sipUsername', 'label', 'createdAt'].filter((field) => !(field in agent)),
        ),
      );
      t.observe(
        'CDR-REQUIRED-FIELDS',
        missing.size === 0
          ? 'every agent record carries id, sipUsername, label and createdAt'
          : `agent records omit: ${[...missing].join(', ')}`,
      );
    },
  );

  // Also every run's proof of ACCOUNT-ISOLATION: no configured agent of another account is listed
  // (isolation.suite.ts reads the other account's own lists, taking turns remotely).
  check(
    'GET /agents never returns a credential of a line, at any depth, nor an agent of another account',
    {
      verifies: ['AGENTS-NO-CREDENTIALS', 'ACCOUNT-ISOLATION'],
      needs: { tokens: ['read:agents'] },
      requests: 1,
    },
    async (t) => {
      const response = await t.call({ method: 'GET', path: '/agents', token: t.token('read:agents'), validate: false });
      t.expectStatus(response, 200);
      const leaks = credentialPaths(response.json);
      t.verify(
        'AGENTS-NO-CREDENTIALS',
        leaks.length === 0,
        `GET /agents returns credential fields: ${leaks.join(', ')}`,
      );
      const foreign = foreignAgentNeedles(t.target.agents);
      const listed = leakedNeedles(response.json, foreign);
      if (foreign.length === 0)
        t.observe('ACCOUNT-ISOLATION', 'no agent of another account is configured (FOREIGN_AGENT_ID…) to look for');
      else t.verify('ACCOUNT-ISOLATION', listed.length === 0, describeLeaks('GET /agents', listed));
    },
  );
});
