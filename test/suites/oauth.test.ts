import { describe, expect, it } from 'vitest';
import { operations, scopes } from '../../contract/openapi.ts';
import {
  advertisedAuthMethods,
  basicAuthorization,
  discoveryProblems,
  grantedScope,
  noStoreProblem,
  normalisedUrl,
  pragmaReading,
  tokenEndpointProblem,
  wideningPlan,
  wideningProblem,
} from '../../suites/rules/oauth.ts';

const AUTH = 'https://auth.example.invalid';
const good = {
  issuer: AUTH,
  token_endpoint: `${AUTH}/oauth/token`,
  grant_types_supported: ['client_credentials'],
};

describe('oauth.suite.ts: discoveryProblems (AUTH-OAUTH-DISCOVERY)', () => {
  it('finds nothing wrong with metadata naming the issuer, a token endpoint under it and the grant', () => {
    expect(discoveryProblems(good, AUTH)).toEqual([]);
    // Trailing slashes on either side are the same URL.
    expect(discoveryProblems({ ...good, issuer: `${AUTH}/` }, `${AUTH}/`)).toEqual([]);
  });

  it('refuses metadata that is not an object', () => {
    expect(discoveryProblems(null, AUTH)).toEqual(['the metadata is not a JSON object']);
    expect(discoveryProblems('{}', AUTH)).toEqual(['the metadata is not a JSON object']);
  });

  it('names a wrong issuer, a token endpoint elsewhere and a missing client_credentials grant', () => {
    const problems = discoveryProblems(
      {
        issuer: 'https://other.invalid',
        token_endpoint: 'https://other.invalid/token',
        grant_types_supported: ['password'],
      },
      AUTH,
    );
    expect(problems).toEqual([
      `issuer is "https://other.invalid", must be the auth URL ${AUTH} (RFC 8414 §3.3)`,
      `token_endpoint is "https://other.invalid/token", must be under ${AUTH}`,
      'grant_types_supported is ["password"], must include client_credentials',
    ]);
  });

  it('takes neither the auth URL itself nor a sibling host with the same prefix as a token endpoint under it', () => {
    expect(discoveryProblems({ ...good, token_endpoint: AUTH }, AUTH)).toHaveLength(1);
    expect(discoveryProblems({ ...good, token_endpoint: `${AUTH}.evil/token` }, AUTH)).toHaveLength(1);
    expect(discoveryProblems({ ...good, grant_types_supported: undefined }, AUTH)).toHaveLength(1);
  });
});

describe('oauth.suite.ts: advertisedAuthMethods (AUTH-OAUTH-CLIENT-AUTH-METHODS)', () => {
  it('reads the advertised methods, keeping only strings', () => {
    expect(
      advertisedAuthMethods({
        token_endpoint_auth_methods_supported: ['client_secret_post', 7, 'client_secret_basic'],
      }),
    ).toEqual(['client_secret_post', 'client_secret_basic']);
    expect(advertisedAuthMethods({ token_endpoint_auth_methods_supported: [] })).toEqual([]);
  });

  it('defaults to client_secret_basic when the field is omitted (RFC 8414 §2)', () => {
    expect(advertisedAuthMethods({})).toEqual(['client_secret_basic']);
    expect(advertisedAuthMethods(null)).toEqual(['client_secret_basic']);
  });
});

describe('oauth.suite.ts: tokenEndpointProblem (AUTH-OAUTH-METADATA-TOKEN-ENDPOINT)', () => {
  it('accepts {auth_url}/oauth/token in every form RFC 3986 §6.2.2 makes equivalent', () => {
    for (const token_endpoint of [
      `${AUTH}/oauth/token`,
      'HTTPS://Auth.Example.INVALID/oauth/token',
      'https://auth.example.invalid:443/oauth/token',
      'https://auth.example.invalid/oauth/./token',
      'https://auth.example.invalid/%6Fauth/token',
    ])
      expect(tokenEndpointProblem({ token_endpoint }, `${AUTH}/`), token_endpoint).toBeUndefined();
    expect(
      tokenEndpointProblem({ token_endpoint: 'http://127.0.0.1:8080/t/oauth/token' }, 'http://127.0.0.1:8080/t'),
    ).toBe(undefined);
  });

  it('names a token endpoint elsewhere: another path, a trailing slash, a query, another port, scheme or host', () => {
    for (const token_endpoint of [
      `${AUTH}/token`,
      `${AUTH}/oauth/token/`,
      `${AUTH}/oauth/Token`,
      `${AUTH}/oauth/token?tenant=1`,
      'https://auth.example.invalid:8443/oauth/token',
      'http://auth.example.invalid/oauth/token',
      'https://internal.example.invalid/oauth/token',
      '/oauth/token',
      undefined,
    ])
      expect(tokenEndpointProblem({ token_endpoint }, AUTH), String(token_endpoint)).toBe(
        `token_endpoint is ${JSON.stringify(token_endpoint)}, but the spec obtains tokens from ` +
          `{auth_url}/oauth/token, ${AUTH}/oauth/token`,
      );
    expect(tokenEndpointProblem(null, AUTH)).toMatch(/^token_endpoint is undefined/);
  });

  it('normalises escapes of reserved characters to upper case and keeps them escaped', () => {
    expect(normalisedUrl('https://a.invalid/x%2fy')).toBe('https://a.invalid/x%2Fy');
    expect(normalisedUrl('not a url')).toBeUndefined();
  });
});

