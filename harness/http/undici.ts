/**
 * The parts of undici the suite uses, each loaded from its own file. undici's index also loads
 * fetch, WebSocket, EventSource, the cache and the mocks: about 125 ms of CPU against 58 ms, paid
 * by every process and worker thread that sends a request (each worker of a run, each fault of the
 * self-proof). test/harness/http/undici.test.ts checks that each part is undici's own. Types come
 * from undici's declarations.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const load = createRequire(import.meta.url);

export const Agent: typeof Undici.Agent = load('undici/lib/dispatcher/agent.js');
export type Agent = Undici.Agent;
export const errors: typeof Undici.errors = load('undici/lib/core/errors.js');
export const buildConnector: typeof Undici.buildConnector = load('undici/lib/core/connect.js');
export type Connector = Undici.buildConnector.connector;
const { getGlobalDispatcher } = load('undici/lib/global.js') as Pick<typeof Undici, 'getGlobalDispatcher'>;
// What undici's index does: request(), stream() and the rest on every dispatcher.
const api = load('undici/lib/api/index.js') as { request: Undici.Dispatcher['request'] };
Object.assign((load('undici/lib/dispatcher/dispatcher.js') as typeof Undici.Dispatcher).prototype, api);

export type { Dispatcher } from 'undici';

type RequestOptions = Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> &
  Partial<Pick<Undici.Dispatcher.RequestOptions, 'method'>> & { readonly dispatcher?: Undici.Dispatcher };

/** undici's `request(url, options)`: the options' dispatcher (or the global one) asked for the URL. */
export function request(url: string, options: RequestOptions = {}): Promise<Undici.Dispatcher.ResponseData> {
  const { dispatcher = getGlobalDispatcher(), ...rest } = options;
  const { origin, pathname, search } = new URL(url);
  // Called on the dispatcher, as undici's own request() does: the global one may be another copy's.
  const asked = { ...rest, origin, path: pathname + search, method: rest.method ?? 'GET' };
  return api.request.call(dispatcher, asked) as Promise<Undici.Dispatcher.ResponseData>;
}
