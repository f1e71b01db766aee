import { describe } from 'vitest';
import { check, type CheckTools } from '../harness/checks/check.ts';
import { session } from '../harness/run/session.ts';
import { codeOf } from '../harness/checks/verdicts.ts';
import { operations, scopes } from '../contract/openapi.ts';
import { isJsonMediaType } from '../contract/standards/message.ts';
import { harmlessRequest } from './data/harmless-requests.ts';
import { secondProofTurn } from './data/second-proofs.ts';
import {
  advertisedAuthMethods,
  basicAuthorization,
  discoveryProblems,
  noStoreProblem,
  pragmaReading,
  tokenEndpointProblem,
  wideningPlan,
  wideningProblem,
} from './rules/oauth.ts';

interface TokenAnswer {
  access_token?: unknown;
  token_type?: unknown;
  expires_in?: unknown;
  scope?: unknown;
  error?: unknown;
}

/** POST {auth_url}/oauth/token; the access token, once seen, is scrubbed from every log. */
async function requestToken(t: CheckTools, form: Record<string, string>, authorization?: string) {
  const exchange = await t.call({
    method: 'POST',
    path: `${t.target.authUrl}/oauth/token`,
    form,
    ...(authorization === undefined ? {} : { authorization }),
  });
  const answer = (exchange.json ?? {}) as TokenAnswer;
  if (typeof answer.access_token === 'string') session().api.redact.remember(answer.access_token);
  return { exchange, answer };
}

/** What is wrong with a token answer that should have issued a bearer token; undefined when right. */
function tokenProblem(exchange: { status: number | undefined }, answer: TokenAnswer, how: string): string | undefined {
  if (exchange.status !== 200)
    return (
      `the client_credentials grant by ${how} answered ${exchange.status} ${String(answer.error ?? '')}, ` +
      `expected 200 with an access token`
    );
  if (typeof answer.access_token !== 'string' || answer.access_token === '')
    return `the client_credentials grant by ${how} answered 200 without an access_token`;
  if (typeof answer.token_type !== 'string' || answer.token_type.toLowerCase() !== 'bearer')
    return `token_type is ${JSON.stringify(answer.token_type)}, must be Bearer`;
  return undefined;
}

async function metadataOf(t: CheckTools) {
  return t.call({ method: 'GET', path: `${t.target.authUrl}/.well-known/oauth-authorization-server` });
}