describe('oauth.suite.ts: grantedScope and wideningProblem (AUTH-OAUTH-NO-WIDENING)', () => {
  const registered = ['read:balance', 'read:cdrs'];
  const asked = ['read:balance', 'read:cdrs', 'read:agents', 'write:calls'];

  it('reads an omitted scope as exactly the request (RFC 6749 §5.1) and a given one as its tokens', () => {
    expect(grantedScope(undefined, asked)).toEqual({ scopes: asked, said: false });
    expect(grantedScope('read:cdrs  read:balance read:cdrs', asked)).toEqual({
      scopes: ['read:cdrs', 'read:balance'],
      said: true,
    });
    expect(grantedScope(['read:cdrs'], asked)).toEqual({
      problem: 'scope is ["read:cdrs"], not a space-delimited string (RFC 6749 §3.3)',
    });
  });

  it('accepts a grant narrowed to the registration, to part of it or to nothing, said in scope in any order', () => {
    expect(wideningProblem('read:cdrs read:balance', asked, registered)).toBeUndefined();
    expect(wideningProblem('read:balance', asked, registered)).toBeUndefined();
    expect(wideningProblem('', asked, registered)).toBeUndefined();
    // An omitted scope grants the request: fine when the request held nothing beyond the registration.
    expect(wideningProblem(undefined, registered, registered)).toBeUndefined();
  });

  it('names the scopes a token carries beyond the registration, said or implied by an omitted scope', () => {
    expect(wideningProblem('read:balance read:cdrs read:agents', asked, registered)).toBe(
      'a grant asking for "read:balance read:cdrs read:agents write:calls" (registered: "read:balance read:cdrs") ' +
        'issued a token with scope "read:balance read:cdrs read:agents": read:agents beyond the registration',
    );
    // Scope tokens are case-sensitive (RFC 6749 §3.3): READ:BALANCE is not a registered scope.
    expect(wideningProblem('READ:BALANCE', asked, registered)).toMatch(/READ:BALANCE beyond the registration$/);
    expect(wideningProblem(undefined, asked, registered)).toMatch(
      /without `scope`, .*declares read:agents, write:calls granted beyond the registration/,
    );
    expect(wideningProblem(42, asked, registered)).toMatch(/says nothing readable .*scope is 42/);
  });
});

describe('oauth.suite.ts: wideningPlan', () => {
  it('asks for the registration and every scope beyond it, shown by a read where one needs such a scope', () => {
    const plan = wideningPlan(['read:balance', 'read:cdrs'], scopes, operations);
    expect(plan.beyond).toEqual(['read:agents', 'read:numbers', 'read:invoices', 'write:calls', 'write:hooks']);
    expect(plan.request).toEqual(['read:balance', 'read:cdrs', ...plan.beyond]);
    expect(plan.operation?.key).toBe('GET /agents');
  });

  it('falls back to DELETE, then POST, and to no operation when only undocumented scopes lie beyond', () => {
    const reads = scopes.filter((s) => s.startsWith('read:'));
    expect(wideningPlan([...reads, 'write:calls'], scopes, operations).operation?.key).toBe('DELETE /hooks/{id}');
    expect(wideningPlan([...reads, 'write:hooks'], scopes, operations).operation?.key).toBe('POST /calls');
    const documented = scopes.filter((s) => s !== 'read:numbers' && s !== 'read:invoices');
    const onlyUndocumented = wideningPlan(documented, scopes, operations);
    expect(onlyUndocumented.beyond).toEqual(['read:numbers', 'read:invoices']);
    expect(onlyUndocumented.operation).toBeUndefined();
    expect(wideningPlan(scopes, scopes, operations).beyond).toEqual([]);
  });
});

describe('a token answer is not to be stored (RFC 6749 §5.1)', () => {
  it('wants no-store among the Cache-Control directives, in any case', () => {
    expect(noStoreProblem({ 'cache-control': 'no-store' })).toBeUndefined();
    expect(noStoreProblem({ 'cache-control': 'private, No-Store' })).toBeUndefined();
    expect(noStoreProblem({ 'cache-control': 'no-cache' })).toMatch(/Cache-Control: no-cache/);
    expect(noStoreProblem({})).toMatch(/no Cache-Control/);
    expect(pragmaReading({ pragma: 'no-cache' })).toBe('Pragma: no-cache');
    expect(pragmaReading({})).toBe('no Pragma header');
  });

  it('writes HTTP Basic client authentication form-urlencoded (RFC 6749 §2.3.1)', () => {
    expect(basicAuthorization('a b', 'c:d')).toBe(`Basic ${Buffer.from('a+b:c%3Ad').toString('base64')}`);
  });
});
