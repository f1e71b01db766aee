import { describe, expect, it } from 'vitest';
import { advertisedAuthMethods, discoveryProblems } from '../../suites/rules/oauth.ts';

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