describe('OAuth 2.0 client_credentials', () => {
  // The client authentication methods it advertises are recorded.
  check(
    'The auth host serves RFC 8414 metadata naming its issuer, the token endpoint {auth_url}/oauth/token ' +
      'and the client_credentials grant',
    {
      verifies: ['AUTH-OAUTH-DISCOVERY', 'AUTH-OAUTH-METADATA-TOKEN-ENDPOINT', 'AUTH-OAUTH-CLIENT-AUTH-METHODS'],
      needs: { oauth: true },
      requests: 1,
    },
    async (t) => {
      const exchange = await metadataOf(t);
      t.expectStatus(exchange, 200);
      const type = exchange.responseHeaders['content-type'];
      const problems = [
        ...(isJsonMediaType(type) ? [] : [`served as ${type ?? 'no Content-Type'}, not application/json (§3.2)`]),
        ...discoveryProblems(exchange.json, t.target.authUrl!),
      ];
      t.verify(
        'AUTH-OAUTH-DISCOVERY',
        problems.length === 0,
        `the discovery document breaks RFC 8414: ${problems.join('; ')}`,
      );
      const endpoint = tokenEndpointProblem(exchange.json, t.target.authUrl!);
      t.verify('AUTH-OAUTH-METADATA-TOKEN-ENDPOINT', endpoint === undefined, `the discovery document: ${endpoint}`);
      t.observe(
        'AUTH-OAUTH-CLIENT-AUTH-METHODS',
        `token_endpoint_auth_methods_supported: ${advertisedAuthMethods(exchange.json).join(', ')}`,
      );
    },
  );

  // RFC 6749 §2.3.1: every server MUST support HTTP Basic client authentication, so the grant,
  // and the narrowed-scope rule, are verified with it; §5.1: its answer holds a token, so no-store.
  check(
    'A client_credentials grant with HTTP Basic client authentication yields a working token under the same scopes, ' +
      'in an answer marked Cache-Control: no-store',
    {
      verifies: [
        'AUTH-OAUTH-CLIENT-CREDENTIALS',
        'AUTH-OAUTH-SAME-SCOPES',
        'AUTH-OAUTH-TOKEN-LIFETIME',
        'AUTH-OAUTH-NO-STORE',
      ],
      needs: { oauth: true },
      requests: 3,
    },
    async (t) => {
      const { clientId, clientSecret } = t.target.oauth!;
      const { exchange, answer } = await requestToken(
        t,
        { grant_type: 'client_credentials', scope: 'read:balance' },
        basicAuthorization(clientId, clientSecret),
      );
      const problem = tokenProblem(exchange, answer, 'HTTP Basic with scope=read:balance');
      if (problem !== undefined) return t.fail(problem);
      const token = answer.access_token as string;
      const cacheable = noStoreProblem(exchange.responseHeaders);
      t.verify('AUTH-OAUTH-NO-STORE', cacheable === undefined, cacheable ?? '');
      t.observe('AUTH-OAUTH-NO-STORE', `the token answer carries ${pragmaReading(exchange.responseHeaders)}`);
      t.observe(
        'AUTH-OAUTH-TOKEN-LIFETIME',
        `expires_in is ${JSON.stringify(answer.expires_in)}; granted scope ${JSON.stringify(answer.scope)}`,
      );
      const balance = await t.call({ method: 'GET', path: '/balance', token });
      t.verify(
        ['AUTH-OAUTH-CLIENT-CREDENTIALS', 'AUTH-OAUTH-SAME-SCOPES'],
        balance.status === 200,
        `GET /balance with an OAuth token granted read:balance: expected 200, got ${codeOf(balance)}`,
      );
      const cdrs = await t.call({ method: 'GET', path: '/cdrs', token });
      t.verify(
        'AUTH-OAUTH-SAME-SCOPES',
        cdrs.status === 401 && (cdrs.json as { error?: unknown } | undefined)?.error === 'unauthorized',
        `GET /cdrs with an OAuth token granted only read:balance: expected 401 unauthorized, got ${codeOf(cdrs)}`,
      );
    },
  );

  // The body method (client_secret_post) is optional (RFC 6749 §2.3.1: MAY, NOT RECOMMENDED):
  // required only when the metadata advertises it; otherwise the answer is recorded. A second proof
  // of its requirements (the Basic grant and the discovery check prove them every run).
  check(
    'A client_credentials grant with the credentials in the body works when the metadata advertises client_secret_post',
    {
      verifies: ['AUTH-OAUTH-CLIENT-CREDENTIALS', 'AUTH-OAUTH-CLIENT-AUTH-METHODS'],
      needs: { oauth: true },
      requests: 2,
      turn: secondProofTurn('OAuth credentials in the body'),
    },
    async (t) => {
      const metadata = await metadataOf(t);
      const advertised = metadata.status === 200 && advertisedAuthMethods(metadata.json).includes('client_secret_post');
      const { clientId, clientSecret } = t.target.oauth!;
      const { exchange, answer } = await requestToken(t, {
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      });
      const problem = tokenProblem(exchange, answer, 'client_id/client_secret in the body');
      const outcome =
        problem === undefined ? 'was accepted' : `was refused: ${exchange.status} ${String(answer.error ?? '')}`;
      t.observe(
        'AUTH-OAUTH-CLIENT-AUTH-METHODS',
        `client_secret_post is ${advertised ? '' : 'not '}advertised; ` +
          `a grant with the credentials in the body ${outcome}`,
      );
      if (advertised)
        t.verify(
          'AUTH-OAUTH-CLIENT-CREDENTIALS',
          problem === undefined,
          `the metadata advertises client_secret_post, but ${problem}`,
        );
    },
  );

  // RFC 6749 §3.3: a server may narrow the scope asked for, never widen it. Asked for the
  // registration and every scope beyond it, a grant is refused, or narrowed and said in `scope`
  // (omitted, it declares the request granted, §5.1); a token then shown to an operation needing
  // a scope beyond the registration gets 401.
  check(
    "A client_credentials grant asking for more than the client's registered scopes yields no token " +
      'that carries or exercises more',
    {
      verifies: ['AUTH-OAUTH-NO-WIDENING'],
      needs: { oauth: true, oauthScopes: true },
      requests: 2,
    },
    async (t) => {
      const { clientId, clientSecret, scopes: registered = [] } = t.target.oauth!;
      const plan = wideningPlan(registered, scopes, operations);
      if (plan.beyond.length === 0)
        return t.notVerifiable('OAUTH_CLIENT_SCOPES names every scope of the spec: no grant can ask for more');
      const requested = plan.request.join(' ');
      const { exchange, answer } = await requestToken(
        t,
        { grant_type: 'client_credentials', scope: requested },
        basicAuthorization(clientId, clientSecret),
      );
      const refusal = `${exchange.status} ${String(answer.error ?? '')}`.trim();
      if (typeof answer.access_token !== 'string' || answer.access_token === '') {
        if (answer.error === 'invalid_client')
          return t.notVerifiable(`the token endpoint refused the client itself (${refusal}), not the scope`);
        return t.observe('AUTH-OAUTH-NO-WIDENING', `a grant asking for "${requested}" was refused: ${refusal}`);
      }
      const carried = wideningProblem(answer.scope, plan.request, registered);
      t.verify('AUTH-OAUTH-NO-WIDENING', carried === undefined, carried ?? '');
      t.observe(
        'AUTH-OAUTH-NO-WIDENING',
        `a grant asking for "${requested}" issued a token with scope ${JSON.stringify(answer.scope)}`,
      );
      const op = plan.operation;
      if (op === undefined)
        return t.observe(
          'AUTH-OAUTH-NO-WIDENING',
          `no documented operation needs ${plan.beyond.join(', ')}: what the token exercises is not shown`,
        );
      const probe = await t.call({ ...harmlessRequest(op), token: answer.access_token });
      t.verify(
        'AUTH-OAUTH-NO-WIDENING',
        probe.status === 401 && (probe.json as { error?: unknown } | undefined)?.error === 'unauthorized',
        `${op.key} (needs ${op.scope}, outside the registered "${registered.join(' ')}") with the token of a ` +
          `grant asking for "${requested}": expected 401 unauthorized, got ${codeOf(probe)}`,
      );
    },
  );

  check(
    'A wrong client secret sent with HTTP Basic is refused with 401 invalid_client and yields no token',
    {
      verifies: ['AUTH-OAUTH-BAD-CLIENT'],
      needs: { oauth: true },
      requests: 1,
    },
    async (t) => {
      const { clientId, clientSecret } = t.target.oauth!;
      const { exchange, answer } = await requestToken(
        t,
        { grant_type: 'client_credentials' },
        basicAuthorization(clientId, `${clientSecret}x`),
      );
      t.ensure(
        answer.access_token === undefined,
        'the token endpoint issued an access token for a wrong client secret',
      );
      // RFC 6749 §5.2: with the Authorization header, invalid_client MUST be a 401.
      t.ensure(
        exchange.status === 401 && answer.error === 'invalid_client',
        `a wrong client secret by HTTP Basic: expected 401 invalid_client (RFC 6749 §5.2), got ` +
          `${exchange.status} ${String(answer.error ?? '')}`,
      );
    },
  );
});
