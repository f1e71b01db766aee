/**
 * The reference server's OWN test API: reference-only routes OUTSIDE /v1, under /_reference,
 * with no authentication and no rate limit: the fault switches, reset, fixtures, and raw views
 * and levers the reference's unit tests and the k6 probes use. It is NOT the test-control
 * protocol (control-openapi.json, ./control-protocol.ts, under /_control) that the suite uses
 * against any target: a vendor never implements faults, and the suite never calls these.
 *
 * Bodies are JSON (an empty body reads as {}); errors are {error, message} with 400 for a bad
 * body or unknown name/id, 404 for an unknown hook or call. Secrets never appear in answers.
 *
 *   POST   /_reference/reset                {faults?: string[]}          → 200 {ok, faults}
 *          back to the seeded state (hooks, calls, minted tokens, switches, rate-limit logs
 *          forgotten); the enabled faults are kept unless `faults` is given (then exactly those).
 *   GET    /_reference/fixtures                                          → 200 ReferenceFixtures
 *   PATCH  /_reference/accounts/:name       {suspended?, trunk?, dialer?} → 200 {name, suspended, trunk, dialer}
 *          :name is main | other | suspended | noTrunk | noDialer.
 *   GET    /_reference/switches                                          → 200 Switches
 *   PUT    /_reference/switches             {balanceUpstreamFails?, originateFails?, engineNotConfigured?}
 *                                                                      → 200 Switches (fields not given unchanged)
 *   POST   /_reference/events               {event, account?: 'main', fields?: {...}}
 *                                                                      → 200 {eventId, deliveries}
 *          emits one event (payload defaults overridden by `fields`) to the account's ACTIVE
 *          subscriptions of that kind through the dispatcher; deliveries = subscriptions reached.
 *   GET    /_reference/hooks/:id                                         → 200 {id, account, event, targetUrl,
 *          status, disabledReason, consecutiveFailures, createdAt, deliveries} (deliveries with attempts)
 *   GET    /_reference/deliveries[?hookId=]                              → 200 {deliveries}
 *   POST   /_reference/idle                                              → 200 {idle: true|false}
 *          waits (at most 10 s real) until no delivery attempt is in flight or due now.
 *   GET    /_reference/calls/:id                                         → 200 CallRecord (status timeline, cdrId)
 *   GET    /_reference/clock                                             → 200 {now, iso, scale}
 *   POST   /_reference/clock/advance        {ms}                         → 200 {now, iso, scale}
 *   GET    /_reference/faults                                            → 200 {faults: [{id, description,
 *          violates, enabled}]}
 *   PUT    /_reference/faults               {enable?: string[], disable?: string[]}
 *                                                                      → 200 {enabled: string[]}
 *          an unknown id → 400 naming it.
 *   POST   /_reference/tokens               {account, scopes}            → 200 {token} (an API token)
 *   DELETE /_reference/tokens               {token}                      → 200 {revoked: true}; unknown → 404
 *          revocation, as "deleted in the portal": refused from the very next request.
 *   GET    /_reference/tokens/last-used[?token=]                         → 200 {tokens: [{token, account, kind,
 *          label, lastUsedAt (ISO or null), revoked}]}
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { eventTypes, scopes as allScopes } from '../contract/openapi.ts';
import type { EventType } from '../contract/openapi.ts';
import { faults as catalogue, UnknownFaultError, unknownFaultIds } from './faults.ts';
import { isJsonContentType, isPlainObject } from './http.ts';
import { accountNames } from './seed.ts';
import type { AccountName } from './seed.ts';
import type { ReferenceStore, Switches } from './store.ts';

export interface ControlHooks {
  /** Extra work of a reset beyond the store (rate-limit logs). */
  onReset(): void;
  fixtures(): unknown;
}

type Body = { ok: true; value: Record<string, unknown> } | { ok: false };

function body(request: FastifyRequest): Body {
  const raw = typeof request.body === 'string' ? request.body : '';
  if (raw.trim() === '') return { ok: true, value: {} };
  if (request.headers['content-type'] !== undefined && !isJsonContentType(request.headers['content-type']))
    return { ok: false };
  try {
    const value: unknown = JSON.parse(raw);
    return isPlainObject(value) ? { ok: true, value } : { ok: false };
  } catch {
    return { ok: false };
  }
}

function bad(reply: FastifyReply, message: string, status = 400): FastifyReply {
  return reply.code(status).send({ error: status === 404 ? 'not_found' : 'invalid_input', message });
}

