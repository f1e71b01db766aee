/**
 * Whether the target's address takes connections at all, asked once at a remote run's start: a
 * TCP connection opened and closed, no HTTP request, so the target's rate limit never counts it.
 * Retried with backoff (START_UP_PATIENCE: 0.5, 1, 2, 4 s) before the target is called unreachable:
 * a run against a target that is down stops with one line and exit 2 instead of reporting every
 * check *not verifiable* for the network (./transport.ts), which a CI gate would read as green.
 */
import { connect } from 'node:net';
import { type RetryOptions, TransportFailure, withTransportRetries } from './transport.ts';

/** Opens one TCP connection to the URL's host and port, and closes it. */
function connectOnce(url: URL, timeoutMs: number): Promise<void> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.setTimeout(timeoutMs, () => {
      const error = Object.assign(new Error(`no connection within ${timeoutMs} ms`), { code: 'ETIMEDOUT' });
      socket.destroy(error);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

/**
 * Resolves once a connection to `url` (named `variable` in the error) opens; throws a TransportFailure
 * naming the variable and the cause when none did after the retries.
 */
export async function ensureReachable(
  url: string,
  variable: string,
  options: Pick<RetryOptions, 'retries' | 'delayMs' | 'sleep'> & { readonly timeoutMs: number },
): Promise<void> {
  try {
    await withTransportRetries(() => connectOnce(new URL(url), options.timeoutMs), { repeatable: true, ...options });
  } catch (error) {
    if (!(error instanceof TransportFailure)) throw error;
    const tries = (options.retries ?? 0) + 1;
    throw new TransportFailure(error.kind, `${variable}: ${error.message} (${tries} attempts); is the target up?`);
  }
}
