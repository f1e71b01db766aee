/**
 * The run's journal of test-control states: every setup is recorded before the check goes on,
 * every teardown after it succeeds. Whatever ends the run (a failure, Ctrl-C, SIGTERM, a crashed
 * worker), the sweep tears down what the journal says is still set up, as the hook journal does
 * for hooks.
 *
 * Entries carry a state's params and the values its setup returned (a teardown needs them, and
 * they can hold a token), so the journal is kept in the memory of the process that started the
 * run, never written anywhere; the workers record into it through the run channel
 * (harness/run/channel.ts).
 */
import type { ControlState } from '../../contract/control.ts';
import type { ControlTransport, Values } from './control-client.ts';

export interface StateEntry {
  readonly id: string;
  readonly state: ControlState;
  readonly params: Values;
  readonly values: Values;
}

export class StateJournal {
  /** States set up and not known to be torn down, in the order they were set up. */
  private readonly live = new Map<string, StateEntry>();

  setUp(entry: StateEntry): void {
    this.live.set(entry.id, entry);
  }

  tornDown(id: string): void {
    this.live.delete(id);
  }

  /** States set up and not known to be torn down, latest first (teardown in reverse order). */
  outstanding(): StateEntry[] {
    return [...this.live.values()].reverse();
  }
}

/** Tears down every outstanding state; the states it could not tear down, by name (never their values). */
export async function sweepStates(journal: StateJournal, transport: ControlTransport): Promise<string[]> {
  const failed: string[] = [];
  for (const entry of journal.outstanding()) {
    try {
      await transport.teardown(entry.state, entry.params, entry.values);
      journal.tornDown(entry.id);
    } catch (error) {
      failed.push(`${entry.state} (${(error as Error).message})`);
    }
  }
  return failed;
}
