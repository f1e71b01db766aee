/** Faults of webhook delivery (../webhooks/dispatcher.ts). ../faults.ts describes each. */
import { createHmac, randomUUID } from 'node:crypto';
import type { FaultId } from '../faults.ts';
import { faultsAt, type Overrides } from '../points.ts';
import { AUTO_DISABLE_AFTER, delivery } from '../webhooks/dispatcher.ts';

const byFault: { readonly [id in FaultId]?: Overrides<typeof delivery.defaults> } = {
  // The signed input lacks `t.`; the header still looks right.
  'signature-without-timestamp': {
    signature: ({ secret, seconds, body }) =>
      `t=${seconds},v1=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`,
  },
  // Keyed with the secret minus its whsec_ prefix.
  'signature-wrong-key': {
    signature: (signing, next) => next({ ...signing, secret: signing.secret.replace(/^whsec_/, '') }),
  },
  'retry-after-4xx': {
    retried: (outcome, next) =>
      (outcome.kind === 'status' && outcome.status >= 400 && outcome.status < 500) || next(outcome),
  },
  // A 5xx or a timeout is permanent (a connection error is still retried).
  'no-retry-after-5xx': {
    retried: (outcome, next) =>
      (outcome.kind === 'status' && outcome.status >= 500) || outcome.kind === 'timeout' ? false : next(outcome),
  },
  'no-auto-disable': { disableAfter: () => Number.POSITIVE_INFINITY },
  'auto-disable-early': { disableAfter: () => Math.floor(AUTO_DISABLE_AFTER / 2) },
  'backoff-constant': { interval: ({ backoff }) => backoff.firstIntervalMs },
  'retries-new-event-id': {
    body: (attempt, next) =>
      attempt.attempt > 1 ? JSON.stringify({ ...attempt.payload, eventId: randomUUID() }) : next(attempt),
  },
  'delivery-after-delete': { blocked: () => false },
  // A debugging header left on: the secret travels with every delivery.
  'hook-secret-in-delivery-header': {
    headers: (attempt, next) => ({ ...next(attempt), 'x-service-webhook-secret': attempt.secret }),
  },
  // "UTF-8 with BOM" serialisation, signed as sent (../faults-standards.ts).
  'std-delivery-bom': { body: (attempt, next) => `\uFEFF${next(attempt)}` },
  // Header lines copied from an HTTP/2 client: "te: trailers", and no Connection naming it.
  'std-delivery-te-alone': { headers: (attempt, next) => ({ ...next(attempt), te: 'trailers' }) },
  'nm-failure-counter-not-reset': { successResets: () => false },
  // "The receiver answered, so it is up": a 4xx ends the delivery and starts the count again.
  'nm-4xx-restarts-failure-count': {
    failuresAfter: (failed, next) =>
      failed.outcome.kind === 'status' && failed.outcome.status >= 400 && failed.outcome.status < 500
        ? 0
        : next(failed),
  },
};

/** The fault ids delivery implements. */
export const DISPATCHER_FAULT_IDS = Object.keys(byFault) as FaultId[];

export default faultsAt(delivery, byFault);
