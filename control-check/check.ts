/**
 * `occ control-check`: verifies a target's test-control endpoint (CONTROL_URL, CONTROL_TOKEN)
 * against control-openapi.json before any run, so that a broken endpoint is found for what it is
 * rather than as false verdicts of the checks that use it.
 *
 * What it sends, a bounded number of requests:
 * authentication (401 without a token and with a wrong one), GET /capabilities (its schema, and
 * clock with clock-advanced), the documented errors (400 for a body that is not a JSON object, 404
 * for names the endpoint does not list, 422 for params a state or inspection cannot use), one setup
 * and two teardowns of each offered state with the values the setup returned (idempotent), one
 * teardown without values, and each offered inspection. Every answer is validated with ajv against
 * the schemas the document names (./schemas.ts). An event-emitted setup emits one
 * dnc.added event to the test account's subscriptions (where it answers eventIds, they list its
 * eventId); clock-advanced is sent with ms 0. 57 requests with everything offered.
 *
 * It prints each rule it checked (named as in the document's x-control-check-rules), then what the
 * endpoint does not offer as a ready-to-fill list with what each would unlock (./unlocks.ts),
 * and writes control-check.json and control-check.junit.xml to the reports directory.
 *
 * `occ run` calls `controlPreflight` (the cheap part: authentication and the capabilities' shape)
 * before any check, and stops on a broken endpoint with one line.
 *
 * Exit codes: 0 no violation; 1 a violation (its rule named); 2 a usage or configuration error, an
 * endpoint that does not answer or does not accept CONTROL_TOKEN (one line on stderr, no stack trace).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import junitModule, { type Builder } from 'junit-report-builder';
import { ConfigError } from '../harness/config/config.ts';
import { loadControlEndpointFromEnvironment } from '../harness/config/environment.ts';
import {
  controlInspections,
  controlStates,
  isControlInspection,
  isControlState,
  type ControlCapability,
  type ControlInspection,
  type ControlState,
} from '../contract/control.ts';
import { createRedactor, type Redactor } from '../harness/http/redact.ts';
import { TransportFailure } from '../harness/http/transport.ts';
import { xmlText } from '../harness/report/junit.ts';
import {
  ControlError,
  controlExchange,
  type ControlExchangeOptions,
  START_UP_PATIENCE,
  type Capabilities,
  type ControlEndpoint,
} from '../harness/seams/control-client.ts';
import {
  CONTROL_DOCUMENT_VERSION,
  CONTROL_PROTOCOL,
  inspectionResults,
  ruleText,
  schemaProblems,
  stateValues,
} from './schemas.ts';
import { unlocksOf, type CapabilityUnlock } from './unlocks.ts';

// CommonJS under Node's ESM loader: the builder is the module's default export.
const junit: Builder = (junitModule as unknown as { default?: Builder }).default ?? (junitModule as unknown as Builder);

export type RuleStatus = 'passed' | 'failed' | 'skipped';

export interface RuleResult {
  /** A rule id of x-control-check-rules. */
  readonly rule: string;
  /** What was sent, e.g. "setup of token-issued". */
  readonly title: string;
  readonly status: RuleStatus;
  readonly detail: string;
}

export interface MissingCapability {
  readonly kind: 'state' | 'inspection';
  readonly name: ControlCapability;
  readonly unlocks: readonly CapabilityUnlock[];
}

export interface ControlCheckReport {
  readonly tool: 'occ control-check';
  readonly document: string;
  readonly protocol: string;
  readonly controlUrl: string;
  readonly checkedAt: string;
  /** What GET /capabilities listed of protocol version 1 (empty when it could not be read). */
  readonly offered: Capabilities;
  /** Names it listed outside protocol version 1 (ignored). */
  readonly ignored: readonly string[];
  readonly results: readonly RuleResult[];
  readonly missing: readonly MissingCapability[];
  /** The rules broken, each once, in the order first broken. */
  readonly violations: readonly string[];
  readonly requests: number;
}

type Json = Record<string, unknown>;

