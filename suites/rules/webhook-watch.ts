/**
 * The rules of webhook-watch.judge.suite.ts that need no target: pure, so
 * test/suites/webhook-watch.test.ts can hold them.
 */
import type { EventType } from '../../contract/openapi.ts';
import { payloadOf } from '../../harness/checks/delivery-verdicts.ts';
import type { WatchView } from '../../harness/seams/event-watch.ts';
import { intervals } from '../../harness/checks/verdicts.ts';
import type { Delivery } from '../../harness/webhooks/receiver.ts';
import { RECEIVERS_OWN_REFUSALS } from '../../harness/seams/receiver-client.ts';

/**
 * A delivery the receiver refused unread for its own reason (receiver-client.ts
 * RECEIVERS_OWN_REFUSALS: a path it did not know, its size limit): its body is unknown, so no
 * delivery rule can be judged on it (the deleted-subscription check still counts it).
 */
export function unread(delivery: Delivery): boolean {
  return delivery.error !== undefined && RECEIVERS_OWN_REFUSALS.has(delivery.error);
}

/** Failures (anything but 2xx) at the end of a subscription's attempts, in a row. */
export function trailingFailures(deliveries: readonly Delivery[]): number {
  let count = 0;
  for (const d of [...deliveries].reverse()) {
    if (typeof d.answeredStatus === 'number' && d.answeredStatus >= 200 && d.answeredStatus < 300) break;
    count += 1;
  }
  return count;
}

/** Attempts grouped by the event they deliver: a call's one call.ended by its callId, any other by eventId. */
export function attemptsByEvent(deliveries: readonly Delivery[], event: EventType): Delivery[][] {
  const groups = new Map<string, Delivery[]>();
  for (const delivery of deliveries) {
    const payload = payloadOf(delivery);
    const key =
      event === 'call.ended' && typeof payload?.callId === 'string'
        ? `call ${payload.callId}`
        : `event ${String(payload?.eventId ?? delivery.seq)}`;
    groups.set(key, [...(groups.get(key) ?? []), delivery]);
  }
  return [...groups.values()];
}

/**
 * What reached the subscription created and deleted before any event was caused, split by cause:
 * an event a live subscription also received leaked past DELETE when both it and the event's first
 * live arrival came after DELETE answered (before, the hook was active: the account's activity may
 * reach it at any time, even within a millisecond of its creation, and that attempt may still be in
 * flight at DELETE); anything else was sent by creating or deleting the hook.
 */
export function deletedSubscriptionDeliveries(view: WatchView): {
  leaked: Delivery[];
  emitted: Delivery[];
  /** Refused unread for the receiver's own reason: of an event nobody can name (never the target's failure). */
  unreadable: Delivery[];
} {
  const live = new Set<unknown>(
    view
      .all()
      .filter(({ watched }) => watched.role !== 'deleted')
      .map(({ delivery }) => payloadOf(delivery)?.eventId)
      .filter((id) => id !== undefined),
  );
  const reached = view.of('deleted');
  const broadcast = (d: Delivery) => live.has(payloadOf(d)?.eventId);
  // An event that reached a live subscription before DELETE answered was sent while the hook was
  // active: its attempt at the deleted one may still be in flight then (not a leak).
  const firstLive = new Map<unknown, number>();
  for (const { delivery, watched } of view.all())
    if (watched.role !== 'deleted') {
      const id = payloadOf(delivery)?.eventId;
      firstLive.set(id, Math.min(firstLive.get(id) ?? Number.POSITIVE_INFINITY, delivery.receivedAt));
    }
  const after = (d: Delivery) =>
    d.receivedAt > view.watch.deletedAt && (firstLive.get(payloadOf(d)?.eventId) ?? 0) > view.watch.deletedAt;
  const leaked = reached.filter((d) => broadcast(d) && after(d));
  const emitted = reached.filter((d) => !broadcast(d) && !unread(d));
  return { leaked, emitted, unreadable: reached.filter(unread) };
}

/** Whether an attempt answered `answer` was followed by another attempt. */
export function retriedAfter(attempts: readonly Delivery[], answer: Delivery['answeredStatus']): boolean {
  return attempts.slice(0, -1).some((d) => d.answeredStatus === answer);
}

/**
 * Intervals after the leading run of 503 answers (before anything else was answered): an
 * interval that follows an unanswered attempt holds the target's own timeout, not its backoff.
 */
export function gapsAfter503(attempts: readonly Delivery[]): number[] {
  const lead = attempts.findIndex((d) => d.answeredStatus !== 503);
  const phase = attempts.slice(0, lead === -1 ? attempts.length : lead + 1);
  return intervals(phase.map((d) => d.receivedAt));
}
