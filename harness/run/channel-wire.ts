/**
 * The run channel's wire (./channel.ts serves it, ./channel-client.ts calls it): newline-delimited
 * JSON over a local stream socket. A connection opens with the run's token; then each line is one
 * frame: a call `{id, path, body}` or a cancel `{cancel: id}` from a worker, an answer
 * `{id, value}` or `{id, error}` from the run. JSON.stringify never writes a raw newline, so a line
 * is always a whole frame.
 *
 * Not HTTP: a run makes thousands of these calls (the clock readings, the journals, the gate), and
 * a frame on a local socket costs a fraction of an HTTP exchange's CPU in both processes, with the
 * same meaning: a call is answered once, a cancelled or dropped call aborts what it waited for.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface HelloFrame {
  readonly token: string;
}
export interface CallFrame {
  readonly id: number;
  readonly path: string;
  readonly body: unknown;
}
export interface CancelFrame {
  readonly cancel: number;
}
export interface AnswerFrame {
  readonly id: number;
  readonly value?: unknown;
  readonly error?: string;
}

/** One frame as a line. */
export function frame(value: HelloFrame | CallFrame | CancelFrame | AnswerFrame): string {
  return `${JSON.stringify(value)}\n`;
}

/** Reassembles lines from a stream's chunks (a chunk may hold several lines, or part of one). */
export function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let partial = '';
  return (chunk) => {
    let start = 0;
    let end = chunk.indexOf('\n');
    while (end !== -1) {
      onLine(partial + chunk.slice(start, end));
      partial = '';
      start = end + 1;
      end = chunk.indexOf('\n', start);
    }
    partial += chunk.slice(start);
  };
}

/**
 * Where a run's channel listens: on Linux a name in the abstract socket namespace (no file, so
 * nothing is left behind, whatever ends the run); on Windows a named pipe; elsewhere a socket file
 * in a folder only this user may enter, removed at close. Whoever can reach it still needs the token.
 */
export function channelEndpoint(platform: NodeJS.Platform = process.platform): {
  readonly path: string;
  remove(): void;
} {
  const name = `occ-run-${randomBytes(12).toString('hex')}`;
  if (platform === 'linux') return { path: `\0${name}`, remove: () => undefined };
  if (platform === 'win32') return { path: `\\\\.\\pipe\\${name}`, remove: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'occ-run-'));
  return { path: join(dir, 'channel.sock'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
