import { describe } from 'vitest';
import { check } from '../harness/checks/check.ts';
import type { Balance } from '../contract/openapi.ts';

describe('GET /balance', () => {
  check(
    'GET /balance answers 200 with a live balance snapshot',
    {
      verifies: ['BALANCE-200-SHAPE', 'BALANCE-CREDIT-LIMIT-NULLABLE', 'BALANCE-ACCOUNT-TYPE-VALUES'],
      needs: { tokens: ['read:balance'] },
      requests: 1,
    },
    async (t) => {
      const response = await t.call({ method: 'GET', path: '/balance', token: t.token('read:balance') });
      t.expectStatus(response, 200);
      const balance = response.json as Balance;
      t.observe(
        'BALANCE-ACCOUNT-TYPE-VALUES',
        `accountType is "${balance.accountType}"; creditLimit is ` +
          `${'creditLimit' in balance ? JSON.stringify(balance.creditLimit) : 'absent'}`,
      );
    },
  );

  check(
    'GET /balance answers 500 internal_error when the upstream snapshot fetch fails',
    {
      verifies: ['BALANCE-UPSTREAM-500'],
      needs: { control: ['balance-upstream-failing'] },
      requests: 1,
    },
    async (t) => {
      // The state gives a token of an account whose upstream fails (until teardown).
      const { token } = await t.control.account('balance-upstream-failing');
      t.expectStatus(await t.call({ method: 'GET', path: '/balance', token }), 500, 'internal_error');
    },
  );
});
