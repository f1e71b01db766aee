/**
 * Suite configuration, what a run needs of its target: validated once, so a bad value stops the
 * run with one line naming the variable and the rule. The settings of how the suite itself runs
 * are ./settings.ts; the one place that reads the process's environment (and `.env`) is
 * ./environment.ts.
 *
 * `loadConfig` is pure over an env record so every rule is testable without touching
 * process.env. Every variable read here is documented in .env.example.
 */
import { E164_PATTERN, NUMERIC_ID_PATTERN, limits, scopes as specScopes } from '../../contract/openapi.ts';
import { parseCliConfig } from '../webhooks/receiver-cli.ts';
import type { ReceiverOptions } from '../webhooks/receiver.ts';
import {
  boolean,
  ConfigError,
  type Env,
  isLoopback,
  parseUrl,
  positiveInteger,
  positiveSeconds,
  read,
  requireHttpsUnlessLoopback,
} from './rules.ts';
import { tokenNames, tokenVariable, type TokenName } from './tokens.ts';

export { ConfigError, positiveSeconds } from './rules.ts';

export type Target =
  | { readonly kind: 'embedded' }
  | { readonly kind: 'remote'; readonly baseUrl: string; readonly authUrl: string | undefined };

export interface SuiteConfig {
  readonly target: Target;
  /** The target's test-control endpoint (CONTROL_URL, CONTROL_TOKEN); never derived from API_BASE_URL. */
  readonly control: { readonly url: string; readonly token: string } | undefined;
  readonly tokens: Readonly<Partial<Record<TokenName, string>>>;
  /** The OAuth client; `scopes`: the ones it is registered for (OAUTH_CLIENT_SCOPES), when configured. */
  readonly oauth: OAuthClientConfig | undefined;
  readonly agents: {
    readonly provisioned?: string;
    readonly unprovisioned?: string;
    readonly foreign?: string;
    /**
     * A provisioned agent of the account of TOKEN_NO_TRUNK / TOKEN_NO_DIALER (only that account's 409 condition holds).
     */
    readonly noTrunk?: string;
    readonly noDialer?: string;
  };
  readonly destinationNumber: string | undefined;
  readonly allowOriginate: boolean;
  readonly webhookPublicUrl: string | undefined;
  /** The local receiver's port and certificate (RECEIVER_*), as `npm run receiver` reads them. */
  readonly receiver: ReceiverOptions;
  /**
   * A receiver deployed as a service next to the target (RECEIVER_URL + RECEIVER_TOKEN), used instead of a local one.
   */
  readonly receiverService: { readonly url: string; readonly token: string } | undefined;
  /** Client-side request budget per rate window; undefined means unthrottled (the embedded reference). */
  readonly requestsPerMinute: number | undefined;
  /**
   * Length of the target's rate-limit window (RATE_LIMIT_WINDOW_MS): the spec's minute, 60 000,
   * unless a stand-in documents a shortened one. The throttle, the passive 429 judge and the k6
   * rate-limit probe all count in it; the suite never assumes another.
   */
  readonly rateWindowMs: number;
  /**
   * The target's limit per that window (RATE_LIMIT_PER_MINUTE; the
   * spec's 100 unless raised on request), for the k6 rate-limit probe.
   */
  readonly rateLimitPerWindow: number;
  /**
   * RATE_LIMIT_SOLE_CLIENT: no other client reaches the target from this run's address during the
   * run, so a 429 while the run sent at most the documented limit in the window before it is the
   * target's (fails RATE-LIMIT-100-PER-MIN). Unset, such a 429 may be a neighbour's budget spent
   * (a shared NAT address, another job): recorded, never a verdict; the k6 probe decides.
   */
  readonly soleClient: boolean;
  readonly requestTimeoutMs: number;
  readonly propertyNumRuns: number;
  /** How long a remote run watches the receiver for deliveries and their retries (WEBHOOK_BUDGET_S). */
  readonly webhookBudgetS: number;
  /**
   * The run's time budget in seconds (RUN_BUDGET_S, `occ run --time-budget`): with the rate it
   * sizes what a remote run sends (harness/scheduling/budget.ts).
   */
  readonly runBudgetS: number;
  /** Send every probe and matrix cell whatever the budget (`occ run --all-probes`). */
  readonly allProbes: boolean;
  /** Every secret the configuration holds, so redaction can scrub them wherever they appear. */
  readonly secrets: readonly string[];
}

export interface OAuthClientConfig {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes?: readonly string[];
}

