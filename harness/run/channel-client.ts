/**
 * A test worker's end of the run channel (./channel.ts): what the workers of a run share lives in
 * the process that started the run, and a worker reaches it by calls over loopback HTTP with the
 * run's token (the run context's `channel`). Every call is a POST of JSON answered with JSON.
 *
 * Vitest's workers are separate processes (or threads): `provide` hands them the run context once,
 * as a value; what they change during the run (the journals, the clock readings, the watch, the
 * check gate) goes through these calls.
 */
import { request } from '../http/undici.ts';

/** Where the run channel listens (loopback HTTP) and the run's token for it. */
export interface ChannelAddress {
  readonly url: string;
  readonly token: string;
}

export interface ChannelClient {
  /**
   * Calls `path` with `body`; resolves with the answer's JSON (undefined for none). No timeout:
   * a wait (the gate, the watch) is the check's, bounded by its own; `signal` cancels it.
   */
  call<T = unknown>(path: string, body: unknown, signal?: AbortSignal): Promise<T>;
}

export function channelClient(address: ChannelAddress): ChannelClient {
  return {
    async call<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
      // undici: the API client's, already loaded in the worker.
      const response = await request(`${address.url}${path}`, {
        method: 'POST',
        body: JSON.stringify(body ?? {}),
        headers: { authorization: `Bearer ${address.token}`, 'content-type': 'application/json' },
        headersTimeout: 0,
        bodyTimeout: 0,
        ...(signal === undefined ? {} : { signal }),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200)
        throw new Error(`the run channel (${path}) answered ${response.statusCode}${text === '' ? '' : `: ${text}`}`);
      return (text === '' ? undefined : JSON.parse(text)) as T;
    },
  };
}
