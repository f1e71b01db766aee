/**
 * A test worker's end of the run channel (./channel.ts): what the workers of a run share lives in
 * the process that started the run, and a worker reaches it by calls over a local socket opened
 * with the run's token (the run context's `channel`; the wire is ./channel-wire.ts). One
 * connection per client, opened at its first call; calls on it are answered in any order.
 *
 * Vitest's workers are separate processes (or threads): `provide` hands them the run context once,
 * as a value; what they change during the run (the journals, the clock readings, the watch, the
 * check gate) goes through these calls.
 */
import { connect, type Socket } from 'node:net';
import { type AnswerFrame, frame, lineSplitter } from './channel-wire.ts';

/** Where the run channel listens (./channel-wire.ts channelEndpoint) and the run's token for it. */
export interface ChannelAddress {
  readonly path: string;
  readonly token: string;
}

export interface ChannelClient {
  /**
   * Calls `path` with `body`; resolves with the answer's JSON (null for none). No timeout:
   * a wait (the gate, the watch) is the check's, bounded by its own; `signal` cancels it.
   */
  call<T = unknown>(path: string, body: unknown, signal?: AbortSignal): Promise<T>;
}

interface Pending {
  readonly path: string;
  /** The connection the call went out on: only its end fails the call. */
  readonly connection: Socket;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export function channelClient(address: ChannelAddress): ChannelClient {
  const pending = new Map<number, Pending>();
  let socket: Socket | undefined;
  let lastId = 0;

  const settled = (id: number): Pending | undefined => {
    const call = pending.get(id);
    if (call === undefined) return undefined; // cancelled meanwhile
    pending.delete(id);
    // A call in flight keeps the worker alive, an idle connection does not.
    if (![...pending.values()].some((other) => other.connection === call.connection)) call.connection.unref();
    return call;
  };

  const open = (): Socket => {
    const connection = connect(address.path);
    connection.setEncoding('utf8');
    connection.write(frame({ token: address.token }));
    connection.on(
      'data',
      lineSplitter((line) => {
        let answer: AnswerFrame;
        try {
          answer = JSON.parse(line) as AnswerFrame;
        } catch {
          connection.destroy(new Error('it sent a line that is not JSON'));
          return;
        }
        const call = settled(answer.id);
        if (call === undefined) return;
        if (answer.error === undefined) call.resolve(answer.value);
        else call.reject(new Error(`the run channel (${call.path}) answered: ${answer.error}`));
      }),
    );
    // Whatever ends the connection fails what waits on it; the next call opens a new one.
    const fail = (error?: Error) => {
      if (socket === connection) socket = undefined;
      for (const [id, call] of pending)
        if (call.connection === connection) {
          pending.delete(id);
          call.reject(new Error(`the run channel (${call.path}) did not answer: ${error?.message ?? 'it closed'}`));
        }
    };
    connection.on('error', fail);
    connection.on('close', () => fail());
    return connection;
  };

  return {
    call<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      socket ??= open();
      const connection = socket;
      const id = ++lastId;
      const answered = new Promise<T>((resolve, reject) => {
        pending.set(id, { path, connection, resolve: resolve as (value: unknown) => void, reject });
      });
      connection.ref();
      connection.write(frame({ id, path, body: body ?? {} }));
      if (signal === undefined) return answered;
      const cancel = () => {
        const call = settled(id);
        if (call === undefined) return;
        if (!connection.destroyed) connection.write(frame({ cancel: id }));
        call.reject(signal.reason as Error);
      };
      signal.addEventListener('abort', cancel, { once: true });
      return answered.finally(() => signal.removeEventListener('abort', cancel));
    },
  };
}
