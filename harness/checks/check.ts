/**
 * `check`: a vitest test that reads like the spec, tagged with the requirement ids it verifies
 * (vitest tags, declared from the catalogue, so an unknown id fails the run), declaring what it
 * needs and how many requests it sends.
 *
 * Every response a check receives through `t.call` is validated against openapi.json for its
 * exact method, path and status; where the spec is silent (x-unspecified) the problems become
 * observations instead of failures.
 */
import { it, type TestContext } from 'vitest';
import type { TokenName } from '../config/tokens.ts';
import { openapi } from '../../contract/openapi.ts';
import { matchPathTemplate } from '../../contract/validator.ts';
import type { ApiRequest, Exchange } from '../http/client.ts';
import type { RawRequest } from '../http/raw.ts';
import type { RequirementId } from '../../requirements/catalogue.ts';
import { randomUUID } from 'node:crypto';
import { createControlClient, type ControlClient } from '../seams/control-client.ts';
import { journalSetup, journalTeardown } from '../run/journal.ts';
import { claimsOf, enterGate, type Pass, requestClaim } from '../scheduling/gate.ts';
import { unverifiable, type AgentRole, type Needs } from './needs.ts';
import type { RunTarget } from '../run/context.ts';
import type { ReceiverClient } from '../seams/receiver-client.ts';
import { session } from '../run/session.ts';
import { shareTallies } from '../run/tallies.ts';
import { describeTransport, detailOf, TransportFailure, transportKindOf } from '../http/transport.ts';
import type { ProbeRotation } from '../scheduling/budget.ts';

export class CheckFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckFailure';
  }
}

/** A check that ran but whose target never showed what it needed (nothing arrived in time). */
class NotVerifiable extends Error {}

/**
 * Whether an error ends a check as not verifiable rather than failed: the target never showed what
 * the rule needs, or the network broke an exchange (a property's predicate that threw one is not a
 * counterexample: ./property.ts hands it on as it is).
 */
export function endsNotVerifiable(error: unknown): boolean {
  return error instanceof NotVerifiable || networkCause(error) !== undefined;
}

/**
 * Why a check's error is the network's, not the target's: a transport failure thrown by any of
 * the run's transports (the control client, a per-IP client, a raw socket; ../http/transport.ts),
 * or undefined for any other error.
 */
function networkCause(error: unknown): string | undefined {
  if (error instanceof CheckFailure || error instanceof NotVerifiable) return undefined;
  const kind = transportKindOf(error);
  if (kind === undefined) return undefined;
  return error instanceof TransportFailure ? error.message : describeTransport(kind, detailOf(error));
}

export interface CallRequest extends ApiRequest {
  /** Skip openapi.json validation (requests outside the documented operations). */
  readonly validate?: boolean;
}

export interface CheckTools {
  readonly target: RunTarget;
  token(name: TokenName): string;
  agent(role: AgentRole): string;
  /** The target's test-control endpoint: the states and inspections declared in needs.control. */
  readonly control: ControlClient;
  readonly receiver: ReceiverClient;
  /** Send a request; a transport failure or a response that breaks openapi.json fails the check. */
  call(request: CallRequest): Promise<Exchange>;
  /**
   * Send the requests at the same moment, each on a connection of its own opened beforehand (a race
   * the target must settle: the near misses' doubles); each answer is judged as `call` judges it.
   */
  callTogether(requests: readonly CallRequest[]): Promise<Exchange[]>;
  /**
   * One request over a socket of its own, its answer's bytes as they came (framing verdicts): the
   * run's throttle and transport discipline as `call`; a 429 or 503 on it ends the check as not verifiable.
   */
  callRaw(request: RawRequest): Promise<Buffer>;
  /** The status (and error code) the spec requires. */
  expectStatus(exchange: Exchange, status: number, errorCode?: string): void;
  /** Fail with a sentence that says what the spec requires and what the target did. */
  fail(message: string): never;
  /** Fail with `message` unless `condition` holds: every requirement the check verifies fails. */
  ensure(condition: boolean, message: string): void;
  /** End as not verifiable: the target never showed what the rule needs (e.g. "not observed within 180 s"). */
  notVerifiable(reason: string): never;
  /**
   * One requirement's verdict, without stopping the check: when `condition` is false the check
   * fails at its end, and the report fails only the requirement(s) named here (`ensure` and
   * `fail` still fail all of them). Each id must be one the check verifies.
   */
  verify(requirement: RequirementId | readonly RequirementId[], condition: boolean, message: string): void;
  observe(requirement: RequirementId, text: string): void;
  /** Runs after the check, pass or fail (deleting what it created). */
  onCleanup(fn: () => Promise<void>): void;
}

