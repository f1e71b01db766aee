/**
 * Test-side client of the webhook receiver's query ("pull") API, the same for both deployments:
 * - local: the receiver the global set-up starts (one per run), reached over loopback with its
 *   CA; it is given each path's secret and verifies too (it refuses a bad signature with 401,
 *   as a real receiver would, so the target's retry logic sees the refusal);
 * - remote (RECEIVER_URL + RECEIVER_TOKEN): a store-only receiver deployed next to the target;
 *   it is never sent a secret.
 * Either way the verdict the checks use is computed HERE, in the suite's process, where the
 * secrets are: each delivery's signature is verified on its exact bytes (bodyBase64) with the
 * secret POST /hooks returned, at the time the receiver got it, its timestamp fresh against real
 * time or against the clock the target reports (./target-clock.ts: after clock-advanced a target
 * may sign with its virtual clock). A delivery that fails (or that the receiver refused) carries a
 * `refusal`, and `waitFor` fails at once with its reason instead of waiting out its timeout, where
 * the reason is the target's delivery (its signature, its JSON, not POST); a refusal for the
 * receiver's own reasons (a path it does not know, its size limit) is never the target's failure.
 *
 * Paths: `register` a path with its plan BEFORE its URL goes out in POST /hooks, and its secret
 * once POST /hooks has answered (./subscriptions.ts `onReceiver`): a target may deliver at once,
 * and the receiver keeps what arrives before the secret and has it judged after.
 */
import { createLintTally, lintMessage, type LintTally } from '../../contract/standards/lint.ts';
import { lintedDelivery } from './delivery-lint.ts';
import type { OneTimeWatch } from '../http/one-time-watch.ts';
import { Agent, request } from '../http/undici.ts';
import { TransportFailure, withTransportRetries } from '../http/transport.ts';
import {
  DEFAULT_TOLERANCE_SECONDS,
  parseSignatureHeader,
  SIGNATURE_HEADER,
  verifySignature,
} from '../../contract/signature.ts';
import type { Delivery, ResponsePlan } from '../webhooks/receiver.ts';
import type { TargetClock, TargetClockFreshness } from './target-clock.ts';

/** Why a delivery was not accepted, and who decided: the receiver, or the suite's verification. */
export interface Refusal {
  readonly by: 'receiver' | 'suite';
  /**
   * Whose reason it is: `target`, the delivery's (a wrong or missing signature, a body that is not
   * JSON, not POST), which may fail a check; `receiver`, the receiver's own (a path it does not
   * know: never registered, expired, or a check's that ended; its size limit, which the spec does
   * not set; no secret yet), which is never the target's failure: at most not verifiable.
   */
  readonly fault: 'target' | 'receiver';
  /** missing_header, malformed_header, signature_mismatch, timestamp_outside_tolerance, invalid_json, not_found… */
  readonly reason: string;
  /** One sentence naming the part that is wrong (never a secret). */
  readonly detail: string;
}

/** A delivery as the suite judged it: `json` and `eventId` only for authentic bodies. */
export interface ReceivedDelivery extends Delivery {
  readonly refusal?: Refusal;
}

export interface ReceiverClient {
  /** The https URL a hook must target for deliveries to reach `path`. */
  targetFor(path: string): string;
  /**
   * Registers a path with its response plan (`perEvent`: each eventId goes through the plan on its
   * own), or gives it its secret; the secret stays in this process (and goes to a local receiver
   * only: a store-only one is told nothing when only a secret is given).
   */
  register(path: string, setup: { secret?: string; plan?: ResponsePlan; perEvent?: boolean }): Promise<void>;
  /** Every request that reached `path`, verified here, refused ones included (with `refusal`). */
  deliveries(path: string): Promise<ReceivedDelivery[]>;
  /** The protocol lint of every delivery read so far (contract/standards/rules-sender.ts), each once. */
  readonly lint: LintTally;
  /**
   * Polls until `predicate` holds over the path's deliveries or `timeoutMs` passes; returns the
   * last list. Throws DeliveryRefused as soon as a delivery to the path was refused for the
   * target's reason (`fault: 'target'`) while the predicate does not hold yet: waiting longer can't
   * change a wrongly signed delivery. The receiver's own refusals are in the list, for the caller.
   */
  waitFor(
    path: string,
    predicate: (deliveries: ReceivedDelivery[]) => boolean,
    timeoutMs: number,
  ): Promise<ReceivedDelivery[]>;
}

