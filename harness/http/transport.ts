/**
 * The transport discipline every exchange of a run follows, whatever sends it (the API client,
 * the raw socket, the per-IP clients, the control client): the network is not the target.
 *
 * A transport failure (refused, reset, stalled, a body cut short) says nothing about the
 * contract. A request is sent again when sending it again cannot change what the target did:
 * a safe method (RFC 9110 §9.2.1) after any failure, any method when nothing reached the target
 * (the connection was refused or never opened). Anything else, or a retry that fails again, ends
 * the check as *not verifiable*, naming the cause (harness/checks/check.ts). PUT and DELETE are
 * idempotent (§9.2.2) but not safe: a DELETE /hooks/{id} whose 204 was lost answers 404 when
 * sent again, which a check would read as the target's answer, so they are not retried once the
 * request may have arrived. Pure, except the error class.
 */

/** What broke, as far as the client can tell. */
export type TransportKind = 'refused' | 'connect-timeout' | 'reset' | 'stalled' | 'cut' | 'other';

/** A transport failure thrown by a harness transport: never a verdict on the contract. */
export class TransportFailure extends Error {
  readonly kind: TransportKind;
  constructor(kind: TransportKind, message: string) {
    super(message);
    this.name = 'TransportFailure';
    this.kind = kind;
  }
}

/** RFC 9110 §9.2.1: "the GET, HEAD, OPTIONS, and TRACE methods are defined to be safe". */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method.toUpperCase());
}

/** Failures after which the target cannot have seen the request: nothing was written. */
const BEFORE_SENDING: ReadonlySet<TransportKind> = new Set(['refused', 'connect-timeout']);

/** How many times a request is sent again after a transport failure, at most. */
export const TRANSPORT_RETRIES = 2;

/**
 * Whether a request may be sent again after a failure of `kind` (its `attempt`-th retry, from 1):
 * a `repeatable` one (a safe method, or what a protocol declares safe to repeat) after any failure,
 * any other when nothing reached the target. Pure.
 */
export function mayRetry(repeatable: boolean, kind: TransportKind, attempt: number, retries = TRANSPORT_RETRIES) {
  if (attempt > retries) return false;
  return repeatable || BEFORE_SENDING.has(kind);
}

/**
 * The first reads of a run are retried with backoff, 0.5, 1, 2 and 4 s, before the target (or its
 * control endpoint) is called unreachable: a network that hiccups at the start is not a broken
 * configuration, nor a dead target.
 */
export const START_UP_PATIENCE: { readonly retries: number; readonly delayMs: (attempt: number) => number } = {
  retries: 4,
  delayMs: (attempt) => 500 * 2 ** (attempt - 1),
};

/** The pause before the `attempt`-th retry (from 1): 250 ms, then 1 s. Pure. */
export function retryDelayMs(attempt: number): number {
  return 250 * 4 ** (attempt - 1);
}

const CODES: ReadonlyArray<readonly [TransportKind, readonly string[]]> = [
  ['refused', ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']],
  ['connect-timeout', ['UND_ERR_CONNECT_TIMEOUT']],
  ['reset', ['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ERR_STREAM_PREMATURE_CLOSE']],
  ['stalled', ['UND_ERR_HEADERS_TIMEOUT', 'ETIMEDOUT', 'ESOCKETTIMEDOUT']],
  ['cut', ['UND_ERR_BODY_TIMEOUT', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_RESPONSE_STATUS_CODE']],
];

const NAMES: ReadonlyArray<readonly [TransportKind, readonly string[]]> = [
  ['stalled', ['TimeoutError', 'HeadersTimeoutError']],
  ['cut', ['BodyTimeoutError', 'ResponseContentLengthMismatchError']],
  ['connect-timeout', ['ConnectTimeoutError']],
  ['reset', ['SocketError', 'ClientClosedError']],
];

/**
 * The transport kind of an error (or of any error in its `cause` chain), or undefined when it is
 * not a transport failure (a bug, a failed assertion, a verdict). Pure.
 */
export function transportKindOf(error: unknown): TransportKind | undefined {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 5; depth += 1) {
    if (e instanceof TransportFailure) return e.kind;
    const { code, name } = e as { code?: unknown; name?: unknown };
    for (const [kind, codes] of CODES) if (typeof code === 'string' && codes.includes(code)) return kind;
    for (const [kind, names] of NAMES) if (typeof name === 'string' && names.includes(name)) return kind;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** One line naming the failure: what the client saw, never the target's verdict. Pure. */
export function describeTransport(kind: TransportKind, detail: string, timeoutMs?: number): string {
  const within = timeoutMs === undefined ? '' : ` within ${timeoutMs} ms`;
  switch (kind) {
    case 'refused':
      return `connection refused (${detail})`;
    case 'connect-timeout':
      return `could not connect${within} (${detail})`;
    case 'reset':
      return `connection reset or closed before a complete response (${detail})`;
    case 'stalled':
      return `no response${within}: the connection stalled (${detail})`;
    case 'cut':
      return `the response body was cut short (${detail})`;
    default:
      return `transport error: ${detail}`;
  }
}

/** The error's own words, with its code: "read ECONNRESET (ECONNRESET)". Pure. */
export function detailOf(error: unknown): string {
  const e = error as { message?: unknown; code?: unknown; cause?: { message?: unknown; code?: unknown } };
  const message = typeof e?.message === 'string' && e.message !== '' ? e.message : String(error);
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  const cause = typeof e?.cause?.message === 'string' && e.cause.message !== message ? `: ${e.cause.message}` : '';
  return `${message}${cause}${code === undefined || message.includes(code) ? '' : ` (${code})`}`;
}

export interface RetryOptions {
  /** Safe to send again whatever became of it (a safe method; a control inspection or teardown). */
  readonly repeatable: boolean;
  /** Retries at most; default TRANSPORT_RETRIES. */
  readonly retries?: number;
  /** The pause before a retry; default retryDelayMs. */
  readonly delayMs?: (attempt: number) => number;
  readonly onRetry?: (kind: TransportKind) => void;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Runs `send` once, then again while its transport failures may be retried. A failure that ends
 * it is thrown as a TransportFailure naming the cause; any other error as it is.
 */
export async function withTransportRetries<T>(send: () => Promise<T>, options: RetryOptions): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send();
    } catch (error) {
      const kind = transportKindOf(error);
      if (kind === undefined || !mayRetry(options.repeatable, kind, attempt, options.retries)) {
        if (kind === undefined || error instanceof TransportFailure) throw error;
        throw new TransportFailure(kind, describeTransport(kind, detailOf(error)));
      }
      options.onRetry?.(kind);
      await sleep((options.delayMs ?? retryDelayMs)(attempt));
    }
  }
}