/**
 * Whether one check of a group of interchangeable checks runs in this run, and what to record
 * (harness/scheduling/rotation.ts turnOf).
 */
export interface Turn {
  readonly runs: boolean;
  /** Names this run's slice of the group (and what the next seeds send); '' when the group is not rotated. */
  readonly note: string;
}

export interface CheckOptions {
  readonly verifies: readonly [RequirementId, ...RequirementId[]];
  readonly needs?: Needs;
  /** Requests the check sends against a remote target (for --dry-run and the budget). */
  readonly requests: number;
  readonly timeoutMs?: number;
  /**
   * The check's turn in a group of interchangeable checks rotated across remote runs
   * (turnOf): out of turn it sends nothing and is not verifiable, naming the seeds
   * that send it; in turn it records which slice this run sends.
   */
  readonly turn?: Turn;
  /**
   * Its near-miss probes rotated by the budget (rotation.ts probeRotation): the report shows a
   * requirement it passes with probes left to later seeds as a partial pass, and the dry run what
   * the full set would take.
   */
  readonly probes?: ProbeRotation;
  /** Requests it would send with every probe, where that is not `requests` plus its `probes` left out. */
  readonly requestsAll?: number;
  /**
   * The check starts a server of its own and sends nothing to the run's target: it claims nothing
   * at the gate (gate.ts), so a check that runs alone never waits for it.
   */
  readonly ownServer?: true;
  /**
   * The check never looks at what its subscriptions receive, and neither emits events nor
   * originates calls: a POST /hooks of it whose target is the run's own receiver (which answers
   * every delivery it is given a plan for) takes no `webhooks` claim (gate.ts requestClaim).
   * Another check's events reaching those subscriptions change nothing it judges, and no other
   * check looks at its receiver paths.
   */
  readonly unwatchedSubscriptions?: true;
  /**
   * Where an answer that breaks only what openapi.json assumes (x-assumed: the 429 whose shape the
   * spec does not show) is recorded, as an observation and never a failure: the requirement about
   * that answer, e.g. RATE-LIMIT-RESPONSE-SHAPE for a check that sends requests it expects to be
   * refused (expectRateLimit). Default: the first requirement the check verifies.
   */
  readonly assumedAnswersObservedUnder?: RequirementId;
}

/** One requirement's verdict recorded by `t.verify` (task meta `verdicts`). */
export interface RequirementVerdictRecord {
  readonly requirement: string;
  readonly passed: boolean;
  readonly message?: string;
}

/** The failure a check ends with when only `t.verify` verdicts failed: which ids, and why. */
export function verdictFailure(
  verdicts: readonly RequirementVerdictRecord[],
): { requirements: string[]; message: string } | undefined {
  const failed = verdicts.filter((v) => !v.passed);
  if (failed.length === 0) return undefined;
  const requirements = [...new Set(failed.map((v) => v.requirement))];
  const messages = [...new Set(failed.map((v) => `[${v.requirement}] ${v.message ?? 'failed'}`))];
  return { requirements, message: messages.join('\n') };
}

function describeStatus(exchange: Exchange): string {
  if (exchange.status === undefined) return `no response (${exchange.transportError})`;
  const code = (exchange.json as { error?: unknown } | undefined)?.error;
  return typeof code === 'string' ? `${exchange.status} ${code}` : String(exchange.status);
}