/** One sentence on a refused delivery: where, when, by whom, why. */
export function describeRefusal(path: string, delivery: ReceivedDelivery & { refusal: Refusal }): string {
  const when = new Date(delivery.receivedAt).toISOString();
  const who =
    delivery.refusal.by === 'suite'
      ? "fails the suite's signature verification"
      : `was refused by the receiver with ${delivery.answeredStatus}`;
  return `a delivery to ${path} (received ${when}) ${who}: ${delivery.refusal.reason}: ${delivery.refusal.detail}`;
}

export class DeliveryRefused extends Error {
  readonly refusal: Refusal;
  constructor(path: string, delivery: ReceivedDelivery & { refusal: Refusal }) {
    super(describeRefusal(path, delivery));
    this.name = 'DeliveryRefused';
    this.refusal = delivery.refusal;
  }
}

/**
 * The receiver's refusals for its own reasons, not the delivery's: an unknown path, its size limit
 * (the spec sets none), no secret yet (a receiver that refused before its path's secret). Such a
 * delivery was refused unread: its body is not kept.
 */
export const RECEIVERS_OWN_REFUSALS: ReadonlySet<string> = new Set([
  'not_found',
  'payload_too_large',
  'no_secret_registered',
]);

const RECEIVER_MESSAGES: Record<string, string> = {
  not_found: 'the path is not registered on the receiver (never registered, or expired).',
  method_not_allowed: 'deliveries must use POST.',
  payload_too_large: "the body is over the receiver's size limit.",
  no_secret_registered: 'the receiver had no secret for this path yet.',
  invalid_json: 'the body is not valid JSON.',
};

/**
 * The suite's verdict on one stored delivery (pure). `secret` is the path's secret when this
 * process registered it; without one the receiver's own verdict stands. A timestamp outside the
 * tolerance of real time is still fresh when `targetClock` says it is fresh against the target's.
 */
export function judgeDelivery(
  stored: Delivery,
  secret: string | undefined,
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
  targetClock?: TargetClockFreshness,
): ReceivedDelivery {
  const bare = { ...stored, json: undefined, eventId: undefined };
  if (stored.error !== undefined) {
    // Refused by the receiver: its reason, and its detail where it gave one.
    const detail =
      stored.signature.detail ??
      RECEIVER_MESSAGES[stored.error] ??
      `the receiver answered ${String(stored.answeredStatus)} ${stored.error}.`;
    const fault = RECEIVERS_OWN_REFUSALS.has(stored.error) ? 'receiver' : 'target';
    return { ...bare, refusal: { by: 'receiver', fault, reason: stored.error, detail } };
  }
  if (secret === undefined) return stored;
  const body = Buffer.from(stored.bodyBase64, 'base64');
  let verdict = verifySignature({
    header: stored.headers[SIGNATURE_HEADER],
    rawBody: body,
    secret,
    toleranceSeconds,
    // Freshness is judged against when the receiver got it, not when the suite reads it.
    nowSeconds: Math.floor(stored.receivedAt / 1000),
  });
  if (!verdict.ok && verdict.reason === 'timestamp_outside_tolerance') {
    const t = parseSignatureHeader(stored.headers[SIGNATURE_HEADER]!);
    if (t.ok && targetClock?.(t.timestamp, stored.receivedAt, toleranceSeconds) === true)
      verdict = { ok: true, timestamp: t.timestamp };
  }
  if (!verdict.ok) {
    return {
      ...bare,
      signature: { ok: false, reason: verdict.reason, detail: verdict.detail },
      refusal: { by: 'suite', fault: 'target', reason: verdict.reason, detail: verdict.detail },
    };
  }
  const signature = { ok: true, timestamp: verdict.timestamp };
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (error) {
    const jsonError = (error as Error).message;
    return {
      ...bare,
      signature,
      jsonError,
      refusal: {
        by: 'suite',
        fault: 'target',
        reason: 'invalid_json',
        detail: `The signed body is not valid JSON (${jsonError}).`,
      },
    };
  }
  const id = (json as { eventId?: unknown } | null)?.eventId;
  return { ...stored, signature, json, eventId: typeof id === 'string' && id !== '' ? id : undefined };
}

