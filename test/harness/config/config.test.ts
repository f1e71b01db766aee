import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../harness/config/config.ts';
import { tokenVariable } from '../../../harness/config/tokens.ts';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('targets the embedded reference server, unthrottled, when nothing is configured', () => {
    const config = loadConfig({});
    expect(config.target).toEqual({ kind: 'embedded' });
    expect(config.requestsPerMinute).toBeUndefined();
    expect(config.allowOriginate).toBe(false);
  });

  it('throttles a remote target to 80 requests per minute by default and strips a trailing slash', () => {
    const config = loadConfig({ API_BASE_URL: 'https://api.example.com/v1/' });
    expect(config.target).toEqual({ kind: 'remote', baseUrl: 'https://api.example.com/v1', authUrl: undefined });
    expect(config.requestsPerMinute).toBe(80);
    expect(config.propertyNumRuns).toBe(2);
    // The spec's minute and limit unless the configuration says otherwise; never assumed shorter.
    expect(config.rateWindowMs).toBe(60_000);
    expect(config.rateLimitPerWindow).toBe(100);
    expect(
      loadConfig({
        API_BASE_URL: 'https://api.example.com/v1',
        RATE_LIMIT_WINDOW_MS: '2500',
        RATE_LIMIT_PER_MINUTE: '200',
      }),
    ).toMatchObject({ rateWindowMs: 2_500, rateLimitPerWindow: 200, requestsPerMinute: 80 });
  });

  it('maps every token fixture to its variable and collects the secrets for redaction', () => {
    expect(tokenVariable('read:balance')).toBe('TOKEN_READ_BALANCE');
    expect(tokenVariable('noTrunk')).toBe('TOKEN_NO_TRUNK');
    const config = loadConfig({
      TOKEN_ALL: 'tok_all_1234',
      TOKEN_WRITE_HOOKS: 'tok_hooks_5678',
      OAUTH_CLIENT_ID: 'cid',
      OAUTH_CLIENT_SECRET: 'shh-secret',
    });
    expect(config.tokens).toEqual({ all: 'tok_all_1234', 'write:hooks': 'tok_hooks_5678' });
    expect(config.secrets).toEqual(expect.arrayContaining(['tok_all_1234', 'tok_hooks_5678', 'shh-secret']));
  });

  it("reads the OAuth client's registered scopes, space- or comma-separated, once each; absent when unset", () => {
    const client = { OAUTH_CLIENT_ID: 'cid', OAUTH_CLIENT_SECRET: 'shh-secret' };
    expect(loadConfig(client).oauth).toEqual({ clientId: 'cid', clientSecret: 'shh-secret' });
    expect(loadConfig({ ...client, OAUTH_CLIENT_SCOPES: ' read:cdrs, read:balance  read:cdrs ' }).oauth).toEqual({
      ...{ clientId: 'cid', clientSecret: 'shh-secret' },
      scopes: ['read:cdrs', 'read:balance'],
    });
  });

  it.each([
    [{ API_BASE_URL: 'https://api.example.com/v2' }, 'API_BASE_URL', /must end in the version prefix \/v1/],
    [{ API_BASE_URL: 'https://api.example.com' }, 'API_BASE_URL', /must end in the version prefix \/v1/],
    [{ API_BASE_URL: 'http://api.example.com/v1' }, 'API_BASE_URL', /must use https/],
    [{ API_BASE_URL: 'not a url' }, 'API_BASE_URL', /is not a valid URL/],
    [{ API_BASE_URL: 'https://api.example.com/v1?x=1' }, 'API_BASE_URL', /query string/],
    [{ API_BASE_URL: 'https://api.example.com/v1', AUTH_URL: 'http://auth.example.com' }, 'AUTH_URL', /must use https/],
    [{ AUTH_URL: 'https://auth.example.com' }, 'AUTH_URL', /without API_BASE_URL/],
    [{ TEST_AGENT_ID: 'agent-7' }, 'TEST_AGENT_ID', /numeric agent id/],
    [{ FOREIGN_AGENT_ID: '12a' }, 'FOREIGN_AGENT_ID', /numeric agent id/],
    [{ TEST_DESTINATION_NUMBER: '5551234' }, 'TEST_DESTINATION_NUMBER', /E\.164/],
    [{ ALLOW_ORIGINATE: 'maybe' }, 'ALLOW_ORIGINATE', /true or false/],
    [
      { API_BASE_URL: 'https://api.example.com/v1', ALLOW_ORIGINATE: 'true' },
      'ALLOW_ORIGINATE',
      /TEST_DESTINATION_NUMBER is not set/,
    ],
    [{ WEBHOOK_PUBLIC_URL: 'http://tunnel.example.com' }, 'WEBHOOK_PUBLIC_URL', /https/],
    [{ REQUESTS_PER_MINUTE: '0' }, 'REQUESTS_PER_MINUTE', /whole number of at least 1/],
    [{ RUN_BUDGET_S: '0' }, 'RUN_BUDGET_S', /number of seconds above 0/],
    [{ RUN_BUDGET_S: '2m' }, 'RUN_BUDGET_S', /number of seconds above 0/],
    [{ RATE_LIMIT_WINDOW_MS: '2.5s' }, 'RATE_LIMIT_WINDOW_MS', /whole number of at least 1/],
    [{ RATE_LIMIT_PER_MINUTE: '0' }, 'RATE_LIMIT_PER_MINUTE', /whole number of at least 1/],
    [{ REQUEST_TIMEOUT_MS: '1.5' }, 'REQUEST_TIMEOUT_MS', /whole number/],
    [{ OAUTH_CLIENT_ID: 'cid' }, 'OAUTH_CLIENT_SECRET', /go together/],
    [{ OAUTH_CLIENT_SCOPES: 'read:cdrs' }, 'OAUTH_CLIENT_SCOPES', /without OAUTH_CLIENT_ID/],
    [
      { OAUTH_CLIENT_ID: 'cid', OAUTH_CLIENT_SECRET: 's', OAUTH_CLIENT_SCOPES: 'read:cdrs read:calls,admin' },
      'OAUTH_CLIENT_SCOPES',
      /^OAUTH_CLIENT_SCOPES: "read:calls", "admin" are not a scope of the spec; list .* among read:balance /,
    ],
    [{ TOKEN_ALL: 'Bearer abc' }, 'TOKEN_ALL', /without spaces/],
    [{ NO_TRUNK_AGENT_ID: 'x1' }, 'NO_TRUNK_AGENT_ID', /numeric agent id/],
    [{ NO_DIALER_AGENT_ID: '-3' }, 'NO_DIALER_AGENT_ID', /numeric agent id/],
    [
      { CONTROL_URL: 'https://ctl.example.com/_control', CONTROL_TOKEN: 'ctl_secret_1' },
      'CONTROL_URL',
      /without API_BASE_URL/,
    ],
    [{ CONTROL_TOKEN: 'ctl_secret_1' }, 'CONTROL_TOKEN', /without CONTROL_URL/],
    [
      { API_BASE_URL: 'https://api.example.com/v1', CONTROL_URL: 'https://ctl.example.com/_control' },
      'CONTROL_TOKEN',
      /required with CONTROL_URL/,
    ],
    [
      {
        API_BASE_URL: 'https://api.example.com/v1',
        CONTROL_URL: 'http://ctl.example.com/_control',
        CONTROL_TOKEN: 'ctl_secret_1',
      },
      'CONTROL_URL',
      /must use https/,
    ],
    [
      { API_BASE_URL: 'https://api.example.com/v1', CONTROL_URL: 'ctl', CONTROL_TOKEN: 'ctl_secret_1' },
      'CONTROL_URL',
      /is not a valid URL/,
    ],
    [
      {
        API_BASE_URL: 'https://api.example.com/v1',
        CONTROL_URL: 'https://ctl.example.com/_control?k=1',
        CONTROL_TOKEN: 'ctl_secret_1',
      },
      'CONTROL_URL',
      /query string/,
    ],
    [
      {
        API_BASE_URL: 'https://api.example.com/v1',
        CONTROL_URL: 'https://ctl.example.com/_control',
        CONTROL_TOKEN: 'Bearer ctl_secret_1',
      },
      'CONTROL_TOKEN',
      /without spaces/,
    ],
  ])('refuses %j naming %s and the rule', (env, variable, rule) => {
    const error = configError(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(rule);
    expect(error.message.startsWith(`${variable}: `)).toBe(true);
    expect(error.message).not.toContain('\n');
  });

  it('takes CONTROL_URL only as given (never derived from API_BASE_URL) and treats CONTROL_TOKEN as a secret', () => {
    expect(loadConfig({ API_BASE_URL: 'https://api.example.com/v1' }).control).toBeUndefined();
    const config = loadConfig({
      API_BASE_URL: 'https://api.example.com/v1',
      CONTROL_URL: 'https://ctl.example.com/_control/',
      CONTROL_TOKEN: 'ctl_secret_1',
    });
    expect(config.control).toEqual({ url: 'https://ctl.example.com/_control', token: 'ctl_secret_1' });
    expect(config.secrets).toContain('ctl_secret_1');
    expect(
      loadConfig({
        API_BASE_URL: 'http://127.0.0.1:8080/v1',
        CONTROL_URL: 'http://127.0.0.1:8080/_control',
        CONTROL_TOKEN: 'ctl_secret_1',
      }).control?.url,
    ).toBe('http://127.0.0.1:8080/_control');
  });

  it('allows plain http on loopback, for a local vendor server', () => {
    for (const host of ['127.0.0.1:8080', 'localhost:3000', '[::1]:9000']) {
      expect(loadConfig({ API_BASE_URL: `http://${host}/v1` }).target.kind).toBe('remote');
    }
  });

  it('never echoes a token value in a configuration error', () => {
    const error = configError({ TOKEN_ALL: 'Bearer super-secret-value' });
    expect(error.message).not.toContain('super-secret-value');
  });
});

describe('receiver configuration', () => {
  it('reads the receiver variables the way npm run receiver does, and refuses bad ones in one line', () => {
    expect(loadConfig({ RECEIVER_PORT: '8443' }).receiver).toMatchObject({ port: 8443 });
    const error = configError({ RECEIVER_PORT: 'eighty' });
    expect(error.variable).toBe('RECEIVER_PORT');
    expect(error.message).toBe(
      'RECEIVER_PORT="eighty" is not a port number; use an integer 0..65535 (0 = any free port)',
    );
    expect(configError({ RECEIVER_TLS_CERT: '/nope.pem' }).message).toMatch(
      /RECEIVER_TLS_CERT and RECEIVER_TLS_KEY must be set together/,
    );
    expect(configError({ RECEIVER_TLS_CERT: '/nope.pem', RECEIVER_TLS_KEY: '/nope.key' }).message).toMatch(
      /^RECEIVER_TLS_CERT=\/nope.pem cannot be read \(ENOENT\)/,
    );
  });
});