function operationOf(request: CallRequest): { method: string; template: string } | undefined {
  if (request.validate === false || /^https?:\/\//.test(request.path)) return undefined;
  const template = matchPathTemplate(request.path);
  if (template === undefined) return undefined;
  const item = (openapi.paths as Record<string, Record<string, unknown>>)[template];
  return item?.[request.method.toLowerCase()] === undefined ? undefined : { method: request.method, template };
}

/**
 * A check's vitest timeout is a hang guard, not a speed limit: every request has a timeout of its
 * own and every wait a bound of its own (EMITTED_DELIVERY_WAIT_MS, the delivery driver's steps), so
 * a check ends by itself. On a busy host a check may wait at the gate and run many times slower
 * than on a quiet one, and a conformant target must not fail for it.
 */
const HANG_GUARD_MS = 60_000;
/**
 * What vitest allows a check beyond its bound: the bound ends the body (runCheck's withinBound),
 * then its clean-ups run (a DELETE or a teardown each), and vitest's own timeout never decides.
 */
const CLEANUP_ALLOWANCE_MS = 30_000;

export function check(title: string, options: CheckOptions, body: (t: CheckTools) => Promise<void>): void {
  const target = session().target;
  const perRequestMs = target.requestsPerMinute === undefined ? 200 : 60_000 / target.requestsPerMinute;
  const bound = Math.max(options.timeoutMs ?? 0, HANG_GUARD_MS, options.requests * perRequestMs * 2 + 10_000);

  const outOfTurn = options.turn !== undefined && !options.turn.runs;
  it(
    title,
    {
      tags: [...options.verifies],
      meta: {
        plannedRequests: outOfTurn ? 0 : options.requests,
        plannedRequestsAll: options.requestsAll ?? options.requests + (options.probes?.leftRequests ?? 0),
        ...(options.probes === undefined || options.probes.sent === options.probes.of
          ? {}
          : { probes: { ...options.probes, left: [...options.probes.left] } }),
      },
      timeout: bound + CLEANUP_ALLOWANCE_MS,
    },
    (ctx: TestContext) => runCheck(ctx, target, { ...options, timeoutMs: bound }, outOfTurn, body),
  );
}

/** Why a check does not run with this configuration (its needs, its turn, a dry run), recorded in its meta. */
function skippedBecause(ctx: TestContext, target: RunTarget, options: CheckOptions, outOfTurn: boolean) {
  const meta = ctx.task.meta;
  const why = unverifiable(options.needs ?? {}, target);
  if (why !== undefined) {
    meta.notVerifiable = why.reason;
    if (why.missingCapabilities.length > 0) meta.missingCapabilities = [...why.missingCapabilities];
    meta.plannedRequests = 0; // it sends nothing with this configuration
    meta.plannedRequestsAll = 0;
    return meta.notVerifiable;
  }
  if (outOfTurn) {
    meta.notVerifiable = `not verifiable: ${options.turn!.note}`;
    return meta.notVerifiable;
  }
  return target.dryRun ? 'dry run' : undefined;
}

/** What a running check holds while its body runs: its gate pass, its verdicts and cleanups, its records. */
interface Running {
  readonly target: RunTarget;
  readonly options: CheckOptions;
  readonly pass: Pass;
  readonly verdicts: RequirementVerdictRecord[];
  readonly cleanups: Array<() => Promise<void>>;
  /** Set once the body overran its bound: its next exchange ends it, nothing more is sent for it. */
  abandoned: boolean;
  /** Redacted here, in the worker, whose client knows the secrets this run met (hook secrets, access tokens). */
  observe(requirement: RequirementId, text: string): void;
  fail(message: string): never;
}

async function runCheck(
  ctx: TestContext,
  target: RunTarget,
  options: CheckOptions,
  outOfTurn: boolean,
  body: (t: CheckTools) => Promise<void>,
): Promise<void> {
  const { api } = session();
  const meta = ctx.task.meta;
  const skipped = skippedBecause(ctx, target, options, outOfTurn);
  if (skipped !== undefined) return ctx.skip(skipped);
  // Waits for the checks this one must not run beside (gate.ts; a no-op when the run is sequential).
  const pass = await enterGate(
    session().context.gated ? session().channel : undefined,
    ctx.task.file.filepath,
    claimsOf(options.needs?.control, options.ownServer === true),
    ctx.signal,
  );
  const firstExchange = api.exchangeCount;
  const statsBefore = api.stats;
  const running: Running = {
    target,
    options,
    pass,
    verdicts: [],
    cleanups: [],
    abandoned: false,
    // The report's writers only ever see redacted text.
    observe(requirement, text) {
      meta.observations ??= [];
      meta.observations.push({ requirement, text: api.redact(text) });
    },
    fail(message) {
      throw new CheckFailure(message);
    },
  };
  meta.verdicts = running.verdicts;
  if (options.turn !== undefined && options.turn.note !== '') running.observe(options.verifies[0], options.turn.note);
  try {
    await withinBound(body(toolsOf(running)), running, () => api.stats.transitMs - statsBefore.transitMs);
    const failed = verdictFailure(running.verdicts);
    if (failed !== undefined) {
      meta.failedRequirements = failed.requirements;
      throw new CheckFailure(failed.message);
    }
  } catch (error) {
    const network = networkCause(error);
    if (error instanceof NotVerifiable || network !== undefined) {
      meta.notVerifiable = api.redact(
        network === undefined
          ? `not verifiable: ${(error as Error).message}`
          : `not verifiable: the network: ${network}`,
      );
      ctx.skip(meta.notVerifiable);
    }
    const { records, omitted } = api.recordsSince(firstExchange);
    meta.exchanges = records.map((record) => ({ ...record }));
    if (omitted > 0) meta.exchangesOmitted = omitted;
    if (error instanceof Error) error.message = api.redact(error.message);
    throw error;
  } finally {
    for (const cleanup of running.cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        running.observe(options.verifies[0], `cleanup failed: ${(error as Error).message}`);
      }
    }
    const statsAfter = api.stats;
    meta.requestCount = statsAfter.requestsSent - statsBefore.requestsSent;
    meta.rateLimited = statsAfter.rateLimited - statsBefore.rateLimited;
    meta.transportFailures = statsAfter.transportErrors - statsBefore.transportErrors;
    meta.retries = statsAfter.retries - statsBefore.retries;
    // The judges of a parallel run read every worker's; a channel gone (the run ending) loses nothing of this check.
    await shareTallies().catch(() => undefined);
    await pass.leave();
  }
}