interface SendOptions {
  /** null: no Authorization header; a string: that token instead of CONTROL_TOKEN. */
  readonly token?: string | null;
  readonly body?: string;
  /** Retries of a transport failure (harness/http/transport.ts); START_UP_PATIENCE before a run. */
  readonly patience?: ControlExchangeOptions['patience'];
}

interface Answer {
  readonly status: number;
  readonly json: unknown;
  readonly text: string;
}

const UNKNOWN_NAME = 'occ-control-check-unknown-name';
const wrongToken = (): string => `occ_wrong_${randomBytes(12).toString('base64url')}`;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const errorCode = (answer: Answer): unknown => (isObject(answer.json) ? answer.json.error : undefined);

/** "404 unknown_state (message)", or what stands in for a body that is not an error object. */
function describeAnswer(answer: Answer): string {
  if (!isObject(answer.json)) {
    return `${answer.status} with ${answer.text === '' ? 'an empty body' : 'a body that is not a JSON object'}`;
  }
  const { error, message } = answer.json;
  const parts = [
    String(answer.status),
    typeof error === 'string' ? error : '',
    typeof message === 'string' ? `(${message.slice(0, 200)})` : '',
  ];
  return parts.filter((part) => part !== '').join(' ');
}

/**
 * Sends one control request; `token` null sends none, a string sends that one. Throws a ControlError
 * (a configuration matter) when nothing answers.
 */
async function send(
  endpoint: ControlEndpoint,
  method: 'GET' | 'POST',
  path: string,
  options: SendOptions = {},
): Promise<Answer> {
  const token = options.token === undefined ? endpoint.token : options.token;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  return controlExchange(endpoint.url, method, path, headers, options.body, {
    ...(options.patience === undefined ? {} : { patience: options.patience }),
  });
}

/** The probes and the verdicts of one check of an endpoint. */
class Probe {
  readonly results: RuleResult[] = [];
  requests = 0;
  readonly #endpoint: ControlEndpoint;
  readonly #redact: Redactor;
  readonly #patience: SendOptions['patience'];

  constructor(endpoint: ControlEndpoint, redact: Redactor, patience?: SendOptions['patience']) {
    this.#endpoint = endpoint;
    this.#redact = redact;
    this.#patience = patience;
  }

  async send(method: 'GET' | 'POST', path: string, options: SendOptions = {}): Promise<Answer> {
    this.requests++;
    return send(this.#endpoint, method, path, {
      ...(this.#patience === undefined ? {} : { patience: this.#patience }),
      ...options,
    });
  }

  post(path: '/states' | '/inspections', body: unknown, token?: string | null): Promise<Answer> {
    return this.send('POST', path, { body: JSON.stringify(body), ...(token === undefined ? {} : { token }) });
  }

  /** Remembers the secrets of a state's values (a token), so that nothing prints them. */
  remember(values: unknown): void {
    if (isObject(values) && typeof values.token === 'string') this.#redact.remember(values.token);
  }