/** Deep copy without any `secret` key: control answers never carry a signing secret. */
function withoutSecrets(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null, (key, v: unknown) => (key === 'secret' ? undefined : v)));
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

export function registerControl(app: FastifyInstance, store: ReferenceStore, hooks: ControlHooks): void {
  registerState(app, store, hooks);
  registerEvents(app, store);
  registerClock(app, store);
  registerFaults(app, store);
  registerTokens(app, store);
}

/** Reset, fixtures, the accounts' flags and the switches. */
function registerState(app: FastifyInstance, store: ReferenceStore, hooks: ControlHooks): void {
  app.post('/_reference/reset', async (request, reply) => {
    const b = body(request);
    if (!b.ok) return bad(reply, 'the body must be a JSON object');
    const wanted = b.value.faults;
    if (wanted !== undefined) {
      if (!isStringArray(wanted)) return bad(reply, 'faults must be an array of fault ids');
      try {
        store.faults.set(wanted);
      } catch (e) {
        if (e instanceof UnknownFaultError) return bad(reply, e.message);
        throw e;
      }
    }
    await store.reset();
    hooks.onReset();
    return reply.send({ ok: true, faults: store.faults.list() });
  });

  app.get('/_reference/fixtures', (_request, reply) => reply.send(hooks.fixtures()));

  app.patch<{ Params: { name: string } }>('/_reference/accounts/:name', (request, reply) => {
    const name = request.params.name;
    if (!accountNames.includes(name as AccountName))
      return bad(reply, `unknown account ${name}; one of ${accountNames.join(', ')}`);
    const b = body(request);
    if (!b.ok) return bad(reply, 'the body must be a JSON object');
    const account = store.state.accounts.get(name as AccountName)!;
    for (const key of ['suspended', 'trunk', 'dialer'] as const) {
      const v = b.value[key];
      if (v === undefined) continue;
      if (typeof v !== 'boolean') return bad(reply, `${key} must be a boolean`);
    }
    for (const key of ['suspended', 'trunk', 'dialer'] as const) {
      const v = b.value[key];
      if (typeof v === 'boolean') account[key] = v;
    }
    return reply.send({ name, suspended: account.suspended, trunk: account.trunk, dialer: account.dialer });
  });

  app.get('/_reference/switches', (_request, reply) => reply.send(store.switches));

  app.put('/_reference/switches', (request, reply) => {
    const b = body(request);
    if (!b.ok) return bad(reply, 'the body must be a JSON object');
    const keys = ['balanceUpstreamFails', 'originateFails', 'engineNotConfigured'] as const;
    for (const key of Object.keys(b.value)) {
      if (!keys.includes(key as keyof Switches)) return bad(reply, `unknown switch ${key}; one of ${keys.join(', ')}`);
      if (typeof b.value[key] !== 'boolean') return bad(reply, `${key} must be a boolean`);
    }
    for (const key of keys) if (typeof b.value[key] === 'boolean') store.switches[key] = b.value[key];
    return reply.send(store.switches);
  });
}

/** Events emitted, and the raw views of hooks, deliveries and calls. */
function registerEvents(app: FastifyInstance, store: ReferenceStore): void {
  app.post('/_reference/events', (request, reply) => {
    const b = body(request);
    if (!b.ok) return bad(reply, 'the body must be a JSON object');
    const { event, account = 'main', fields = {} } = b.value;
    if (typeof event !== 'string' || !eventTypes.includes(event as EventType))
      return bad(reply, `event must be one of ${eventTypes.join(', ')}`);
    if (typeof account !== 'string' || !accountNames.includes(account as AccountName))
      return bad(reply, `account must be one of ${accountNames.join(', ')}`);
    if (!isPlainObject(fields)) return bad(reply, 'fields must be an object');
    return reply.send(store.emit(account as AccountName, event as EventType, fields));
  });

  app.get<{ Params: { id: string } }>('/_reference/hooks/:id', (request, reply) => {
    const hook = store.hooks.get(request.params.id.toLowerCase());
    if (hook === undefined) return bad(reply, 'no such hook', 404);
    return reply.send(
      withoutSecrets({
        id: hook.id,
        account: hook.accountId,
        event: hook.event,
        targetUrl: hook.targetUrl,
        status: hook.status,
        disabledReason: hook.disabledReason ?? null,
        consecutiveFailures: hook.consecutiveFailures,
        createdAt: new Date(hook.createdAt).toISOString(),
        deliveries: store.dispatcher.deliveries(hook.id),
      }),
    );
  });

  app.get<{ Querystring: { hookId?: string } }>('/_reference/deliveries', (request, reply) => {
    const hookId = typeof request.query.hookId === 'string' ? request.query.hookId : undefined;
    return reply.send(withoutSecrets({ deliveries: store.dispatcher.deliveries(hookId) }));
  });

  app.post('/_reference/idle', async (_request, reply) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), 10_000);
    });
    const idle = await Promise.race([store.dispatcher.idle().then(() => true), timeout]);
    clearTimeout(timer);
    return reply.send({ idle });
  });

  app.get<{ Params: { id: string } }>('/_reference/calls/:id', (request, reply) => {
    const call = store.calls.get(request.params.id);
    if (call === undefined) return bad(reply, 'no such call', 404);
    return reply.send(call);
  });
}