/**
 * The body, within the check's bound (options.timeoutMs). Past it the body is abandoned (its next
 * exchange ends it) and the check ends: *not verifiable* when at least half the bound went waiting
 * on the network (a slow link or a slow answer is not a verdict: the spec sets no latency), failed
 * otherwise (a hang guard: the check waited on something else).
 */
export async function withinBound(
  work: Promise<void>,
  running: Pick<Running, 'options'> & { abandoned: boolean },
  transitMs: () => number,
): Promise<void> {
  const boundMs = running.options.timeoutMs ?? HANG_GUARD_MS;
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<'overrun'>((resolve) => {
    timer = setTimeout(() => resolve('overrun'), boundMs);
  });
  try {
    if ((await Promise.race([work, overrun])) !== 'overrun') return;
  } finally {
    clearTimeout(timer);
  }
  running.abandoned = true;
  work.catch(() => undefined);
  const waited = transitMs();
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  if (waited >= boundMs / 2)
    throw new NotVerifiable(
      `the network: the check's exchanges took ${seconds(waited)} of its ${seconds(boundMs)} bound ` +
        '(a slow link or slow answers): what it verifies could not be seen in time',
    );
  throw new CheckFailure(
    `the check did not end within its ${seconds(boundMs)} bound (a hang guard, not a speed limit)`,
  );
}

/** The check's control client: every state set up is journalled first, then torn down after the check. */
function controlOf(running: Running): ControlClient {
  const { api, control } = session();
  const { target, options, cleanups, pass } = running;
  return createControlClient({
    transport: control,
    offered: new Set(target.control?.offered ?? []),
    declared: options.needs?.control ?? [],
    async onSetup(state, params, values) {
      const id = randomUUID();
      cleanups.push(async () => {
        await control!.teardown(state, params, values);
        await journalTeardown(id);
      });
      await journalSetup(id, state, params, values);
    },
    remember: (secret) => api.redact.remember(secret),
    onClockReading: (reading) => session().targetClock.record(reading),
    // Moving the clock changes what every other check sees (gate.ts ALONE_STATES).
    claimAlone: () => pass.claim('alone'),
    fail: running.fail,
  });
}

/** `t.call`: the request sent (its gate claim first), its answer validated against openapi.json. */
async function sendChecked(running: Running, request: CallRequest): Promise<Exchange> {
  stopIfAbandoned(running);
  await claimFor(running, request);
  const documented = documentedStatuses(request);
  const retryUnavailable =
    documented !== undefined && !documented.includes('503') && request.retryUnavailable !== false;
  return judged(running, request, await session().api.send({ ...request, retryUnavailable }));
}

/** A body that overran its bound sends nothing more (withinBound). */
function stopIfAbandoned(running: Running): void {
  if (running.abandoned) throw new NotVerifiable('the check overran its bound; nothing more is sent for it');
}

/** The statuses openapi.json documents for the request's operation; undefined outside them. */
function documentedStatuses(request: CallRequest): string[] | undefined {
  const operation = operationOf(request);
  if (operation === undefined) return undefined;
  const item = (openapi.paths as Record<string, Record<string, { responses?: object }>>)[operation.template];
  return Object.keys(item?.[operation.method.toLowerCase()]?.responses ?? {});
}

/** `t.callTogether`: every claim first, then the requests at the same moment, each answer validated. */
async function sendTogetherChecked(running: Running, requests: readonly CallRequest[]): Promise<Exchange[]> {
  stopIfAbandoned(running);
  for (const request of requests) await claimFor(running, request);
  const exchanges = await session().api.sendTogether(requests);
  return exchanges.map((exchange, i) => judged(running, requests[i]!, exchange));
}

/** Subscribing and originating (call.ended follows) share the target's events with every other check (gate.ts). */
async function claimFor(running: Running, request: CallRequest): Promise<void> {
  const { contract } = session();
  const unwatchedReceiver =
    running.options.unwatchedSubscriptions === true ? running.target.receiverPublicUrl : undefined;
  if (
    requestClaim(request, (schema, value) => contract.checkSchema(schema, value).length > 0, unwatchedReceiver) !==
    undefined
  )
    await running.pass.claim('webhooks', request.path === '/calls');
}

