/**
 * Client of the reference server's control API (outside /v1): the suite's way to put the
 * embedded target into the states a staging deployment would need fixtures for.
 */
import { request } from 'undici';

export interface HookView {
  readonly id: string;
  readonly status: 'active' | 'disabled';
  readonly disabledReason?: 'deleted' | 'auto_disabled';
  readonly consecutiveFailures: number;
  readonly deliveries: ReadonlyArray<{ eventId: string; state: string; nextAttemptAt?: number; attempts: ReadonlyArray<{ attempt: number; at: number; outcome: { kind: string; status?: number } }> }>;
}

export interface TokenUsage {
  readonly account: string;
  readonly kind: string;
  readonly label: string;
  /** ISO date-time of the last authenticated request, null when never used. */
  readonly lastUsedAt: string | null;
  readonly revoked: boolean;
}

export interface ControlClient {
  reset(faults?: readonly string[]): Promise<void>;
  setAccount(name: 'main' | 'other' | 'suspended' | 'noTrunk' | 'noDialer', flags: { suspended?: boolean; trunk?: boolean; dialer?: boolean }): Promise<void>;
  setSwitches(switches: { balanceUpstreamFails?: boolean; originateFails?: boolean; engineNotConfigured?: boolean }): Promise<void>;
  emit(event: string, fields?: Record<string, unknown>, account?: string): Promise<{ eventId: string; deliveries: number }>;
  hook(id: string): Promise<HookView | undefined>;
  advanceClock(ms: number): Promise<void>;
  mintToken(account: string, scopes: readonly string[]): Promise<string>;
  revokeToken(token: string): Promise<void>;
  faults(): Promise<Array<{ id: string; violates: string[]; enabled: boolean; description: string }>>;
  /** The reference's record of a call (status timeline); undefined when unknown. */
  call(callId: string): Promise<Record<string, unknown> | undefined>;
  /** Waits (bounded by the server, 10 s real) until no delivery attempt is in flight or due; false when it gave up. */
  idle(): Promise<boolean>;
  /** The reference's virtual now, in ms. */
  clock(): Promise<number>;
  /** Last-used record of one token (never the token itself); undefined when unknown. */
  tokenUsage(token: string): Promise<TokenUsage | undefined>;
}

export function createControlClient(controlUrl: string): ControlClient {
  const call = async <T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; json: T }> => {
    const response = await request(`${controlUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await response.body.text();
    const json = (text === '' ? undefined : JSON.parse(text)) as T;
    if (response.statusCode >= 400 && response.statusCode !== 404) {
      throw new Error(`control API ${method} ${path} answered ${response.statusCode}: ${text.slice(0, 200)}`);
    }
    return { status: response.statusCode, json };
  };
  return {
    async reset(faults) { await call('POST', '/reset', faults === undefined ? {} : { faults }); },
    async setAccount(name, flags) { await call('PATCH', `/accounts/${name}`, flags); },
    async setSwitches(switches) { await call('PUT', '/switches', switches); },
    async emit(event, fields, account) {
      return (await call<{ eventId: string; deliveries: number }>('POST', '/events', { event, ...(fields ? { fields } : {}), ...(account ? { account } : {}) })).json;
    },
    async hook(id) {
      const { status, json } = await call<HookView>('GET', `/hooks/${id}`);
      return status === 404 ? undefined : json;
    },
    async advanceClock(ms) { await call('POST', '/clock/advance', { ms }); },
    async mintToken(account, scopes) { return (await call<{ token: string }>('POST', '/tokens', { account, scopes })).json.token; },
    async revokeToken(token) { await call('DELETE', '/tokens', { token }); },
    async call(callId) {
      const { status, json } = await call<Record<string, unknown>>('GET', `/calls/${encodeURIComponent(callId)}`);
      return status === 404 ? undefined : json;
    },
    async idle() { return (await call<{ idle: boolean }>('POST', '/idle')).json.idle; },
    async clock() { return (await call<{ now: number }>('GET', '/clock')).json.now; },
    async tokenUsage(token) {
      const { json } = await call<{ tokens: Array<TokenUsage & { token?: string }> }>('GET', `/tokens/last-used?token=${encodeURIComponent(token)}`);
      const found = json.tokens[0];
      if (found === undefined) return undefined;
      const { token: _secret, ...usage } = found;
      return usage;
    },
    async faults() { return (await call<{ faults: Array<{ id: string; violates: string[]; enabled: boolean; description: string }> }>('GET', '/faults')).json.faults; },
  };
}