  record(rule: string, title: string, status: RuleStatus, detail: string): void {
    ruleText(rule); // a rule the document names
    this.results.push({ rule, title, status, detail: this.#redact(detail) });
  }

  pass(rule: string, title: string, detail: string): void {
    this.record(rule, title, 'passed', detail);
  }
  fail(rule: string, title: string, detail: string): void {
    this.record(rule, title, 'failed', detail);
  }
  skip(rule: string, title: string, detail: string): void {
    this.record(rule, title, 'skipped', detail);
  }

  /** An error answer: its status, its Error shape, its code. */
  expectError(rule: string, title: string, answer: Answer, status: number, code: string): void {
    const wrong = `answered ${describeAnswer(answer)}, expected ${status} ${code}`;
    if (answer.status !== status) {
      this.fail(rule, title, wrong);
      return;
    }
    const shape = isObject(answer.json) ? schemaProblems('Error', answer.json) : ['the body is not a JSON object'];
    if (shape.length > 0) {
      this.fail('CTL-ERROR-SHAPE', title, `the ${status} answer is not {error, message?}: ${shape.join('; ')}`);
      return;
    }
    if (errorCode(answer) !== code) {
      this.fail(rule, title, wrong);
      return;
    }
    this.pass(rule, title, `${status} ${code}`);
  }

  /** A 200 answer whose body conforms to `schema`; the body (an object) when it is one, conforming or not. */
  expectBody(rule: string, title: string, answer: Answer, schema: string): Json | undefined {
    if (answer.status !== 200) {
      this.fail(rule, title, `answered ${describeAnswer(answer)}, expected 200 (${schema})`);
      return undefined;
    }
    const problems = isObject(answer.json) ? schemaProblems(schema, answer.json) : ['the body is not a JSON object'];
    if (problems.length > 0) this.fail(rule, title, `its answer breaks ${schema}: ${problems.join('; ')}`);
    else this.pass(rule, title, `200 ${schema}`);
    return isObject(answer.json) ? answer.json : undefined;
  }

  /** An offered name answered as unknown: the capabilities lie. */
  unknownWhenOffered(kind: 'state' | 'inspection', name: string, title: string, answer: Answer): boolean {
    const code = kind === 'state' ? 'unknown_state' : 'unknown_inspection';
    if (answer.status !== 404 || errorCode(answer) !== code) return false;
    this.fail('CTL-OFFERED-WORKS', title, `answered 404 ${code}, but GET /capabilities lists ${kind} ${name}`);
    return true;
  }
}

// ── The cheap part: authentication and capabilities (also `occ run`'s preflight) ──

interface CapabilitiesRead {
  readonly offered: Capabilities;
  readonly ignored: readonly string[];
  /** Whether the answer could be used to go on (200 and the Capabilities schema). */
  readonly usable: boolean;
}

async function checkCapabilities(probe: Probe): Promise<CapabilitiesRead> {
  const none: CapabilitiesRead = { offered: { states: [], inspections: [] }, ignored: [], usable: false };
  const answer = await probe.send('GET', '/capabilities');
  if (answer.status === 401) {
    throw new ControlError('GET /capabilities answered 401: CONTROL_TOKEN is missing or wrong for this endpoint', 401);
  }
  const title = 'GET /capabilities';
  const body = probe.expectBody('CTL-CAPABILITIES', title, answer, 'Capabilities');
  const wrong = await probe.send('GET', '/capabilities', { token: wrongToken() });
  probe.expectError('CTL-AUTH', 'GET /capabilities with a wrong token', wrong, 401, 'unauthorized');
  const without = await probe.send('GET', '/capabilities', { token: null });
  probe.expectError('CTL-AUTH', 'GET /capabilities without a token', without, 401, 'unauthorized');
  if (body === undefined || schemaProblems('Capabilities', body).length > 0) return none;

  const states = (body.states as string[]).filter(isControlState);
  const inspections = (body.inspections as string[]).filter(isControlInspection);
  const ignored = [...(body.states as string[]), ...(body.inspections as string[])].filter(
    (name) => !isControlState(name) && !isControlInspection(name),
  );
  const clockTitle = 'capabilities: clock-advanced comes with the clock inspection';
  if (!states.includes('clock-advanced')) {
    probe.skip('CTL-CLOCK-WITH-ADVANCE', clockTitle, 'clock-advanced is not offered');
  } else if (inspections.includes('clock')) {
    probe.pass('CTL-CLOCK-WITH-ADVANCE', clockTitle, 'both offered');
  } else {
    probe.fail('CTL-CLOCK-WITH-ADVANCE', clockTitle, 'clock-advanced is offered without the clock inspection');
  }
  return { offered: { states, inspections }, ignored, usable: true };
}

/**
 * `occ run`'s check of CONTROL_URL before any check: authentication and the capabilities' shape
 * (three requests). Throws a ControlError whose message is one line naming the broken rule.
 */
export async function controlPreflight(endpoint: ControlEndpoint): Promise<Capabilities> {
  // The run's first reads: a network that hiccups at the start is retried with backoff, not a verdict.
  const probe = new Probe(endpoint, createRedactor([endpoint.token]), START_UP_PATIENCE);
  const read = await checkCapabilities(probe);
  const broken = probe.results.find((result) => result.status === 'failed');
  if (broken !== undefined) {
    throw new ControlError(
      `the endpoint breaks ${broken.rule} (${ruleText(broken.rule)}): ${broken.title} ` +
        `${broken.detail}; occ control-check lists every rule it breaks`,
    );
  }
  return read.offered;
}

// ── States and inspections ──

/** Params each state is set up with (what the suite sends too); {} for the rest. */
const setupParams: Partial<Record<ControlState, Json>> = {
  'event-emitted': { event: 'dnc.added' },
  'token-issued': { scopes: [] },
  'clock-advanced': { ms: 0 },
};

/** Params a state cannot use: 422 invalid_params. */
const badParams: Partial<Record<ControlState, { params: Json; what: string }>> = {
  'event-emitted': { params: { event: 'call.started' }, what: 'an event kind outside the enumeration' },
  'token-issued': { params: { scopes: 'read:balance' }, what: 'scopes that are not an array' },
  'token-revoked': { params: { token: `occ_no_such_token_${randomUUID()}` }, what: 'a token the target does not know' },
  'clock-advanced': { params: { ms: -1 }, what: 'a negative ms' },
};

/** An inspection's required param, for its 404 not_found and 422 probes. */
const lookupParam: Partial<Record<ControlInspection, string>> = {
  'hook-attempts': 'hookId',
  'token-last-used': 'token',
  'call-record': 'callId',
};

class StateChecks {
  readonly #probe: Probe;
  readonly #offered: Capabilities;
  constructor(probe: Probe, offered: Capabilities) {
    this.#probe = probe;
    this.#offered = offered;
  }

