/**
 * The run channel: what the parts of a run share, kept in the process that started the run (`occ
 * run`, a self-proof runner, vitest's global set-up) and reached by its test workers over a local
 * socket with the run's token (./channel-client.ts, ./channel-wire.ts). Vitest's workers are
 * separate processes or threads: `provide` hands them the run context once, as a value
 * (./context.ts); what changes while the run goes on lives here, in memory, never in a file:
 *
 * - the journals of the control states and hooks the run created (swept at its end; the hooks are
 *   also written to reports/<run>/hooks.jsonl for the user, ../seams/hook-journal.ts);
 * - the target's clock readings (../seams/target-clock.ts);
 * - the webhook watch, opened by one check and judged by others (../seams/event-watch.ts);
 * - the check gate of a parallel run (../scheduling/gate.ts);
 * - reference servers of a check's own (the rate-limit checks), started by the starter the
 *   composition root injects (commands/), so no check imports reference/.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import type { TestModule, TestSpecification } from 'vitest/node';
import type { ControlState } from '../../contract/control.ts';
import type { Values } from '../seams/control-client.ts';
import { StateJournal } from '../seams/control-journal.ts';
import { HookJournal, type JournalEntry } from '../seams/hook-journal.ts';
import { ClockReadings, type ClockReading } from '../seams/target-clock.ts';
import type { Claim, Gate } from '../scheduling/gate.ts';
import type { ChannelAddress } from './channel-client.ts';
import {
  type CallFrame,
  type CancelFrame,
  channelEndpoint,
  frame,
  type HelloFrame,
  lineSplitter,
} from './channel-wire.ts';

/** A reference server of a check's own (the rate-limit checks): the spec's limit on a clock the check moves. */
export interface OwnReference {
  readonly baseUrl: string;
  readonly tokens: { readonly all: string; readonly none: string };
  close(): Promise<void>;
}

/** Starts one, with the run's faults and conformant variants (the composition root's starter). */
export type StartOwnReference = (options: {
  readonly rateLimit: { readonly perWindow: number; readonly windowMs: number; readonly now: () => number };
  readonly host?: string;
  readonly faults: readonly string[];
  readonly variants: readonly string[];
}) => Promise<OwnReference>;

/** What `/reference/start` answers a worker. */
export interface OwnReferenceAddress {
  readonly id: string;
  readonly baseUrl: string;
  readonly tokens: OwnReference['tokens'];
}

/** The watch's opening as a worker hands it to the others (../seams/event-watch.ts); opaque here. */
export type WatchRecord = { readonly ok: boolean } & Record<string, unknown>;

export interface RunChannelOptions {
  /** The check gate of a parallel run; none: the workers pass at once. */
  readonly gate?: Gate;
  /** Where the hook journal is written for the user (reports/<run>/hooks.jsonl). */
  readonly hookFile?: string;
  /** The starter of a check's own reference, and the faults and variants of the run's target now. */
  readonly ownReference?: {
    readonly start: StartOwnReference;
    readonly switches: () => { faults: readonly string[]; variants: readonly string[] };
  };
}

