/**
 * Near misses of the bearer tokens the target issues (operators/issued-tokens.ts): an API token of
 * the account and an OAuth access token, each written another way (case-swapped, one character
 * short, one appended), is another string and gets 401 `unauthorized`. Each variant is registered
 * as a secret before it is sent: a near copy of a token is no less a secret in a report.
 */
import { describe } from 'vitest';
import { check, type CheckTools } from '../harness/checks/check.ts';
import { codeOf, expectError } from '../harness/checks/verdicts.ts';
import { session } from '../harness/run/session.ts';
import { probeRotation, probesForRun, probesPlanned, turnBeyondGate } from '../harness/scheduling/rotation.ts';
import { openapi } from '../contract/openapi.ts';
import { issuedTokenProbes } from '../operators/issued-tokens.ts';
import { basicAuthorization } from './rules/oauth.ts';

/**
 * Remotely the two give way at the gate-sized budget (AUTH-UNKNOWN-TOKEN has its checks in every
 * run): a budget of twice that sends one, --all-probes both.
 */
const kinds = ['an API token', 'an OAuth access token'] as const;
const turn = (kind: (typeof kinds)[number]) =>
  turnBeyondGate(kinds, kind, session().target.kind === 'remote', 'the near misses of issued tokens');

/** The probes of the API's bearer scheme (openapi.json declares one). */
const probes = issuedTokenProbes(openapi as never);
const names = probes.map((p) => p.what);

async function expectEachRefused(t: CheckTools, issued: string, whose: string): Promise<void> {
  for (const probe of probesForRun(t, probes, 1, 'AUTH-UNKNOWN-TOKEN', (p) => p.what)) {
    const token = probe.value(issued);
    if (token === undefined) continue;
    session().api.redact.remember(token);
    const exchange = await t.call({ method: 'GET', path: '/me', token });
    t.ensure(
      exchange.status === 401,
      `GET /me with ${whose} with ${probe.what} (${probe.operator}) answered ${codeOf(exchange)}: it is another ` +
        'string than the token issued, and must be refused 401 unauthorized',
    );
    expectError(t, exchange, 401, 'unauthorized');
  }
}

describe('Near misses of the tokens the target issues', () => {
  check(
    'near miss (issued tokens): an API token case-swapped, one character short or long is refused 401 unauthorized',
    {
      verifies: ['AUTH-UNKNOWN-TOKEN'],
      needs: { tokens: ['all'] },
      turn: turn('an API token'),
      requests: probesPlanned(names.length, 1),
      probes: probeRotation('AUTH-UNKNOWN-TOKEN', names, 1),
    },
    (t) => expectEachRefused(t, t.token('all'), 'the API token'),
  );

  check(
    'near miss (issued tokens): an OAuth access token case-swapped, one character short or long is refused 401',
    {
      verifies: ['AUTH-UNKNOWN-TOKEN'],
      needs: { oauth: true },
      turn: turn('an OAuth access token'),
      requests: 1 + probesPlanned(names.length, 1),
      probes: probeRotation('AUTH-UNKNOWN-TOKEN', names, 1),
    },
    async (t) => {
      const { clientId, clientSecret } = t.target.oauth!;
      const exchange = await t.call({
        method: 'POST',
        path: `${t.target.authUrl}/oauth/token`,
        form: { grant_type: 'client_credentials' },
        authorization: basicAuthorization(clientId, clientSecret),
      });
      const issued = (exchange.json as { access_token?: unknown } | undefined)?.access_token;
      if (exchange.status !== 200 || typeof issued !== 'string')
        return t.notVerifiable(`the token endpoint issued no access token (answered ${exchange.status})`);
      session().api.redact.remember(issued);
      await expectEachRefused(t, issued, 'the OAuth access token');
    },
  );
});
