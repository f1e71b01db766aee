/**
 * A worker's records into the run's journals (../seams/hook-journal.ts, ../seams/control-journal.ts),
 * kept by the process that started the run and reached through the run channel (./channel.ts).
 * Each record is made before the check goes on: a run cut short is swept of what they name.
 */
import type { ControlState } from '../../contract/control.ts';
import type { Values } from '../seams/control-client.ts';
import { session } from './session.ts';

/** A hook the run created (by the token named `tokenName`, never the token itself). */
export async function journalCreated(hookId: string, tokenName: string): Promise<void> {
  await session().channel.call('/hooks/record', { hookId, tokenName, state: 'created' });
}

/** A hook the run deleted (or found gone). */
export async function journalDeleted(hookId: string, tokenName: string): Promise<void> {
  await session().channel.call('/hooks/record', { hookId, tokenName, state: 'deleted' });
}

/** A control state set up (its params and the values its setup returned: a teardown needs them). */
export async function journalSetup(id: string, state: ControlState, params: Values, values: Values): Promise<void> {
  await session().channel.call('/states/setup', { id, state, params, values });
}

export async function journalTeardown(id: string): Promise<void> {
  await session().channel.call('/states/teardown', { id });
}