/** The exchange, once its answer is validated: a 429, a transport failure or a broken answer ends the check. */
function judged(running: Running, request: CallRequest, exchange: Exchange): Exchange {
  const { api, contract } = session();
  const { options, fail, observe } = running;
  const where = `${request.method} ${request.path}`;
  if (exchange.status === 429 && request.expectRateLimit !== true) {
    // Refused for rate: this check's rule can't be seen; the rate-limit verdict is RATE-LIMIT-100-PER-MIN's.
    const event = api.rateLimitEvents.at(-1);
    throw new NotVerifiable(
      `${where} was refused for rate (429) ` +
        `after ${event?.sentInPrecedingMinute ?? '?'} requests in the preceding 60 s; see RATE-LIMIT-100-PER-MIN`,
    );
  }
  // The network broke the exchange (refused, reset, stalled, a body cut short), and retrying it was
  // not safe or failed again: nothing here is the target's answer (../http/transport.ts).
  if (exchange.transportKind !== undefined) {
    const retried = exchange.retries === undefined ? '' : ` (sent ${exchange.retries + 1} times)`;
    throw new NotVerifiable(`the network: ${where}: ${exchange.transportError}${retried}`);
  }
  if (exchange.status === undefined) fail(`${where}: ${exchange.transportError}`);
  const operation = operationOf(request);
  if (operation !== undefined) {
    const verdict = contract.checkResponse(operation.method, operation.template, {
      status: exchange.status!,
      headers: exchange.responseHeaders,
      rawBody: exchange.rawBody,
      json: exchange.json,
      jsonError: exchange.jsonError,
    });
    if (verdict.problems.length > 0) {
      if (verdict.unspecified) {
        observe(
          options.assumedAnswersObservedUnder ?? options.verifies[0],
          `${verdict.operation} answered ${exchange.status}: ${verdict.problems.join('; ')}`,
        );
      } else {
        fail(
          `${verdict.operation} answered ${describeStatus(exchange)}, which breaks openapi.json:\n` +
            `- ${verdict.problems.join('\n- ')}`,
        );
      }
    }
  }
  if (exchange.transportError !== undefined) fail(`${where}: ${exchange.transportError}`);
  return exchange;
}

/** What a check's body is given. */
function toolsOf(running: Running): CheckTools {
  const { target, options, fail, verdicts, cleanups } = running;
  const { receiver } = session();
  return {
    target,
    token(name) {
      return target.tokens[name] ?? fail(`check bug: token ${name} used but not declared in needs`);
    },
    agent(role) {
      return target.agents[role] ?? fail(`check bug: agent ${role} used but not declared in needs`);
    },
    control: controlOf(running),
    get receiver() {
      return receiver ?? fail('check bug: receiver used but not declared in needs');
    },
    call: (request) => sendChecked(running, request),
    callTogether: (requests) => sendTogetherChecked(running, requests),
    async callRaw(request) {
      stopIfAbandoned(running);
      const bytes = await session().api.sendRaw(request);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(bytes.subarray(0, 16).toString('latin1'))?.[1];
      if (status === '429' || status === '503')
        throw new NotVerifiable(`${request.method} ${new URL(request.url).pathname} was refused for now (${status})`);
      return bytes;
    },
    expectStatus(exchange, status, errorCode) {
      const wanted = errorCode === undefined ? String(status) : `${status} ${errorCode}`;
      const got = describeStatus(exchange);
      if (
        exchange.status !== status ||
        (errorCode !== undefined && (exchange.json as { error?: unknown } | undefined)?.error !== errorCode)
      ) {
        fail(`${exchange.method} ${new URL(exchange.url).pathname}: expected ${wanted}, got ${got}`);
      }
    },
    fail,
    ensure(condition, message) {
      if (!condition) fail(message);
    },
    notVerifiable(reason) {
      throw new NotVerifiable(reason);
    },
    verify(requirement, condition, message) {
      const ids = typeof requirement === 'string' ? [requirement] : [...requirement];
      const foreign = ids.filter((id) => !options.verifies.includes(id));
      if (foreign.length > 0)
        fail(`check bug: verify(${foreign.join(', ')}) names a requirement the check is not tagged with`);
      for (const id of ids) verdicts.push({ requirement: id, passed: condition, ...(condition ? {} : { message }) });
    },
    observe: running.observe,
    onCleanup(fn) {
      cleanups.push(fn);
    },
  };
}
