/**
 * A client of its own for the checks whose requests must not go through the run's client: a burst
 * against a reference of the check's own (its rate limit), or from another loopback source address
 * (the per-IP limit: ./source-address.ts). Outside the run's throttle, by design, and inside the
 * transport discipline (./transport.ts): a safe request is sent again after a transport failure,
 * any other only when nothing reached the target, and a failure that ends it throws a
 * TransportFailure, which ends the check as not verifiable, never failed.
 */
import { Agent, request } from './undici.ts';
import { isAddressUnavailable } from './source-address.ts';
import { isSafeMethod, withTransportRetries } from './transport.ts';
import { bodyFacts, type LintedMessage } from '../../contract/standards/message.ts';
import { fieldLinesOf, lintedExchange } from './lint-message.ts';

export interface AddressRequest {
  readonly method?: 'GET' | 'POST' | 'DELETE';
  /** Below the base URL, with its query. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body, sent as is. */
  readonly body?: string;
}

export interface AddressAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface AddressClient {
  /** The local address it sends from; undefined: the machine's choice. */
  readonly address: string | undefined;
  /** The answer, or 'unreachable' when this machine cannot send from the address. */
  send(request: AddressRequest): Promise<AddressAnswer | 'unreachable'>;
  close(): Promise<void>;
}

export interface AddressClientOptions {
  readonly baseUrl: string;
  /**
   * Where every whole answer goes, as the protocol lint reads it, when `baseUrl` is the run's
   * target (the per-IP clients): its answers are the target's too. Not for a reference of the check's own.
   */
  readonly read?: (message: LintedMessage) => void;
  /** A loopback source address (127.0.0.2…); IPv4 connections then. */
  readonly localAddress?: string;
  readonly connections?: number;
  readonly timeoutMs?: number;
  /** Counts each request sent again after a transport failure (the check's report counts them). */
  readonly onRetry?: () => void;
}

export function createAddressClient(options: AddressClientOptions): AddressClient {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const agent = new Agent({
    connections: options.connections ?? 8,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress, connect: { family: 4 } }),
  });
  const once = async (req: AddressRequest): Promise<AddressAnswer> => {
    const response = await request(`${options.baseUrl}${req.path}`, {
      method: req.method ?? 'GET',
      dispatcher: agent,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      headers: { ...req.headers, ...(req.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(req.body === undefined ? {} : { body: req.body }),
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    const octets = Buffer.from(await response.body.arrayBuffer());
    const wire = { status: response.statusCode, fields: fieldLinesOf(response.headers), body: bodyFacts(octets) };
    const sent = {
      url: new URL(`${options.baseUrl}${req.path}`),
      method: req.method ?? 'GET',
      headers: req.headers ?? {},
    };
    options.read?.(lintedExchange(options.baseUrl, sent, wire));
    return { status: response.statusCode, headers, body: octets.toString('utf8') };
  };
  return {
    address: options.localAddress,
    async send(req) {
      try {
        return await withTransportRetries(() => once(req), {
          repeatable: isSafeMethod(req.method ?? 'GET'),
          ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
        });
      } catch (error) {
        if (isAddressUnavailable(error)) return 'unreachable';
        throw error;
      }
    },
    close: () => agent.close(),
  };
}
