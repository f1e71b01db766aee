/**
 * Client of the test-control protocol (control-openapi.json) that any target may offer at
 * CONTROL_URL: the embedded reference is just a target that offers every capability, reached
 * through this same client.
 *
 * Two layers: `createControlTransport` speaks the protocol (one endpoint, its bearer token,
 * bounded requests, one-line errors that never carry a secret); `createControlClient` is what
 * a check holds as `t.control`: the typed methods the suites call, each a state or an
 * inspection, refused unless the check declared it in `needs.control` (or asked `offers()`
 * first), with every setup journalled and torn down after the check.
 */
import { request } from '../http/undici.ts';
import { type RetryOptions, TransportFailure, withTransportRetries } from '../http/transport.ts';
import {
  CONTROL_PROTOCOL,
  isControlInspection,
  isControlState,
  type ControlCapability,
  type ControlInspection,
  type ControlState,
} from '../../contract/control.ts';
import type { ClockReading } from './target-clock.ts';

export interface ControlEndpoint {
  /** CONTROL_URL, without a trailing slash. */
  readonly url: string;
  /** CONTROL_TOKEN (a secret). */
  readonly token: string;
}

export type Values = Readonly<Record<string, unknown>>;

export interface Capabilities {
  readonly states: readonly ControlState[];
  readonly inspections: readonly ControlInspection[];
}

/** A protocol request that did not succeed; `message` is one line, free of secrets. */
export class ControlError extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = 'ControlError';
    this.status = status;
  }
}

export interface ControlTransport {
  capabilities(): Promise<Capabilities>;
  setup(state: ControlState, params: Values): Promise<Values>;
  teardown(state: ControlState, params: Values, values: Values): Promise<void>;
  /** undefined when the target answers 404 not_found (no such hook, token or call). */
  inspect(name: ControlInspection, params?: Values): Promise<Values | undefined>;
}

const TIMEOUT_MS = 15_000; // deliveries-idle may wait up to 10 s on the server

function describeAnswer(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    const parts = [
      String(status),
      typeof body.error === 'string' ? body.error : '',
      typeof body.message === 'string' ? `(${body.message.slice(0, 200)})` : '',
    ];
    return parts.filter((p) => p !== '').join(' ');
  } catch {
    return `${status} with a body that is not JSON`;
  }
}

/** How a control request meets the network (../http/transport.ts). */
export interface ControlExchangeOptions {
  /**
   * Safe to send again whatever became of it: a GET, an inspection (a look that changes nothing),
   * a teardown (the protocol makes it idempotent). A setup is sent again only when it never arrived.
   */
  readonly repeatable?: boolean;
  /** Retries and their pauses; default ../http/transport.ts's. START_UP_PATIENCE at the run's start. */
  readonly patience?: Pick<RetryOptions, 'retries' | 'delayMs'>;
}

export { START_UP_PATIENCE } from '../http/transport.ts';

/**
 * One request to a control endpoint as it is sent (the caller chooses the headers: the client
 * sends its token, `occ control-check` also sends none or a wrong one) and its answer, the body
 * parsed where it is JSON. A transport failure that retrying did not mend throws a
 * TransportFailure naming CONTROL_URL (the network's, never a verdict); a URL that cannot be
 * asked at all throws a ControlError (a configuration matter).
 */