/** Whether a delivery's signed `t`, when it has one, is within the tolerance of its arrival (pure). */
function freshAgainstRealTime(d: Delivery): boolean {
  const header = d.headers[SIGNATURE_HEADER];
  const parsed = header === undefined ? undefined : parseSignatureHeader(header);
  return !parsed?.ok || Math.abs(Math.floor(d.receivedAt / 1000) - parsed.timestamp) <= DEFAULT_TOLERANCE_SECONDS;
}

/** Marks repeats of an eventId among authentic deliveries, in arrival order (pure). */
function markDuplicates(list: ReceivedDelivery[]): ReceivedDelivery[] {
  const seen = new Set<string>();
  return list.map((d) => {
    if (d.eventId === undefined) return d.duplicate ? { ...d, duplicate: false } : d;
    const duplicate = seen.has(d.eventId);
    seen.add(d.eventId);
    return d.duplicate === duplicate ? d : { ...d, duplicate };
  });
}

export interface ReceiverConnection {
  /** Where the query API is: the local receiver's loopback URL, or RECEIVER_URL. */
  readonly queryUrl: string;
  /** The https base the target delivers to (the local receiver, or WEBHOOK_PUBLIC_URL). */
  readonly publicUrl: string;
  /** CA of the local receiver's generated certificate. */
  readonly caPem?: string | undefined;
  /** RECEIVER_TOKEN of a remote receiver. */
  readonly token?: string | undefined;
  /** A remote, store-only receiver: never sent a secret; polled less often. */
  readonly remote: boolean;
  /** The target's clock as the run read it: a timestamp fresh against it is fresh. */
  readonly clock?: TargetClock | undefined;
  /** Where the values the contract returns once are looked for (the API client's): deliveries are a channel too. */
  readonly oneTime?: OneTimeWatch;
}

