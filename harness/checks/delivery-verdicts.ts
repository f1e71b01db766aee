/**
 * What is wrong with one webhook delivery, rule by rule (spec, Events › Delivery rules and
 * Events): pure functions over what the receiver recorded, shared by the control-driven webhook
 * checks and the run-level watch of deliveries a remote target sends on its own.
 * Each returns undefined when the delivery keeps the rule.
 */
import { createHmac } from 'node:crypto';
import type { EventType } from '../../contract/openapi.ts';
import type { Delivery } from '../webhooks/receiver.ts';
import { parseSignatureHeader, SIGNATURE_HEADER, signPayload, verifySignature } from '../../contract/signature.ts';
import { isJsonContentType } from './verdicts.ts';
import type { TargetClockFreshness } from '../seams/target-clock.ts';

type Received = Pick<Delivery, 'method' | 'headers' | 'rawBody' | 'receivedAt'>;

/** The body as a JSON object; undefined when it is not one. */
export function payloadOf(delivery: Pick<Delivery, 'rawBody'>): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(delivery.rawBody);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The eventId a delivery's body carries, read as sent (authentic or not); undefined when none. */
export function eventIdOf(delivery: Pick<Delivery, 'rawBody'>): string | undefined {
  const id = payloadOf(delivery)?.eventId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * The deliveries of the events an event-emitted setup returned (eventIds), in arrival order: the
 * target may deliver other events of the account to the same subscription (control-openapi.json,
 * Events), and a check counts only its own.
 */
export function deliveriesOf<T extends Pick<Delivery, 'rawBody'>>(
  list: readonly T[],
  eventIds: readonly string[],
): T[] {
  return list.filter((d) => {
    const id = eventIdOf(d);
    return id !== undefined && eventIds.includes(id);
  });
}

/** WEBHOOK-POST-JSON: delivered by POST with a JSON content type and a JSON object body. */
export function postJsonProblem(delivery: Received): string | undefined {
  if (delivery.method !== 'POST') return `came as ${delivery.method}, must be POST`;
  const type = delivery.headers['content-type'];
  if (!isJsonContentType(type)) return `has content type "${type ?? '(none)'}", must be application/json`;
  if (payloadOf(delivery) === undefined)
    return `has a body that is not a JSON object: ${JSON.stringify(delivery.rawBody.slice(0, 80))}`;
  return undefined;
}

/** WEBHOOK-SIGNATURE-FORMAT: `X-Service-Signature: t=<unix>,v1=<hex>`. */
export function signatureFormatProblem(delivery: Pick<Delivery, 'headers'>): string | undefined {
  const header = delivery.headers[SIGNATURE_HEADER];
  if (header === undefined || header.trim() === '') return 'carries no X-Service-Signature header';
  const parsed = parseSignatureHeader(header);
  if (parsed.ok) return undefined;
  // The v1 values are signatures, not secrets, but they are noise in a report.
  const shown = header.replace(/v1=[0-9a-f]+/gi, 'v1=…');
  return `has a malformed X-Service-Signature (${parsed.reason}): ${shown}; must be t=<unix>,v1=<hex>`;
}

/**
 * WEBHOOK-SIGNATURE-INPUT and -KEY: some v1 value is the HMAC-SHA256 of `t.` + raw body keyed
 * with the secret exactly as POST /hooks returned it. The diagnosis names the usual mistakes:
 * the body alone (no `t.`), or the secret minus its whsec_ prefix.
 */
export function signatureDiagnosis(
  delivery: Pick<Delivery, 'headers' | 'rawBody'>,
  secret: string,
): string | undefined {
  const header = delivery.headers[SIGNATURE_HEADER];
  // Freshness is its own rule (signatureFreshnessProblem): judge the HMAC alone here.
  const verdict = verifySignature({
    header,
    rawBody: delivery.rawBody,
    secret,
    toleranceSeconds: Number.MAX_SAFE_INTEGER,
  });
  if (verdict.ok) return undefined;
  if (verdict.reason !== 'signature_mismatch' || header === undefined) return verdict.detail;
  const parsed = parseSignatureHeader(header);
  if (!parsed.ok) return verdict.detail;
  const bodyOnly = createHmac('sha256', secret).update(delivery.rawBody, 'utf8').digest('hex');
  if (parsed.signatures.includes(bodyOnly))
    return 'the HMAC was computed over the raw body alone, without the timestamp and dot the spec puts first';
  const unprefixed = signPayload(secret.replace(/^whsec_/, ''), parsed.timestamp, delivery.rawBody).split('v1=')[1]!;
  if (parsed.signatures.includes(unprefixed))
    return 'the HMAC was keyed with the secret minus its whsec_ prefix, not with the secret POST /hooks returned';
  return verdict.detail;
}

/**
 * Which clock an authentic signature's `t` is fresh against when the delivery arrived: real time,
 * and the clock the target reports (after clock-advanced a target may sign with its virtual clock:
 * control-openapi.json, Time; undefined when unknown). Undefined when the signature is not authentic.
 */
export function signatureClock(
  delivery: Received,
  secret: string,
  toleranceSeconds = 300,
  targetClock?: TargetClockFreshness,
): { real: boolean; target: boolean | undefined } | undefined {
  if (signatureDiagnosis(delivery, secret) !== undefined) return undefined;
  const parsed = parseSignatureHeader(delivery.headers[SIGNATURE_HEADER]!);
  if (!parsed.ok) return undefined;
  return {
    real: Math.abs(Math.round(delivery.receivedAt / 1000) - parsed.timestamp) <= toleranceSeconds,
    target: targetClock?.(parsed.timestamp, delivery.receivedAt, toleranceSeconds),
  };
}

/**
 * WEBHOOK-SIGNATURE-FRESH: the signed timestamp is within `toleranceSeconds` of when the
 * delivery arrived (both ways; the spec names no tolerance, 300 s is the scheme's usual one), on
 * real time or on the clock the target reports (`targetClock`). Only judged on an authentic
 * signature: a forged one says nothing about freshness.
 */
export function signatureFreshnessProblem(
  delivery: Received,
  secret: string,
  toleranceSeconds = 300,
  targetClock?: TargetClockFreshness,
): string | undefined {
  const fresh = signatureClock(delivery, secret, toleranceSeconds, targetClock);
  if (fresh === undefined || fresh.real || fresh.target === true) return undefined;
  const parsed = parseSignatureHeader(delivery.headers[SIGNATURE_HEADER]!);
  if (!parsed.ok) return undefined;
  const skew = Math.round(delivery.receivedAt / 1000) - parsed.timestamp;
  const target = fresh.target === false ? ', nor of the clock the target reports' : '';
  const when = `${Math.abs(skew)} s ${skew > 0 ? 'before' : 'after'} it arrived`;
  return `was signed with t ${when} (tolerance ${toleranceSeconds} s)${target}`;
}

/**
 * What the signatures say about the clock the target signs with (an observation of
 * WEBHOOK-SIGNATURE-FRESH: after clock-advanced either is allowed). Pure.
 */
export function signingClockObservation(clocks: ReadonlyArray<ReturnType<typeof signatureClock>>): string {
  const count = (real: boolean, target: boolean | undefined) =>
    clocks.filter((c) => c !== undefined && c.real === real && c.target === target).length;
  const [realOnly, targetOnly, both] = [count(true, false), count(false, true), count(true, true)];
  if (targetOnly > 0 && realOnly === 0)
    return `signed with its own (virtual) clock: ${targetOnly} signature(s) fresh only against the clock it reports`;
  if (realOnly > 0 && targetOnly === 0)
    return `signed with real time: ${realOnly} signature(s) fresh only against real time, not the target's moved clock`;
  if (realOnly > 0)
    return `signed with both clocks: ${realOnly} fresh only against real time, ${targetOnly} only against the target's`;
  if (both > 0) return `${both} signature(s) fresh against real time and the target's clock alike (not moved then)`;
  return count(true, undefined) > 0 ? 'signed with real time (the target reports no clock)' : 'no fresh signature seen';
}

/** The spec's Events table: base fields, eventId, and each kind's own fields. */
const documentedKeys: Record<EventType, readonly string[]> = {
  'call.ended': ['durationSec', 'hangupReason', 'sentimentLabel', 'transferInitiated'],
  'call.transferred': ['transferTarget'],
  'disposition.set': ['terminal', 'triggersDnc'],
  'dnc.added': [],
  'lead.completed': [],
};
export const BASE_KEYS = ['eventId', 'callId', 'contactId', 'phone', 'dispositionCode', 'actor'];

/** Keys of a payload beyond the documented ones (EVENT-ADDITIONAL-KEYS). */
export function additionalKeys(event: EventType, payload: Record<string, unknown>): string[] {
  const known = new Set([...BASE_KEYS, ...documentedKeys[event]]);
  return Object.keys(payload).filter((key) => !known.has(key));
}

/** Keys whose value reads as an ISO 8601 date-time: candidates for the unshown timestamp field. */
export function timestampKeys(payload: Record<string, unknown>): string[] {
  return Object.entries(payload)
    .filter(
      ([, value]) =>
        typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) && !Number.isNaN(Date.parse(value)),
    )
    .map(([key]) => key);
}