  offers(name: ControlCapability): boolean {
    return (
      (this.#offered.states as readonly string[]).includes(name) ||
      (this.#offered.inspections as readonly string[]).includes(name)
    );
  }

  /** A setup; its values when it answered 200 with a JSON object (conforming or not: a teardown follows). */
  async setup(state: ControlState, params: Json): Promise<Json | undefined> {
    const title = `setup of ${state}`;
    const answer = await this.#probe.post('/states', { state, params, action: 'setup' });
    this.#probe.remember(answer.json);
    if (this.#probe.unknownWhenOffered('state', state, title, answer)) return undefined;
    return this.#probe.expectBody('CTL-SETUP-VALUES', title, answer, stateValues[state]!);
  }

  async teardown(state: ControlState, params: Json, values: Json | undefined, how: string): Promise<void> {
    const title = `teardown of ${state} ${how}`;
    const body = { state, params: values === undefined ? params : { ...params, values }, action: 'teardown' };
    const answer = await this.#probe.post('/states', body);
    if (this.#probe.unknownWhenOffered('state', state, title, answer)) return;
    if (answer.status === 200 && isObject(answer.json)) return this.#probe.pass('CTL-TEARDOWN', title, '200 {}');
    this.#probe.fail('CTL-TEARDOWN', title, `answered ${describeAnswer(answer)}, expected 200 with a JSON object`);
  }

  /** Setup, then `during` while it holds, then two teardowns with its values. */
  async roundTrip(state: ControlState, params: Json, during?: (values: Json) => Promise<void>): Promise<void> {
    const values = await this.setup(state, params);
    if (values === undefined) return;
    if (during !== undefined) await during(values);
    await this.teardown(state, params, values, 'with the values its setup returned');
    await this.teardown(state, params, values, 'repeated (idempotent)');
  }

  async badParams(state: ControlState): Promise<void> {
    const bad = badParams[state];
    if (bad === undefined) return;
    const title = `setup of ${state} with ${bad.what}`;
    const answer = await this.#probe.post('/states', { state, params: bad.params, action: 'setup' });
    this.#probe.remember(answer.json);
    if (this.#probe.unknownWhenOffered('state', state, title, answer)) return;
    this.#probe.expectError('CTL-INVALID-PARAMS', title, answer, 422, 'invalid_params');
    // Set up after all: undone at once (not judged again).
    if (answer.status === 200) {
      await this.#probe.post('/states', { state, params: { ...bad.params, values: answer.json }, action: 'teardown' });
    }
  }

  async inspect(name: ControlInspection, params: Json, title = `inspection ${name}`): Promise<Json | undefined> {
    const answer = await this.#probe.post('/inspections', { inspection: name, params });
    if (this.#probe.unknownWhenOffered('inspection', name, title, answer)) return undefined;
    return this.#probe.expectBody('CTL-INSPECTION-RESULT', title, answer, inspectionResults[name]!);
  }

  /** The 404 not_found of an unknown id and the 422 of a missing param, for an inspection that looks something up. */
  async lookups(name: ControlInspection): Promise<void> {
    const param = lookupParam[name];
    if (param === undefined) return;
    const unknown = name === 'token-last-used' ? `occ_no_such_token_${randomUUID()}` : randomUUID();
    const notFoundTitle = `inspection ${name} of a ${param} the target does not know`;
    const notFound = await this.#probe.post('/inspections', { inspection: name, params: { [param]: unknown } });
    if (!this.#probe.unknownWhenOffered('inspection', name, notFoundTitle, notFound)) {
      this.#probe.expectError('CTL-NOT-FOUND', notFoundTitle, notFound, 404, 'not_found');
    }
    const missingTitle = `inspection ${name} without ${param}`;
    const missing = await this.#probe.post('/inspections', { inspection: name, params: {} });
    if (!this.#probe.unknownWhenOffered('inspection', name, missingTitle, missing)) {
      this.#probe.expectError('CTL-INVALID-PARAMS', missingTitle, missing, 422, 'invalid_params');
    }
  }
}

async function checkRequests(probe: Probe): Promise<void> {
  const unknownState = { state: UNKNOWN_NAME, params: {}, action: 'setup' };
  probe.expectError(
    'CTL-AUTH',
    'POST /states with a wrong token',
    await probe.post('/states', unknownState, wrongToken()),
    401,
    'unauthorized',
  );
  probe.expectError(
    'CTL-AUTH',
    'POST /inspections without a token',
    await probe.post('/inspections', { inspection: UNKNOWN_NAME, params: {} }, null),
    401,
    'unauthorized',
  );
  probe.expectError(
    'CTL-INVALID-REQUEST',
    'POST /states with a body that is not JSON',
    await probe.send('POST', '/states', { body: '{"state": ' }),
    400,
    'invalid_request',
  );
  probe.expectError(
    'CTL-INVALID-REQUEST',
    'POST /inspections with a JSON array',
    await probe.send('POST', '/inspections', { body: '[]' }),
    400,
    'invalid_request',
  );
  probe.expectError(
    'CTL-UNKNOWN-NAME',
    `setup of ${UNKNOWN_NAME}`,
    await probe.post('/states', unknownState),
    404,
    'unknown_state',
  );
  probe.expectError(
    'CTL-UNKNOWN-NAME',
    `inspection ${UNKNOWN_NAME}`,
    await probe.post('/inspections', { inspection: UNKNOWN_NAME, params: {} }),
    404,
    'unknown_inspection',
  );
}

async function checkStatesAndInspections(probe: Probe, offered: Capabilities): Promise<void> {
  const checks = new StateChecks(probe, offered);
  let before: number | undefined;
  if (checks.offers('clock')) {
    const clock = await checks.inspect('clock', {});
    if (clock !== undefined && typeof clock.now === 'number') {
      before = clock.now;
      const title = 'inspection clock: virtual and iso agree';
      const problems: string[] = [];
      const advances = checks.offers('clock-advanced');
      if (clock.virtual !== undefined && clock.virtual !== advances) {
        problems.push(`virtual is ${String(clock.virtual)} while clock-advanced is ${advances ? '' : 'not '}offered`);
      }
      if (typeof clock.iso === 'string' && !(Math.abs(Date.parse(clock.iso) - clock.now) < 1)) {
        problems.push(`iso ${clock.iso} is not the instant of now ${clock.now}`);
      }
      if (problems.length > 0) probe.fail('CTL-INSPECTION-RESULT', title, problems.join('; '));
      else probe.pass('CTL-INSPECTION-RESULT', title, 'consistent');
    }
  }

  for (const state of controlStates) {
    if (!checks.offers(state)) continue;
    await checks.badParams(state);
    if (state === 'token-revoked') continue; // with token-issued's token, below
    const params = setupParams[state] ?? {};
    if (state === 'token-issued') {
      await checks.roundTrip(state, params, (values) => tokenLife(probe, checks, values));
    } else if (state === 'clock-advanced') {
      await checks.roundTrip(state, params, async (values) => {
        const title = 'setup of clock-advanced by 0 ms: now is not before the clock';
        if (before === undefined || typeof values.now !== 'number') return;
        if (values.now >= before) probe.pass('CTL-INSPECTION-RESULT', title, `now ${values.now} ≥ ${before}`);
        else probe.fail('CTL-INSPECTION-RESULT', title, `now ${values.now} is before the clock read first, ${before}`);
      });
    } else if (state === 'event-emitted') {
      await checks.roundTrip(state, params, async (values) => eventIdsListed(probe, values));
    } else {
      await checks.roundTrip(state, params);
    }
  }
  if (checks.offers('token-revoked') && !checks.offers('token-issued')) {
    probe.skip('CTL-SETUP-VALUES', 'setup of token-revoked', 'needs a token to revoke: token-issued is not offered');
  }

  if (checks.offers('deliveries-idle')) await checks.inspect('deliveries-idle', {});
  for (const name of ['hook-attempts', 'call-record', 'token-last-used'] as const) {
    if (checks.offers(name)) await checks.lookups(name);
  }
  for (const name of ['hook-attempts', 'call-record'] as const) {
    if (checks.offers(name)) {
      const what = name === 'call-record' ? 'call' : 'subscription';
      probe.skip('CTL-INSPECTION-RESULT', `inspection ${name} of a known ${what}`, `needs a ${what} made by the API`);
    }
  }

  // A teardown without values (Pact verifiers send none), of a state with the least to undo.
  const quiet: ControlState[] = ['clock-advanced', 'token-revoked', 'event-emitted', ...offered.states];
  const chosen = quiet.find((state) => checks.offers(state));
  if (chosen !== undefined) await checks.teardown(chosen, setupParams[chosen] ?? {}, undefined, 'without values');
}

/**
 * An event-emitted answer that lists eventIds lists eventId among them (EventEmittedValues: every
 * event the setup emitted, the one of the requested kind included). Its schema says the rest:
 * unique, non-empty strings. That eventId is the payload's needs a delivery: not seen here.
 */
export function eventIdsProblem(values: Json): string | undefined {
  const { eventId, eventIds } = values;
  if (!Array.isArray(eventIds) || typeof eventId !== 'string') return undefined;
  return eventIds.includes(eventId) ? undefined : `eventIds ${JSON.stringify(eventIds)} do not list eventId ${eventId}`;
}

function eventIdsListed(probe: Probe, values: Json): void {
  const title = 'setup of event-emitted: eventIds list eventId';
  if (!Array.isArray(values.eventIds)) {
    probe.skip('CTL-SETUP-VALUES', title, 'the answer lists no eventIds (one event)');
    return;
  }
  const problem = eventIdsProblem(values);
  if (problem === undefined) probe.pass('CTL-SETUP-VALUES', title, `${values.eventIds.length} eventIds`);
  else probe.fail('CTL-SETUP-VALUES', title, problem);
}

/** While a token of token-issued is live: its last-used record, then token-revoked's round trip with it. */
async function tokenLife(probe: Probe, checks: StateChecks, issued: Json): Promise<void> {
  const token = issued.token;
  if (typeof token !== 'string' || token === '') return;
  const usage = async (title: string, expect: { revoked: boolean; neverUsed: boolean }): Promise<void> => {
    if (!checks.offers('token-last-used')) return;
    const read = await checks.inspect('token-last-used', { token }, title);
    if (read === undefined) return;
    const consistent = read.revoked === expect.revoked && (!expect.neverUsed || read.lastUsedAt === null);
    const wanted = `revoked ${String(expect.revoked)}${expect.neverUsed ? ', lastUsedAt null' : ''}`;
    if (consistent) probe.pass('CTL-INSPECTION-RESULT', `${title}: ${wanted}`, 'consistent');
    else {
      const got = `reads revoked ${String(read.revoked)}, lastUsedAt ${String(read.lastUsedAt)}`;
      probe.fail('CTL-INSPECTION-RESULT', `${title}: ${wanted}`, got);
    }
  };
  await usage('inspection token-last-used of a token token-issued just gave', { revoked: false, neverUsed: true });
  if (!checks.offers('token-revoked')) return;
  const afterRevocation = () =>
    usage('inspection token-last-used after token-revoked', { revoked: true, neverUsed: true });
  await checks.roundTrip('token-revoked', { token }, afterRevocation);
}

/** Checks an endpoint: every rule, or (preflight) authentication and capabilities only. */
export async function checkControlEndpoint(endpoint: ControlEndpoint): Promise<ControlCheckReport> {
  const checkedAt = new Date().toISOString();
  const probe = new Probe(endpoint, createRedactor([endpoint.token]));
  const read = await checkCapabilities(probe);
  await checkRequests(probe);
  if (read.usable) await checkStatesAndInspections(probe, read.offered);
  const missing: MissingCapability[] = !read.usable
    ? []
    : [
        ...controlStates
          .filter((s) => !read.offered.states.includes(s))
          .map((name) => ({ kind: 'state' as const, name })),
        ...controlInspections
          .filter((i) => !read.offered.inspections.includes(i))
          .map((name) => ({ kind: 'inspection' as const, name })),
      ].map((gap) => ({ ...gap, unlocks: unlocksOf(gap.name) }));
  const violations = [...new Set(probe.results.filter((r) => r.status === 'failed').map((r) => r.rule))];
  return {
    tool: 'occ control-check',
    document: CONTROL_DOCUMENT_VERSION,
    protocol: CONTROL_PROTOCOL,
    controlUrl: endpoint.url,
    checkedAt,
    offered: read.offered,
    ignored: read.ignored,
    results: probe.results,
    missing,
    violations,
    requests: probe.requests,
  };
}

// ── Output ──

const MARK: Record<RuleStatus, string> = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip' };

function unlockLine(unlock: CapabilityUnlock): string {
  const extras = [
    unlock.with.length > 0 ? `with ${unlock.with.join(', ')}` : '',
    unlock.orFixtures === undefined ? '' : `or the fixtures ${unlock.orFixtures}`,
    unlock.note ?? '',
  ].filter((part) => part !== '');
  return `${unlock.requirements.join(', ')}${extras.length > 0 ? ` (${extras.join('; ')})` : ''}`;
}

export function renderText(report: ControlCheckReport): string {
  const { states, inspections } = report.offered;
  const lines = [
    `control-check: ${report.controlUrl} against control-openapi.json ${report.document} (${report.protocol})`,
    `offers ${states.length} of ${controlStates.length} states and ` +
      `${inspections.length} of ${controlInspections.length} inspections` +
      `${states.length + inspections.length > 0 ? '' : ' (or none could be read)'}`,
  ];
  const offered = [...states, ...inspections];
  if (report.ignored.length > 0) lines.push(`ignored (outside protocol version 1): ${report.ignored.join(', ')}`);
  lines.push('');
  for (const r of report.results) lines.push(`  ${MARK[r.status]}  ${r.rule.padEnd(22)} ${r.title}: ${r.detail}`);
  lines.push('');
  if (report.missing.length === 0) {
    if (offered.length > 0) lines.push('Missing: nothing, every state and inspection of version 1 is offered.');
  } else {
    lines.push('Missing: the endpoint does not offer these (implement the ones you can, then run it again):');
    for (const gap of report.missing) {
      const unlocks = gap.unlocks.length === 0 ? ['(unlocks nothing alone)'] : gap.unlocks.map(unlockLine);
      lines.push(`  [ ] ${gap.kind.padEnd(10)} ${gap.name.padEnd(24)} unlocks ${unlocks[0]}`);
      for (const more of unlocks.slice(1)) lines.push(`      ${''.padEnd(10)} ${''.padEnd(24)}     and ${more}`);
    }
  }
  lines.push('');
  const counted = report.results.filter((r) => r.status !== 'skipped').length;
  if (report.violations.length === 0) {
    lines.push(`control-check: ${counted} checks passed, no violation (${report.requests} requests)`);
  } else {
    const failed = report.results.filter((r) => r.status === 'failed').length;
    const broken = report.violations.join(', ');
    lines.push(
      `control-check: ${failed} of ${counted} checks failed, breaking ${broken} ` + `(${report.requests} requests)`,
    );
    for (const rule of report.violations) lines.push(`  ${rule}: ${ruleText(rule)}`);
  }
  return `${lines.join('\n')}\n`;
}

export function renderJunit(report: ControlCheckReport): string {
  const x = (text: string): string => xmlText(text).text;
  const builder = junit.newBuilder().name('occ control-check');
  const suite = builder
    .testSuite()
    .name('control-check')
    .property('control-url', x(report.controlUrl))
    .property('document', report.document)
    .property('protocol', report.protocol);
  for (const r of report.results) {
    const testCase = suite
      .testCase()
      .className(`control-check.${r.rule}`)
      .name(x(`${r.rule}: ${r.title}`))
      .property('rule', x(ruleText(r.rule)));
    if (r.status === 'failed') testCase.failure(x(r.detail));
    else if (r.status === 'skipped') testCase.skipped().standardOutput(x(r.detail));
    else testCase.standardOutput(x(r.detail));
  }
  if (report.missing.length > 0) {
    const missing = builder.testSuite().name('control-check.missing');
    for (const gap of report.missing) {
      const unlocks = gap.unlocks.length === 0 ? 'nothing alone' : gap.unlocks.map(unlockLine).join('; ');
      missing
        .testCase()
        .className('control-check.missing')
        .name(x(`${gap.kind} ${gap.name} not offered`))
        .skipped()
        .standardOutput(x(`would unlock ${unlocks}`));
    }
  }
  return builder.build();
}

// ── The command ──

const usage = `Usage: occ control-check [options]

Verifies the test-control endpoint at CONTROL_URL (bearer CONTROL_TOKEN, from the environment or
.env) against control-openapi.json: authentication, capabilities, the documented errors, a round
trip of each offered state and each offered inspection. Prints what the endpoint does not offer
and what each would unlock, and writes control-check.json and control-check.junit.xml.

  --reports-dir <dir>  where the reports go (default: reports)
  -h, --help           this text

Exit codes: 0 no violation, 1 a violation (its rule named), 2 a usage or configuration error.`;

class UsageError extends Error {}

export async function main(argv: readonly string[]): Promise<number> {
  const config = {
    args: [...argv],
    allowPositionals: false,
    strict: true,
    options: {
      'reports-dir': { type: 'string', default: 'reports' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  } satisfies ParseArgsConfig;
  let values: ReturnType<typeof parseArgs<typeof config>>['values'];
  try {
    values = parseArgs(config).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('\n')[0]} (occ control-check --help)`);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const endpoint = loadControlEndpointFromEnvironment();
  if (endpoint === undefined) {
    throw new ConfigError(
      'CONTROL_URL',
      '',
      'CONTROL_URL is not set: set CONTROL_URL and CONTROL_TOKEN ' +
        "(environment or .env) to the target's test-control endpoint (see control-openapi.json)",
    );
  }
  const report = await checkControlEndpoint(endpoint);
  const dir = resolve(values['reports-dir']);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'control-check.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(dir, 'control-check.junit.xml'), renderJunit(report));
  process.stdout.write(renderText(report));
  process.stdout.write(`control-check: reports in ${dir} (control-check.json, control-check.junit.xml)\n`);
  return report.violations.length === 0 ? 0 : 1;
}

/** The subcommand: usage, configuration and unreachable endpoints are one line and exit 2. */
export async function runAsEntryPoint(argv: readonly string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    const line =
      error instanceof UsageError
        ? error.message
        : error instanceof ConfigError
          ? `configuration error: ${error.message}`
          : error instanceof ControlError
            ? `CONTROL_URL: ${error.message}`
            : error instanceof TransportFailure
              ? `unreachable: ${error.message}`
              : undefined;
    if (line === undefined) throw error;
    process.stderr.write(`control-check: ${line}\n`);
    return 2;
  }
}