export const defaults = {
  remoteRequestsPerMinute: 80,
  rateWindowMs: 60_000,
  requestTimeoutMs: 10_000,
  // Two runs per property keep a full remote run with every fixture inside the 150-request budget
  // (five made it 163); the seed changes every run, so nightly runs still cover new cases.
  remotePropertyNumRuns: 2,
  embeddedPropertyNumRuns: 100,
  // Long enough for a real call to ring and hang up and for a few retries at a backoff starting
  // in the tens of seconds; the wait overlaps the other checks of the run.
  webhookBudgetS: 180,
  // The gate-sized run: 150 requests at the default 80 per minute (harness/scheduling/budget.ts).
  runBudgetS: 113,
} as const;

function numericId(env: Env, variable: string): string | undefined {
  const raw = read(env, variable);
  if (raw !== undefined && !NUMERIC_ID_PATTERN.test(raw)) {
    throw new ConfigError(variable, `must be a numeric agent id such as 1042 (got "${raw}")`);
  }
  return raw;
}

/**
 * CONTROL_URL and CONTROL_TOKEN: set together, for a remote target only (the embedded run gets
 * its reference's endpoint from the global set-up); nothing is ever sent to a control endpoint
 * the user did not name.
 */
function controlEndpoint(env: Env, target: Target): SuiteConfig['control'] {
  const raw = read(env, 'CONTROL_URL');
  const token = read(env, 'CONTROL_TOKEN');
  if (raw === undefined) {
    if (token !== undefined)
      throw new ConfigError(
        'CONTROL_TOKEN',
        "is set without CONTROL_URL; set both to use the target's test-control endpoint, or neither",
      );
    return undefined;
  }
  if (target.kind === 'embedded')
    throw new ConfigError(
      'CONTROL_URL',
      'is set without API_BASE_URL; the embedded reference brings its own control endpoint: ' +
        'set API_BASE_URL for a remote target, or unset CONTROL_URL',
    );
  const url = parseUrl('CONTROL_URL', raw);
  requireHttpsUnlessLoopback('CONTROL_URL', url);
  if (url.search !== '' || url.hash !== '')
    throw new ConfigError('CONTROL_URL', 'must not carry a query string or fragment');
  if (token === undefined)
    throw new ConfigError(
      'CONTROL_TOKEN',
      "is required with CONTROL_URL: the bearer token the target's control endpoint expects (see control-openapi.json)",
    );
  if (/\s/.test(token))
    throw new ConfigError('CONTROL_TOKEN', 'must be a bare token without spaces (leave out "Bearer ")');
  return { url: `${url.origin}${url.pathname.replace(/\/+$/, '')}`, token };
}

/**
 * OAUTH_CLIENT_SCOPES: the scopes the OAuth client is registered for, space- or comma-separated,
 * each a scope of the spec's table; only beside OAUTH_CLIENT_ID.
 */
function oauthClientScopes(env: Env, clientId: string | undefined): string[] | undefined {
  const raw = read(env, 'OAUTH_CLIENT_SCOPES');
  if (raw === undefined) return undefined;
  if (clientId === undefined)
    throw new ConfigError(
      'OAUTH_CLIENT_SCOPES',
      'is set without OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET: it names the scopes of that client; set them too',
    );
  const listed = [...new Set(raw.split(/[\s,]+/).filter((s) => s !== ''))];
  const unknown = listed.filter((s) => !specScopes.includes(s));
  if (unknown.length > 0)
    throw new ConfigError(
      'OAUTH_CLIENT_SCOPES',
      `${unknown.map((s) => `"${s}"`).join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not a scope of the spec; ` +
        `list the client's registered scopes among ${specScopes.join(' ')}, separated by spaces`,
    );
  return listed;
}

/** API_BASE_URL and AUTH_URL: a remote target, or the embedded reference when neither is set. */
function targetOf(env: Env): Target {
  const baseUrlRaw = read(env, 'API_BASE_URL');
  if (baseUrlRaw === undefined) {
    if (read(env, 'AUTH_URL') !== undefined)
      throw new ConfigError(
        'AUTH_URL',
        'is set without API_BASE_URL; set both for a remote target, or neither for the embedded reference server',
      );
    return { kind: 'embedded' };
  }
  const url = parseUrl('API_BASE_URL', baseUrlRaw);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/v1')) {
    throw new ConfigError(
      'API_BASE_URL',
      `must end in the version prefix /v1, e.g. ${url.origin}/v1 (got path "${url.pathname}")`,
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigError('API_BASE_URL', 'must not carry a query string or fragment');
  }
  requireHttpsUnlessLoopback('API_BASE_URL', url);
  const authRaw = read(env, 'AUTH_URL');
  let authUrl: string | undefined;
  if (authRaw !== undefined) {
    const auth = parseUrl('AUTH_URL', authRaw);
    requireHttpsUnlessLoopback('AUTH_URL', auth);
    authUrl = auth.href.replace(/\/+$/, '');
  }
  return { kind: 'remote', baseUrl: `${url.origin}${path}`, authUrl };
}