function registerClock(app: FastifyInstance, store: ReferenceStore): void {
  const clockView = () => ({
    now: store.clock.now(),
    iso: new Date(store.clock.now()).toISOString(),
    scale: store.clock.scale,
  });

  app.get('/_reference/clock', (_request, reply) => reply.send(clockView()));

  app.post('/_reference/clock/advance', (request, reply) => {
    const b = body(request);
    if (!b.ok) return bad(reply, 'the body must be a JSON object');
    const ms = b.value.ms;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return bad(reply, 'ms must be a finite number >= 0');
    try {
      store.clock.advance(ms);
    } catch {
      // A timer callback failed; time has still advanced.
    }
    return reply.send(clockView());
  });
}

function registerFaults(app: FastifyInstance, store: ReferenceStore): void {
  app.get('/_reference/faults', (_request, reply) =>
    reply.send({
      faults: catalogue.map((f) => ({
        id: f.id,
        description: f.description,
        violates: f.violates,
        enabled: store.faults.has(f.id),
      })),
    }),
  );

  app.put('/_reference/faults', (request, reply) => {
    const b = body(request);
    if (!b.ok) return bad(reply, 'the body must be a JSON object');
    const { enable = [], disable = [] } = b.value;
    if (!isStringArray(enable) || !isStringArray(disable))
      return bad(reply, 'enable and disable must be arrays of fault ids');
    const unknown = unknownFaultIds([...enable, ...disable]);
    if (unknown.length > 0) return bad(reply, new UnknownFaultError(unknown).message);
    store.faults.disable(disable);
    store.faults.enable(enable);
    return reply.send({ enabled: store.faults.list() });
  });
}

function registerTokens(app: FastifyInstance, store: ReferenceStore): void {
  app.post('/_reference/tokens', (request, reply) => {
    const b = body(request);
    if (!b.ok) return bad(reply, 'the body must be a JSON object');
    const { account, scopes: wanted = [], label = 'control' } = b.value;
    if (typeof account !== 'string' || !accountNames.includes(account as AccountName))
      return bad(reply, `account must be one of ${accountNames.join(', ')}`);
    if (!isStringArray(wanted)) return bad(reply, 'scopes must be an array of scope names');
    const unknown = wanted.filter((s) => !allScopes.includes(s));
    if (unknown.length > 0) return bad(reply, `unknown scope ${unknown.join(', ')}; one of ${allScopes.join(', ')}`);
    return reply.send({ token: store.mintToken(account as AccountName, wanted, 'api', String(label)) });
  });

  app.delete('/_reference/tokens', (request, reply) => {
    const b = body(request);
    if (!b.ok) return bad(reply, 'the body must be a JSON object');
    const record = typeof b.value.token === 'string' ? store.state.tokens.get(b.value.token) : undefined;
    if (record === undefined) return bad(reply, 'no such token', 404);
    record.revoked = true;
    return reply.send({ revoked: true });
  });

  app.get<{ Querystring: { token?: string } }>('/_reference/tokens/last-used', (request, reply) => {
    const only = typeof request.query.token === 'string' ? request.query.token : undefined;
    const tokens = [];
    for (const t of store.state.tokens.values()) {
      if (only !== undefined && t.token !== only) continue;
      tokens.push({
        token: t.token,
        account: t.account,
        kind: t.kind,
        label: t.label,
        lastUsedAt: t.lastUsedAt === undefined ? null : new Date(t.lastUsedAt).toISOString(),
        revoked: t.revoked,
      });
    }
    return reply.send({ tokens });
  });
}
