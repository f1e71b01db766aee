/**
 * The run's journal of test-control states: every setup is written here before the check goes
 * on, every teardown after it succeeds. Whatever ends the run (a failure, Ctrl-C, SIGTERM, a
 * crashed worker), the sweep tears down what the journal says is still set up, as the hook
 * journal does for hooks.
 *
 * Entries carry a state's params and the values its setup returned (a teardown needs them, and
 * they can hold a token), so the journal lives in a private temporary directory (mode 0600),
 * never under reports/, and is deleted once swept.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { ControlState } from '../../contract/control.ts';
import type { ControlTransport, Values } from './control-client.ts';

interface Entry {
  readonly id: string;
  readonly phase: 'setup' | 'teardown';
  readonly state?: ControlState;
  readonly params?: Values;
  readonly values?: Values;
}

export function journalSetup(path: string, id: string, state: ControlState, params: Values, values: Values): void {
  appendFileSync(path, `${JSON.stringify({ id, phase: 'setup', state, params, values } satisfies Entry)}\n`, {
    mode: 0o600,
  });
}

export function journalTeardown(path: string, id: string): void {
  appendFileSync(path, `${JSON.stringify({ id, phase: 'teardown' } satisfies Entry)}\n`, { mode: 0o600 });
}

/** States set up and not known to be torn down, latest first (teardown in reverse order). */
export function outstandingStates(path: string): Array<Required<Pick<Entry, 'id' | 'state' | 'params' | 'values'>>> {
  if (!existsSync(path)) return [];
  const live = new Map<string, Required<Pick<Entry, 'id' | 'state' | 'params' | 'values'>>>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const entry = JSON.parse(line) as Entry;
      if (entry.phase === 'setup' && entry.state !== undefined)
        live.set(entry.id, {
          id: entry.id,
          state: entry.state,
          params: entry.params ?? {},
          values: entry.values ?? {},
        });
      else live.delete(entry.id);
    } catch {
      // a torn last line from an interrupted write: nothing to undo for it
    }
  }
  return [...live.values()].reverse();
}

/** Tears down every outstanding state; the states it could not tear down, by name (never their values). */
export async function sweepStates(path: string, transport: ControlTransport): Promise<string[]> {
  const failed: string[] = [];
  for (const entry of outstandingStates(path)) {
    try {
      await transport.teardown(entry.state, entry.params, entry.values);
      journalTeardown(path, entry.id);
    } catch (error) {
      failed.push(`${entry.state} (${(error as Error).message})`);
    }
  }
  return failed;
}
