/**
 * The inspections of the test-control protocol (control-openapi.json) as the reference answers
 * them (./control-protocol.ts serves them). Where the document lets a target choose, the
 * reference's choice is a point below; the conformant variants take the other (./variants/control.ts).
 */
import type { ControlInspection } from '../contract/control.ts';
import { ProtocolError, invalid, stringParam, type Params } from './control-states.ts';
import { site, type Points } from './points.ts';
import type { ReferenceStore } from './store.ts';
import type { DeliveryAttempt } from './webhooks/dispatcher.ts';

/** How long deliveries-idle waits at most. */
const IDLE_LIMIT_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const controlInspections = site('control inspections', {
  /** Params an inspection does not document are ignored. */
  strict: (): boolean => false,
  clock: (now: number): Params => ({ now, iso: new Date(now).toISOString(), virtual: true }),
  /** One attempt of hook-attempts: its number, virtual time and outcome. */
  attempt: ({ attempt }: { attempt: DeliveryAttempt; eventId: string }): Params => ({
    attempt: attempt.attempt,
    at: attempt.at,
    outcome: attempt.outcome,
  }),
  /** hook-attempts: the subscription's state, disabledReason null while it is active. */
  hook: (view: Params): Params => view,
  /** deliveries-idle waits for the deliveries under way, not for calls whose call.ended is still to come. */
  waitsForCalls: (): boolean => false,
});

/** The answer to inspection `name` over `store`. */
export async function inspect(
  store: ReferenceStore,
  points: Points,
  name: ControlInspection,
  params: Params,
): Promise<unknown> {
  const at = points.of(controlInspections);
  const noParams = name === 'clock' || name === 'deliveries-idle';
  if (noParams && at.strict() && Object.keys(params).length > 0)
    invalid(`${name} takes no params (got ${Object.keys(params).join(', ')})`);
  switch (name) {
    case 'clock':
      return at.clock(store.clock.now());
    case 'hook-attempts': {
      const hook = store.hooks.get(stringParam(params, 'hookId').toLowerCase());
      if (hook === undefined) throw new ProtocolError(404, 'not_found', 'no such hook');
      const deliveries = store.dispatcher.deliveries(hook.id).map((d) => ({
        eventId: String(d.payload.eventId),
        state: d.state,
        ...(d.nextAttemptAt === undefined ? {} : { nextAttemptAt: d.nextAttemptAt }),
        attempts: d.attempts.map((attempt) => at.attempt({ attempt, eventId: String(d.payload.eventId) })),
      }));
      return at.hook({
        id: hook.id,
        status: hook.status,
        disabledReason: hook.disabledReason ?? null,
        consecutiveFailures: hook.consecutiveFailures,
        deliveries,
      });
    }
    case 'deliveries-idle':
      return { idle: await deliveriesIdle(store, at.waitsForCalls()) };
    case 'token-last-used': {
      const record = store.state.tokens.get(stringParam(params, 'token'));
      if (record === undefined) throw new ProtocolError(404, 'not_found', 'no such token');
      return {
        lastUsedAt: record.lastUsedAt === undefined ? null : new Date(record.lastUsedAt).toISOString(),
        revoked: record.revoked,
      };
    }
    case 'call-record': {
      const call = store.calls.get(stringParam(params, 'callId'));
      if (call === undefined) throw new ProtocolError(404, 'not_found', 'no such call');
      return call;
    }
  }
}

/** Whether the dispatcher went idle within 10 s (after the calls due within them ended, when it waits for calls). */
async function deliveriesIdle(store: ReferenceStore, waitsForCalls: boolean): Promise<boolean> {
  const started = Date.now();
  while (waitsForCalls) {
    const left = IDLE_LIMIT_MS - (Date.now() - started);
    const next = store.realMsUntilNextCallEnd();
    if (next > left) break;
    await sleep(Math.max(5, Math.min(next + 5, left)));
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, IDLE_LIMIT_MS - (Date.now() - started)));
  });
  const idle = await Promise.race([store.dispatcher.idle().then(() => true), gaveUp]);
  clearTimeout(timer);
  return idle;
}