/** Every TOKEN_* fixture that is set, each a bare token. */
function tokensOf(env: Env): Partial<Record<TokenName, string>> {
  const tokens: Partial<Record<TokenName, string>> = {};
  for (const name of tokenNames) {
    const value = read(env, tokenVariable(name));
    if (value === undefined) continue;
    if (/\s/.test(value))
      throw new ConfigError(tokenVariable(name), 'must be a bare token without spaces (leave out "Bearer ")');
    tokens[name] = value;
  }
  return tokens;
}

/** OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET (together or not at all), and OAUTH_CLIENT_SCOPES beside them. */
function oauthClientOf(env: Env): OAuthClientConfig | undefined {
  const clientId = read(env, 'OAUTH_CLIENT_ID');
  const clientSecret = read(env, 'OAUTH_CLIENT_SECRET');
  if ((clientId === undefined) !== (clientSecret === undefined)) {
    throw new ConfigError(
      clientId === undefined ? 'OAUTH_CLIENT_ID' : 'OAUTH_CLIENT_SECRET',
      'OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET go together: set both or neither',
    );
  }
  const clientScopes = oauthClientScopes(env, clientId);
  return clientId !== undefined && clientSecret !== undefined
    ? { clientId, clientSecret, ...(clientScopes === undefined ? {} : { scopes: clientScopes }) }
    : undefined;
}

/** TEST_DESTINATION_NUMBER and ALLOW_ORIGINATE: no call against a remote target without a number to ring. */
function originationOf(env: Env, target: Target): Pick<SuiteConfig, 'destinationNumber' | 'allowOriginate'> {
  const destinationNumber = read(env, 'TEST_DESTINATION_NUMBER');
  if (destinationNumber !== undefined && !E164_PATTERN.test(destinationNumber)) {
    throw new ConfigError(
      'TEST_DESTINATION_NUMBER',
      `must be an E.164 number such as +15005550006 (got "${destinationNumber}")`,
    );
  }
  const allowOriginate = boolean(env, 'ALLOW_ORIGINATE');
  if (allowOriginate && destinationNumber === undefined && target.kind === 'remote') {
    throw new ConfigError(
      'ALLOW_ORIGINATE',
      'is true but TEST_DESTINATION_NUMBER is not set: name the test number calls may ring',
    );
  }
  return { destinationNumber, allowOriginate };
}

/** WEBHOOK_PUBLIC_URL: where a remote target delivers, always https. */
function webhookPublicUrlOf(env: Env): string | undefined {
  const raw = read(env, 'WEBHOOK_PUBLIC_URL');
  if (raw === undefined) return undefined;
  const url = parseUrl('WEBHOOK_PUBLIC_URL', raw);
  if (url.protocol !== 'https:')
    throw new ConfigError('WEBHOOK_PUBLIC_URL', 'must be an https URL: the API only delivers to https targets');
  return url.href.replace(/\/+$/, '');
}

/** The local receiver's RECEIVER_* settings: one reading of them, shared with `npm run receiver`. */
function receiverOf(env: Env): ReceiverOptions {
  const receiverSettings = parseCliConfig(env, []);
  if (!receiverSettings.ok) {
    const variable = /^[A-Z_]+/.exec(receiverSettings.message)?.[0] ?? 'RECEIVER_PORT';
    throw new ConfigError(variable, receiverSettings.message, receiverSettings.message);
  }
  return receiverSettings.options;
}