export interface RunChannel {
  readonly address: ChannelAddress;
  readonly states: StateJournal;
  readonly hooks: HookJournal;
  readonly clock: ClockReadings;
  /** A vitest reporter telling the gate the run's files when it starts, each file when it ends. */
  readonly reporter: {
    onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void;
    onTestModuleEnd(module: TestModule): void;
  };
  /** Forgets the watch and the clock readings: the next test run (a self-proof runner's next fault) starts anew. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

type Route = (body: Record<string, unknown>, closed: AbortSignal) => unknown;

/** The watch, opened once per test run: the first asker opens it, the others wait for its record. */
function watchRoutes(): { routes: Record<string, Route>; reset(): void } {
  let record: WatchRecord | undefined;
  let opening = false;
  let waiters: Array<(record: WatchRecord) => void> = [];
  return {
    routes: {
      '/watch/open': () => {
        if (record !== undefined) return { record };
        if (!opening) {
          opening = true;
          return { opener: true };
        }
        return new Promise((resolve) => waiters.push((r) => resolve({ record: r })));
      },
      '/watch/put': (body) => {
        record = body.record as WatchRecord;
        for (const waiter of waiters) waiter(record);
        waiters = [];
        return null;
      },
    },
    reset() {
      record = undefined;
      opening = false;
    },
  };
}

/** Each test worker's latest tallies (./tallies.ts), by worker: a judge reads them all. */
function talliesRoutes(): { routes: Record<string, Route>; reset(): void } {
  const byWorker = new Map<string, unknown>();
  return {
    routes: {
      '/tallies/put': (body) => {
        byWorker.set(String(body.worker), body);
        return null;
      },
      '/tallies/all': () => [...byWorker.values()],
    },
    reset: () => byWorker.clear(),
  };
}

/** The check gate's calls: a wait the worker gave up (its timeout, the run stopped) leaves the queue. */
function gateRoutes(gate: Gate): Record<string, Route> {
  const leaveWhenClosed = (id: string, closed: AbortSignal) => closed.addEventListener('abort', () => gate.leave(id));
  return {
    '/gate/enter': async (body, closed) => {
      leaveWhenClosed(String(body.id), closed);
      await gate.enter(String(body.id), String(body.file), body.claims as Claim[]);
      return null;
    },
    '/gate/claim': async (body, closed) => {
      leaveWhenClosed(String(body.id), closed);
      await gate.claim(String(body.id), body.claim as Claim);
      if (body.originates === true) gate.originates(String(body.id));
      return null;
    },
    '/gate/leave': (body) => {
      gate.leave(String(body.id));
      return null;
    },
  };
}

/** A check's own reference servers: started on a worker's call, closed on its call or at the run's end. */
function ownReferenceRoutes(options: RunChannelOptions['ownReference']): {
  routes: Record<string, Route>;
  closeAll(): Promise<void>;
} {
  const started = new Map<string, { server: OwnReference; clockMs: number }>();
  const close = async (id: string): Promise<void> => {
    const entry = started.get(id);
    started.delete(id);
    await entry?.server.close();
  };
  return {
    routes: {
      '/reference/start': async (body): Promise<OwnReferenceAddress> => {
        if (options === undefined) throw new Error('this run starts no reference of its own');
        const id = randomBytes(8).toString('hex');
        const entry = { clockMs: Date.now() } as { server: OwnReference; clockMs: number };
        entry.server = await options.start({
          rateLimit: { perWindow: Number(body.perWindow), windowMs: Number(body.windowMs), now: () => entry.clockMs },
          ...(typeof body.host === 'string' ? { host: body.host } : {}),
          ...options.switches(),
        });
        started.set(id, entry);
        return { id, baseUrl: entry.server.baseUrl, tokens: entry.server.tokens };
      },
      '/reference/advance': (body) => {
        const entry = started.get(String(body.id));
        if (entry !== undefined) entry.clockMs += Number(body.ms);
        return null;
      },
      '/reference/close': async (body) => {
        await close(String(body.id));
        return null;
      },
    },
    closeAll: async () => {
      for (const id of [...started.keys()]) await close(id);
    },
  };
}

/**
 * Serves one worker's connection (./channel-wire.ts): the token first, then each call answered by
 * its id with the route's value. A call cancelled, or left unanswered when the connection ends,
 * aborts its route's signal (a gate wait then leaves the queue).
 */
function serve(routes: Readonly<Record<string, Route>>, token: Buffer) {
  return (socket: Socket): void => {
    const open = new Map<number, AbortController>();
    let trusted = false;
    const answer = (id: number, reply: { value: unknown } | { error: string }): void => {
      if (!open.delete(id) || socket.destroyed) return;
      socket.write(frame({ id, ...reply }));
    };
    const onLine = (line: string): void => {
      let message: Partial<HelloFrame & CallFrame & CancelFrame>;
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        socket.destroy();
        return;
      }
      if (!trusted) {
        const given = Buffer.from(String(message.token ?? ''));
        trusted = given.length === token.length && timingSafeEqual(given, token);
        if (!trusted) socket.destroy();
        return;
      }
      if (typeof message.cancel === 'number') {
        open.get(message.cancel)?.abort();
        open.delete(message.cancel);
        return;
      }
      const id = Number(message.id);
      const route = routes[String(message.path)];
      const closed = new AbortController();
      open.set(id, closed);
      if (route === undefined) {
        answer(id, { error: `no route ${String(message.path)}` });
        return;
      }
      Promise.resolve()
        .then(() => route((message.body ?? {}) as Record<string, unknown>, closed.signal))
        .then(
          (value) => answer(id, { value: value ?? null }),
          (error: unknown) => answer(id, { error: (error as Error).message }),
        );
    };
    socket.setEncoding('utf8');
    socket.on('data', lineSplitter(onLine));
    socket.on('error', () => undefined); // a worker gone: 'close' follows
    socket.on('close', () => {
      for (const closed of open.values()) closed.abort();
      open.clear();
    });
  };
}

export async function startRunChannel(options: RunChannelOptions = {}): Promise<RunChannel> {
  const states = new StateJournal();
  const hooks = new HookJournal(options.hookFile);
  const clock = new ClockReadings();
  const watch = watchRoutes();
  const tallies = talliesRoutes();
  const own = ownReferenceRoutes(options.ownReference);
  const routes: Record<string, Route> = {
    '/states/setup': (body) => {
      states.setUp({
        id: String(body.id),
        state: body.state as ControlState,
        params: (body.params ?? {}) as Values,
        values: (body.values ?? {}) as Values,
      });
      return null;
    },
    '/states/teardown': (body) => {
      states.tornDown(String(body.id));
      return null;
    },
    '/hooks/record': (body) => {
      hooks.record(body as unknown as JournalEntry);
      return null;
    },
    '/clock/record': (body) => {
      clock.add(body.reading as ClockReading);
      return null;
    },
    '/clock/readings': (body) => clock.of(String(body.url)),
    ...watch.routes,
    ...tallies.routes,
    ...own.routes,
    ...(options.gate === undefined ? {} : gateRoutes(options.gate)),
  };
  const token = randomBytes(24).toString('base64url');
  const connections = new Set<Socket>();
  const answerCalls = serve(routes, Buffer.from(token));
  const server = createServer((socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    answerCalls(socket);
  });
  const endpoint = channelEndpoint();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(endpoint.path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const gate = options.gate;
  return {
    address: { path: endpoint.path, token },
    states,
    hooks,
    clock,
    reporter: {
      onTestRunStart: (specifications) =>
        gate?.setFiles(specifications.map((s) => ({ project: s.project.name, file: s.moduleId }))),
      onTestModuleEnd: (module) => gate?.fileEnded(module.moduleId),
    },
    async reset() {
      watch.reset();
      tallies.reset();
      clock.clear();
      await own.closeAll();
    },
    async close() {
      await own.closeAll();
      await new Promise<void>((resolve) => {
        for (const socket of connections) socket.destroy();
        server.close(() => resolve());
      });
      endpoint.remove();
    },
  };
}
