/**
 * A check's own reference server (the rate-limit checks: the run's shared reference runs with its
 * limit off, since the other checks would trip it). The process that started the run serves it
 * with the starter its composition root injects (commands/embedded-reference.ts), with the run's
 * faults and variants, on a clock for the limiter that only the check moves; the check reaches
 * it through the run channel (./channel.ts) and sends its requests to it directly.
 */
import type { OwnReferenceAddress } from './channel.ts';
import { session } from './session.ts';

export interface OwnReferenceHandle {
  readonly baseUrl: string;
  readonly tokens: OwnReferenceAddress['tokens'];
  /** Moves the limiter's clock (it starts at the wall clock's now and stands still until moved). */
  advanceClock(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts one with the spec's `perWindow` requests per `windowMs`, listening on `host` (default loopback). */
export async function startOwnReference(options: {
  readonly perWindow: number;
  readonly windowMs: number;
  readonly host?: string;
}): Promise<OwnReferenceHandle> {
  const { channel } = session();
  const { id, baseUrl, tokens } = await channel.call<OwnReferenceAddress>('/reference/start', options);
  return {
    baseUrl,
    tokens,
    async advanceClock(ms) {
      await channel.call('/reference/advance', { id, ms });
    },
    async close() {
      await channel.call('/reference/close', { id });
    },
  };
}