/** A receiver deployed next to the target, polled over its pull API (README, "Webhooks from CI"). */
function receiverServiceOf(
  env: Env,
  target: Target,
  webhookPublicUrl: string | undefined,
): SuiteConfig['receiverService'] {
  const receiverUrlRaw = read(env, 'RECEIVER_URL');
  const receiverToken = read(env, 'RECEIVER_TOKEN');
  if (receiverUrlRaw === undefined) {
    if (receiverToken !== undefined)
      throw new ConfigError(
        'RECEIVER_TOKEN',
        'is set without RECEIVER_URL: set RECEIVER_URL to the deployed receiver, ' +
          'or unset RECEIVER_TOKEN to use the local receiver',
      );
    return undefined;
  }
  const url = parseUrl('RECEIVER_URL', receiverUrlRaw);
  if (!(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname)))) {
    throw new ConfigError(
      'RECEIVER_URL',
      `must use https: the pull API carries RECEIVER_TOKEN ` +
        `(got ${url.protocol}//${url.host}); plain http only on loopback`,
    );
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '')
    throw new ConfigError(
      'RECEIVER_URL',
      `must be the receiver's origin only, e.g. https://hooks.example.com (got path "${url.pathname}${url.search}")`,
    );
  if (target.kind !== 'remote')
    throw new ConfigError(
      'RECEIVER_URL',
      'is set without API_BASE_URL: a deployed receiver serves a remote target; ' +
        'unset it to run against the embedded reference server',
    );
  if (receiverToken === undefined)
    throw new ConfigError(
      'RECEIVER_URL',
      'is set without RECEIVER_TOKEN: give the bearer token the receiver was started with',
    );
  if (webhookPublicUrl === undefined)
    throw new ConfigError(
      'RECEIVER_URL',
      'is set without WEBHOOK_PUBLIC_URL: give the https address the target delivers to (the receiver, or its proxy)',
    );
  return { url: url.origin, token: receiverToken };
}

/** The windows, the timeouts and the budgets, each with its default for this kind of target. */
function budgetsOf(
  env: Env,
  target: Target,
): Pick<
  SuiteConfig,
  | 'rateWindowMs'
  | 'rateLimitPerWindow'
  | 'soleClient'
  | 'requestTimeoutMs'
  | 'propertyNumRuns'
  | 'webhookBudgetS'
  | 'runBudgetS'
> {
  const remote = target.kind === 'remote';
  const runBudget = read(env, 'RUN_BUDGET_S');
  return {
    rateWindowMs: positiveInteger(env, 'RATE_LIMIT_WINDOW_MS', defaults.rateWindowMs),
    rateLimitPerWindow: positiveInteger(env, 'RATE_LIMIT_PER_MINUTE', limits.requestsPerMinute),
    soleClient: boolean(env, 'RATE_LIMIT_SOLE_CLIENT'),
    requestTimeoutMs: positiveInteger(env, 'REQUEST_TIMEOUT_MS', defaults.requestTimeoutMs),
    propertyNumRuns: positiveInteger(
      env,
      'PROPERTY_NUM_RUNS',
      remote ? defaults.remotePropertyNumRuns : defaults.embeddedPropertyNumRuns,
    ),
    webhookBudgetS: positiveInteger(env, 'WEBHOOK_BUDGET_S', defaults.webhookBudgetS),
    runBudgetS: runBudget === undefined ? defaults.runBudgetS : positiveSeconds('RUN_BUDGET_S', runBudget),
  };
}

/** The whole configuration of a run, validated section by section in the order a user reads .env.example. */
export function loadConfig(env: Env): SuiteConfig {
  const target = targetOf(env);
  const control = controlEndpoint(env, target);
  const tokens = tokensOf(env);
  const oauth = oauthClientOf(env);
  const origination = originationOf(env, target);
  const webhookPublicUrl = webhookPublicUrlOf(env);
  const receiver = receiverOf(env);
  const receiverService = receiverServiceOf(env, target, webhookPublicUrl);
  // Client-side request budget per rate window; unthrottled against the embedded reference.
  const requestsPerMinute = positiveInteger(
    env,
    'REQUESTS_PER_MINUTE',
    target.kind === 'remote' ? defaults.remoteRequestsPerMinute : undefined,
  );
  const agents = {
    provisioned: numericId(env, 'TEST_AGENT_ID'),
    unprovisioned: numericId(env, 'TEST_UNPROVISIONED_AGENT_ID'),
    foreign: numericId(env, 'FOREIGN_AGENT_ID'),
    noTrunk: numericId(env, 'NO_TRUNK_AGENT_ID'),
    noDialer: numericId(env, 'NO_DIALER_AGENT_ID'),
  };
  const budgets = budgetsOf(env, target);
  const secrets = [...Object.values(tokens), oauth?.clientSecret, control?.token, receiverService?.token].filter(
    (value): value is string => value !== undefined,
  );
  return {
    target,
    control,
    tokens,
    oauth,
    agents,
    ...origination,
    webhookPublicUrl,
    receiver,
    receiverService,
    requestsPerMinute,
    ...budgets,
    allProbes: false,
    secrets,
  };
}

/** CONTROL_URL and CONTROL_TOKEN alone, by the rules of a run, for `occ control-check` (no API_BASE_URL needed). */
export function loadControlEndpoint(env: Env): SuiteConfig['control'] {
  return controlEndpoint(env, { kind: 'remote', baseUrl: '', authUrl: undefined });
}
