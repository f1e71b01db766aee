import { describe } from 'vitest';
import { check } from '../harness/checks/check.ts';
import { wayOf } from '../harness/scheduling/rotation.ts';

describe('GET /me', () => {
  check(
    'GET /me answers 200 with the identity of the token owner',
    {
      verifies: ['ME-200-SHAPE', 'FORMAT-JSON-CONTENT-TYPE'],
      needs: { tokens: ['all'] },
      requests: 1,
    },
    async (t) => {
      const me = await t.call({ method: 'GET', path: '/me', token: t.token('all') });
      t.expectStatus(me, 200);
      t.ensure(
        me.responseHeaders['content-type']?.startsWith('application/json') === true,
        `GET /me: content type is ${me.responseHeaders['content-type']}, must be application/json`,
      );
    },
  );

  check(
    'GET /me accepts a valid token that has no scopes at all',
    {
      verifies: ['ME-ANY-SCOPE'],
      needs: { tokens: ['none'] },
      requests: 1,
    },
    async (t) => {
      t.expectStatus(await t.call({ method: 'GET', path: '/me', token: t.token('none') }), 200);
    },
  );

  const suspended = { fixtures: { tokens: ['suspended'] }, control: { control: ['account-suspended'] } } as const;
  check(
    'GET /me answers 403 suspended for a token of a suspended account',
    {
      verifies: ['ME-SUSPENDED-403', 'FORMAT-ERROR-BODY'],
      needs: suspended.fixtures,
      requests: 1,
      turn: wayOf('fixtures', suspended, 'ME-SUSPENDED-403'),
    },
    async (t) => {
      t.expectStatus(await t.call({ method: 'GET', path: '/me', token: t.token('suspended') }), 403, 'suspended');
    },
  );

  check(
    'GET /me answers 403 suspended for a token of a suspended account (control state account-suspended)',
    {
      verifies: ['ME-SUSPENDED-403', 'FORMAT-ERROR-BODY'],
      needs: suspended.control,
      requests: 1,
      turn: wayOf('control', suspended, 'ME-SUSPENDED-403'),
    },
    async (t) => {
      const { token } = await t.control.account('account-suspended');
      t.expectStatus(await t.call({ method: 'GET', path: '/me', token }), 403, 'suspended');
    },
  );

  check(
    'API tokens carry a live-token prefix (recorded: its value is not shown)',
    {
      verifies: ['AUTH-API-TOKEN-PREFIX'],
      needs: { tokens: ['all'] },
      requests: 0,
    },
    async (t) => {
      const prefix = /^([A-Za-z]+_(?:[A-Za-z]+_)?)/.exec(t.token('all'))?.[1];
      t.observe(
        'AUTH-API-TOKEN-PREFIX',
        prefix === undefined ? 'the all-scope token has no recognisable prefix' : `API tokens start with "${prefix}"`,
      );
    },
  );
});
