import { describe } from 'vitest';
import { check, type CheckTools } from '../harness/suite/check.ts';
import { session } from '../harness/suite/session.ts';
import { codeOf, expectError } from '../harness/suite/verdicts.ts';

interface TokenAnswer {
  access_token?: unknown;
  token_type?: unknown;
  expires_in?: unknown;
  scope?: unknown;
  error?: unknown;
}

/** Problems of RFC 8414 metadata served for `authUrl`; empty when it is right. */
export function discoveryProblems(metadata: unknown, authUrl: string): string[] {
  if (metadata === null || typeof metadata !== 'object') return ['the metadata is not a JSON object'];
  const m = metadata as Record<string, unknown>;
  const base = authUrl.replace(/\/+$/, '');
  const problems: string[] = [];
  if (typeof m.issuer !== 'string' || m.issuer.replace(/\/+$/, '') !== base) problems.push(`issuer is ${JSON.stringify(m.issuer)}, must be the auth URL ${base} (RFC 8414 §3.3)`);
  if (typeof m.token_endpoint !== 'string' || !m.token_endpoint.startsWith(`${base}/`)) problems.push(`token_endpoint is ${JSON.stringify(m.token_endpoint)}, must be under ${base}`);
  if (!Array.isArray(m.grant_types_supported) || !m.grant_types_supported.includes('client_credentials')) {
    problems.push(`grant_types_supported is ${JSON.stringify(m.grant_types_supported)}, must include client_credentials`);
  }
  return problems;
}

function basic(id: string, secret: string): string {
  // RFC 6749 §2.3.1: form-urlencode each part before base64.
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}

/** POST {auth_url}/oauth/token; the access token, once seen, is scrubbed from every log. */
async function requestToken(t: CheckTools, form: Record<string, string>, authorization?: string) {
  const exchange = await t.call({ method: 'POST', path: `${t.target.authUrl}/oauth/token`, form, ...(authorization === undefined ? {} : { authorization }) });
  const answer = (exchange.json ?? {}) as TokenAnswer;
  if (typeof answer.access_token === 'string') session().api.redact.remember(answer.access_token);
  return { exchange, answer };
}

function accessToken(t: CheckTools, exchange: { status: number | undefined }, answer: TokenAnswer, how: string): string {
  t.ensure(exchange.status === 200, `the client_credentials grant by ${how} answered ${exchange.status} ${String(answer.error ?? '')}, expected 200 with an access token`);
  t.ensure(typeof answer.access_token === 'string' && answer.access_token !== '', `the client_credentials grant by ${how} answered 200 without an access_token`);
  t.ensure(typeof answer.token_type === 'string' && answer.token_type.toLowerCase() === 'bearer', `token_type is ${JSON.stringify(answer.token_type)}, must be Bearer`);
  return answer.access_token as string;
}

describe('OAuth 2.0 client_credentials', () => {
  check('The auth host serves RFC 8414 metadata naming its issuer, its token endpoint and the client_credentials grant', { verifies: ['AUTH-OAUTH-DISCOVERY'], needs: { oauth: true }, requests: 1 }, async (t) => {
    const exchange = await t.call({ method: 'GET', path: `${t.target.authUrl}/.well-known/oauth-authorization-server` });
    t.expectStatus(exchange, 200);
    const problems = discoveryProblems(exchange.json, t.target.authUrl!);
    t.ensure(problems.length === 0, `the discovery document breaks RFC 8414: ${problems.join('; ')}`);
  });

  check('A client_credentials grant with HTTP Basic client authentication yields a token the API accepts', { verifies: ['AUTH-OAUTH-CLIENT-CREDENTIALS', 'AUTH-OAUTH-TOKEN-LIFETIME'], needs: { oauth: true }, requests: 2 }, async (t) => {
    const { clientId, clientSecret } = t.target.oauth!;
    const { exchange, answer } = await requestToken(t, { grant_type: 'client_credentials' }, basic(clientId, clientSecret));
    const token = accessToken(t, exchange, answer, 'HTTP Basic');
    t.observe('AUTH-OAUTH-TOKEN-LIFETIME', `expires_in is ${JSON.stringify(answer.expires_in)}; granted scope ${JSON.stringify(answer.scope)}; client authentication by HTTP Basic accepted`);
    t.expectStatus(await t.call({ method: 'GET', path: '/me', token }), 200);
  });

  check('A client_credentials grant with the credentials in the body and a narrowed scope yields a token that obeys the same scope rules', { verifies: ['AUTH-OAUTH-CLIENT-CREDENTIALS', 'AUTH-OAUTH-SAME-SCOPES'], needs: { oauth: true }, requests: 3 }, async (t) => {
    const { clientId, clientSecret } = t.target.oauth!;
    const { exchange, answer } = await requestToken(t, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: 'read:balance' });
    const token = accessToken(t, exchange, answer, 'client_id/client_secret in the body');
    t.expectStatus(await t.call({ method: 'GET', path: '/balance', token }), 200);
    const cdrs = await t.call({ method: 'GET', path: '/cdrs', token });
    t.ensure(cdrs.status === 401, `GET /cdrs with an OAuth token granted only read:balance: expected 401 unauthorized, got ${codeOf(cdrs)}`);
    expectError(t, cdrs, 401, 'unauthorized');
  });

  check('A wrong client secret is refused with 401 invalid_client and yields no token', { verifies: ['AUTH-OAUTH-BAD-CLIENT'], needs: { oauth: true }, requests: 1 }, async (t) => {
    const { clientId, clientSecret } = t.target.oauth!;
    const { exchange, answer } = await requestToken(t, { grant_type: 'client_credentials', client_id: clientId, client_secret: `${clientSecret}x` });
    t.ensure(answer.access_token === undefined, 'the token endpoint issued an access token for a wrong client secret');
    t.ensure(exchange.status === 401 && answer.error === 'invalid_client', `a wrong client secret: expected 401 invalid_client (RFC 6749 §5.2), got ${exchange.status} ${String(answer.error ?? '')}`);
  });
});