export function createReceiverClient(connection: ReceiverConnection): ReceiverClient {
  const { queryUrl, publicUrl, caPem, token, remote, clock, oneTime } = connection;
  // Our own loopback receiver with a user-supplied certificate: we may not hold its CA. A remote
  // receiver is verified like any https server (NODE_EXTRA_CA_CERTS adds a private CA).
  const dispatcher = new Agent({
    connect: remote ? {} : caPem === undefined ? { rejectUnauthorized: false } : { ca: caPem },
  });
  const secrets = new Map<string, string>();
  /** Paths this client registered (an expired one is its caller's to register again). */
  const registered = new Set<string>();
  const pollMs = remote ? 500 : 25;
  const lint = createLintTally();
  /** The receiver's seq of each delivery linted: polls see a delivery many times, the lint counts it once. */
  const linted = new Set<number>();
  const call = async (method: 'GET' | 'PUT', path: string, body?: unknown): Promise<unknown> => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const once = async () => {
      const answer = await request(`${queryUrl}${path}`, {
        method,
        dispatcher,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { statusCode: answer.statusCode, text: await answer.body.text() };
    };
    let response: { statusCode: number; text: string };
    try {
      // A GET of what arrived and a PUT of a path's set-up are both safe to send again (../http/transport.ts).
      response = await withTransportRetries(once, { repeatable: true });
    } catch (error) {
      // The network between the suite and its receiver is not the target: the check is not verifiable.
      if (error instanceof TransportFailure)
        throw new TransportFailure(error.kind, `the receiver at ${queryUrl}: ${error.message}`);
      throw new Error(
        `the receiver at ${queryUrl} could not be reached (${(error as Error).message}); ` +
          'check RECEIVER_URL or the local receiver',
      );
    }
    const { text } = response;
    if (response.statusCode === 401)
      throw new Error(
        `the receiver at ${queryUrl} refused the suite's token (401); ` +
          'set RECEIVER_TOKEN to the token the receiver was started with',
      );
    if (response.statusCode >= 400)
      throw new Error(
        `receiver ${method} ${path.split('?')[0]} answered ${response.statusCode}: ${text.slice(0, 200)}`,
      );
    return text === '' ? undefined : JSON.parse(text);
  };
  const deliveries = async (path: string): Promise<ReceivedDelivery[]> => {
    const { deliveries: stored } = (await call('GET', `/_receiver/deliveries?path=${encodeURIComponent(path)}`)) as {
      deliveries: Delivery[];
    };
    for (const d of stored.filter((d) => !linted.has(d.seq))) {
      linted.add(d.seq);
      lint.add(lintMessage(lintedDelivery(d)));
      const texts = [d.rawBody, ...d.rawHeaders.filter((_, i) => i % 2 === 1)];
      oneTime?.scan({ kind: 'delivery', where: `a delivery to ${d.path}`, texts });
    }
    // A timestamp stale against real time may be fresh against the target's clock: have it read
    // after the last such arrival, so the target's clock then is bracketed.
    const stale = stored.filter((d) => !freshAgainstRealTime(d)).map((d) => d.receivedAt);
    if (clock?.offered === true && stale.length > 0) await clock.cover(Math.max(...stale));
    return markDuplicates(
      stored.map((d) => judgeDelivery(d, secrets.get(path), DEFAULT_TOLERANCE_SECONDS, clock?.fresh)),
    );
  };
  return {
    targetFor: (path) => `${publicUrl}${path}`,
    async register(path, setup) {
      if (setup.secret !== undefined) secrets.set(path, setup.secret);
      const { secret: _, ...withoutSecret } = setup;
      const sent = remote ? withoutSecret : setup;
      // A store-only receiver that already knows the path has nothing to learn from its secret.
      if (Object.keys(sent).length === 0 && setup.secret !== undefined && registered.has(path)) return;
      await call('PUT', `/_receiver/paths?path=${encodeURIComponent(path)}`, sent);
      registered.add(path);
    },
    deliveries,
    lint,
    async waitFor(path, predicate, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const list = await deliveries(path);
        if (predicate(list)) return list;
        const refused = list.find(
          (d): d is ReceivedDelivery & { refusal: Refusal } => d.refusal !== undefined && d.refusal.fault === 'target',
        );
        if (refused !== undefined) throw new DeliveryRefused(path, refused);
        if (Date.now() >= deadline) return list;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
  };
}

/**
 * Before a run that uses a deployed receiver: is it there, and does it take our token? One line
 * naming the variable to fix, never the token.
 */
export async function checkReceiverService(url: string, token: string): Promise<void> {
  let status: number;
  try {
    const response = await request(`${url}/_receiver/paths`, {
      headers: { authorization: `Bearer ${token}` },
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    status = response.statusCode;
    await response.body.dump();
  } catch (error) {
    throw new Error(
      `RECEIVER_URL: the receiver at ${url} could not be reached (${(error as Error).message}); ` +
        'check the address, or that npm run receiver is running there',
    );
  }
  if (status === 401)
    throw new Error(
      `RECEIVER_TOKEN: the receiver at ${url} refused it (401); give the token the receiver was started with`,
    );
  if (status !== 200)
    throw new Error(`RECEIVER_URL: ${url}/_receiver/paths answered ${status}, not a webhook receiver of this suite`);
}
