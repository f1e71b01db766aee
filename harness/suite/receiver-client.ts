/**
 * Test-side client of the webhook receiver's query API. The receiver runs in the global set-up
 * (one per run); workers reach it over loopback HTTPS with its CA.
 */
import { Agent, request } from 'undici';
import type { Delivery, ResponsePlan } from '../webhooks/receiver.ts';

export interface ReceiverClient {
  /** The https URL a hook must target for deliveries to reach `path`. */
  targetFor(path: string): string;
  register(path: string, setup: { secret?: string; plan?: ResponsePlan }): Promise<void>;
  deliveries(path: string): Promise<Delivery[]>;
  /** Polls until `predicate` holds over the path's deliveries or `timeoutMs` passes; returns the last list. */
  waitFor(path: string, predicate: (deliveries: Delivery[]) => boolean, timeoutMs: number): Promise<Delivery[]>;
}

export function createReceiverClient(localUrl: string, publicUrl: string, caPem: string | undefined): ReceiverClient {
  // Loopback only: our own receiver. With a user-supplied certificate we may not hold its CA.
  const dispatcher = new Agent({ connect: caPem === undefined ? { rejectUnauthorized: false } : { ca: caPem } });
  const call = async (method: 'GET' | 'PUT', path: string, body?: unknown): Promise<unknown> => {
    const response = await request(`${localUrl}${path}`, {
      method, dispatcher, headersTimeout: 5_000, bodyTimeout: 5_000,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode >= 400) throw new Error(`receiver ${method} ${path} answered ${response.statusCode}: ${text.slice(0, 200)}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  const deliveries = async (path: string): Promise<Delivery[]> =>
    ((await call('GET', `/_receiver/deliveries?path=${encodeURIComponent(path)}`)) as { deliveries: Delivery[] }).deliveries;
  return {
    targetFor: (path) => `${publicUrl}${path}`,
    async register(path, setup) { await call('PUT', `/_receiver/paths?path=${encodeURIComponent(path)}`, setup); },
    deliveries,
    async waitFor(path, predicate, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const list = await deliveries(path);
        if (predicate(list) || Date.now() >= deadline) return list;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}