export async function controlExchange(
  url: string,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: string,
  options: ControlExchangeOptions = {},
): Promise<{ status: number; json: unknown; text: string }> {
  const once = async () => {
    const response = await request(`${url}${path}`, {
      method,
      headers,
      body,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    return { status: response.statusCode, text: await response.body.text() };
  };
  let answer: { status: number; text: string };
  try {
    answer = await withTransportRetries(once, {
      repeatable: options.repeatable ?? method === 'GET',
      ...options.patience,
    });
  } catch (error) {
    if (error instanceof TransportFailure)
      throw new TransportFailure(error.kind, `${method} ${path}: no answer from CONTROL_URL: ${error.message}`);
    const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ControlError(`${method} ${path}: no answer from CONTROL_URL (${cause})`);
  }
  let json: unknown;
  try {
    json = answer.text === '' ? undefined : JSON.parse(answer.text);
  } catch {
    json = undefined;
  }
  return { ...answer, json };
}

export function createControlTransport(
  endpoint: ControlEndpoint,
  patience?: ControlExchangeOptions['patience'],
): ControlTransport {
  const send = async (
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    repeatable = method === 'GET',
  ): Promise<{ status: number; json: unknown; text: string }> => {
    const headers = {
      authorization: `Bearer ${endpoint.token}`,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const answer = await controlExchange(
      endpoint.url,
      method,
      path,
      headers,
      body === undefined ? undefined : JSON.stringify(body),
      { repeatable, ...(patience === undefined ? {} : { patience }) },
    );
    if (answer.status === 401)
      throw new ControlError(
        `${method} ${path} answered 401: CONTROL_TOKEN is missing or wrong for this endpoint`,
        401,
      );
    return answer;
  };
  const object = (json: unknown): Values =>
    json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Values) : {};

  return {
    async capabilities() {
      const { status, json, text } = await send('GET', '/capabilities');
      if (status !== 200) throw new ControlError(`GET /capabilities answered ${describeAnswer(status, text)}`, status);
      const body = object(json);
      if (body.protocol !== CONTROL_PROTOCOL || !Array.isArray(body.states) || !Array.isArray(body.inspections)) {
        throw new ControlError(
          `GET /capabilities is not an ${CONTROL_PROTOCOL} answer ` +
            '({protocol, states, inspections}, see control-openapi.json)',
          status,
        );
      }
      // Names outside protocol version 1 are ignored, as the document says.
      return {
        states: (body.states as unknown[]).filter((s): s is ControlState => typeof s === 'string' && isControlState(s)),
        inspections: (body.inspections as unknown[]).filter(
          (s): s is ControlInspection => typeof s === 'string' && isControlInspection(s),
        ),
      };
    },
    async setup(state, params) {
      const { status, json, text } = await send('POST', '/states', { state, params, action: 'setup' });
      if (status !== 200 || json === null || typeof json !== 'object' || Array.isArray(json)) {
        const answer = status === 200 ? '200 without a JSON object' : describeAnswer(status, text);
        throw new ControlError(`control: setup of ${state} failed: POST /states answered ${answer}`, status);
      }
      return json as Values;
    },
    async teardown(state, params, values) {
      const teardown = { state, params: { ...params, values }, action: 'teardown' };
      const { status, text } = await send('POST', '/states', teardown, true);
      if (status !== 200)
        throw new ControlError(
          `control: teardown of ${state} failed: POST /states answered ${describeAnswer(status, text)}`,
          status,
        );
    },
    async inspect(name, params = {}) {
      const { status, json, text } = await send('POST', '/inspections', { inspection: name, params }, true);
      if (status === 404 && object(json).error === 'not_found') return undefined;
      if (status !== 200)
        throw new ControlError(
          `control: inspection ${name} failed: POST /inspections answered ${describeAnswer(status, text)}`,
          status,
        );
      return object(json);
    },
  };
}

// ── What a check holds ──

export interface HookView {
  readonly id: string;
  readonly status: 'active' | 'disabled';
  readonly disabledReason?: 'deleted' | 'auto_disabled' | null;
  readonly consecutiveFailures: number;
  readonly deliveries: ReadonlyArray<{
    eventId: string;
    state: string;
    nextAttemptAt?: number;
    attempts: ReadonlyArray<{ attempt: number; at: number; outcome: { kind: string; status?: number } }>;
  }>;
}

export interface TokenUsage {
  /** ISO date-time of the last authenticated request, null when never used. */
  readonly lastUsedAt: string | null;
  readonly revoked: boolean;
}

/** What an account state gives the check: a token of such an account, and an agent of it when the state names one. */
export interface AccountStateValues {
  readonly token: string;
  readonly agentId?: string;
}

export interface ControlClient {
  /** Whether the target offers it; a check may then use it without declaring it in needs. */
  offers(capability: ControlCapability): boolean;
  /** Sets up a state for this check (torn down after it); the values it returned. */
  state(name: ControlState, params?: Values): Promise<Values>;
  /** A state that returns a token (and, for most, an agent id) of an account in that condition. */
  account(
    name:
      | 'account-suspended'
      | 'account-without-trunk'
      | 'account-without-dialer'
      | 'agent-not-provisioned'
      | 'balance-upstream-failing'
      | 'originate-failing'
      | 'engine-not-configured',
  ): Promise<AccountStateValues>;
  /**
   * Emits an event: `eventId` is the event of the requested kind, `eventIds` every event the
   * setup emitted (a call-shaped set), eventId among them. Checks count only deliveries of
   * these: the target may deliver other events of the account to the same subscriptions.
   */
  emit(
    event: string,
    fields?: Record<string, unknown>,
    account?: string,
  ): Promise<{ eventId: string; eventIds: readonly string[]; deliveries: number | undefined }>;
  /** Moves the target's virtual clock, reading it first (a bound of what the timers that fire sign with). */
  advanceClock(ms: number): Promise<void>;
  mintToken(scopes: readonly string[]): Promise<string>;
  revokeToken(token: string): Promise<void>;
  hook(id: string): Promise<HookView | undefined>;
  /** Waits (bounded by the target, 10 s) until no delivery attempt is in flight or due; false when it gave up. */
  idle(): Promise<boolean>;
  /**
   * Lets a stray delivery arrive before a check counts what arrived: until the target's
   * deliveries are idle where it offers deliveries-idle (nothing in flight or due, so whatever
   * was coming has come; the receiver records a delivery before it answers), else `ms` of wall time.
   */
  settle(ms: number): Promise<void>;
  /** The target's now, in epoch ms. */
  clock(): Promise<number>;
  tokenUsage(token: string): Promise<TokenUsage | undefined>;
  /** The target's record of a call (statuses it went through); undefined when unknown. */
  call(callId: string): Promise<Record<string, unknown> | undefined>;
}

export interface ControlScope {
  readonly transport: ControlTransport | undefined;
  readonly offered: ReadonlySet<ControlCapability>;
  /** What the check declared in needs.control. */
  readonly declared: readonly ControlCapability[];
  /** Called after a setup succeeded, so the check tears it down (and a journal can, if the run dies). */
  onSetup(state: ControlState, params: Values, values: Values): Promise<void> | void;
  /** A secret met in a state's values (a token), for redaction. */
  remember(secret: string): void;
  /** A reading of the target's clock (the clock inspection, clock-advanced's answer): ./target-clock.ts. */
  onClockReading?(reading: Omit<ClockReading, 'url'>): Promise<void> | void;
  /**
   * Takes the gate's `alone` claim before the clock moves, for a check that advances it without
   * declaring clock-advanced (a wait for a call: ./call-clock.ts); a no-op when already held.
   */
  claimAlone?(): Promise<void>;
  fail(message: string): never;
}

/**
 * Wall-clock times (ms) at which this run moved the target's virtual clock (clock-advanced). A
 * retry a target had scheduled then fires at once: real-time intervals seen across such a jump
 * say nothing about its backoff, and checks that time deliveries by the wall clock ask here.
 */
const clockAdvances: number[] = [];

/** Whether this run advanced the target's virtual clock between the two wall-clock times. */
export function targetClockAdvancedBetween(fromMs: number, tillMs: number): boolean {
  return clockAdvances.some((at) => at >= fromMs && at <= tillMs);
}

export function createControlClient(scope: ControlScope): ControlClient {
  const allowed = new Set<ControlCapability>(scope.declared);
  const transport = (capability: ControlCapability): ControlTransport => {
    if (scope.transport === undefined)
      return scope.fail(
        `check bug: control ${capability} used without CONTROL_URL ` +
          '(declare it in needs.control, or ask offers() first)',
      );
    if (!allowed.has(capability))
      return scope.fail(
        `check bug: control ${capability} used but not declared in needs.control (or asked with offers())`,
      );
    return scope.transport;
  };
  const state = async (name: ControlState, params: Values = {}): Promise<Values> => {
    const values = await transport(name).setup(name, params);
    if (typeof values.token === 'string') scope.remember(values.token);
    await scope.onSetup(name, params, values);
    return values;
  };
  const inspect = (name: ControlInspection, params?: Values) => transport(name).inspect(name, params);
  const need = <T>(value: unknown, what: string, state: string, guard: (v: unknown) => v is T): T =>
    guard(value) ? value : scope.fail(`control: setup of ${state} failed: its answer has no ${what}`);
  const isString = (v: unknown): v is string => typeof v === 'string' && v !== '';

  const offers = (capability: ControlCapability): boolean => {
    const offered = scope.transport !== undefined && scope.offered.has(capability);
    if (offered) allowed.add(capability);
    return offered;
  };
  const idle = async (): Promise<boolean> => (await inspect('deliveries-idle'))?.idle === true;
  const readClock = async (): Promise<number> => {
    const sent = Date.now();
    const now = (await inspect('clock'))?.now;
    if (typeof now !== 'number') return scope.fail('control: inspection clock answered without a numeric now');
    await scope.onClockReading?.({ kind: 'clock', sent, answered: Date.now(), now });
    return now;
  };

  return {
    offers,
    state,
    async account(name) {
      const values = await state(name);
      const token = need(values.token, 'token', name, isString);
      return values.agentId === undefined
        ? { token }
        : { token, agentId: need(values.agentId, 'agentId', name, isString) };
    },
    async emit(event, fields, account) {
      const values = await state('event-emitted', {
        event,
        ...(fields === undefined ? {} : { fields }),
        ...(account === undefined ? {} : { account }),
      });
      const eventId = need(values.eventId, 'eventId', 'event-emitted', isString);
      // A single eventId is all a target emitting one event need answer; a set lists every event.
      const listed = Array.isArray(values.eventIds) ? values.eventIds.filter(isString) : [];
      return {
        eventId,
        eventIds: [...new Set(listed.includes(eventId) ? listed : [eventId, ...listed])],
        deliveries: typeof values.deliveries === 'number' ? values.deliveries : undefined,
      };
    },
    async advanceClock(ms) {
      await scope.claimAlone?.();
      // A target offering clock-advanced offers clock too (occ run refuses one that does not).
      if (offers('clock')) await readClock();
      const sent = Date.now();
      const values = await state('clock-advanced', { ms });
      clockAdvances.push(Date.now());
      if (typeof values.now === 'number')
        await scope.onClockReading?.({ kind: 'advance', sent, answered: Date.now(), now: values.now });
    },
    async mintToken(scopes) {
      return need((await state('token-issued', { scopes: [...scopes] })).token, 'token', 'token-issued', isString);
    },
    async revokeToken(token) {
      await state('token-revoked', { token });
    },
    async hook(id) {
      return (await inspect('hook-attempts', { hookId: id })) as HookView | undefined;
    },
    idle,
    async settle(ms) {
      if (offers('deliveries-idle') && (await idle())) return;
      await new Promise((resolve) => setTimeout(resolve, ms));
    },
    clock: readClock,
    async tokenUsage(token) {
      return (await inspect('token-last-used', { token })) as TokenUsage | undefined;
    },
    async call(callId) {
      return (await inspect('call-record', { callId })) as Record<string, unknown> | undefined;
    },
  };
}
