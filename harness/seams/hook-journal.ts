/**
 * The run's side-effect journal: every hook the suite creates is recorded before the check goes
 * on, and every delete after it succeeds. Whatever ends the run (a failure, Ctrl-C, SIGTERM, a
 * crashed worker), the sweep deletes what the journal says is still there.
 *
 * Kept in the memory of the process that started the run (the workers record into it through the
 * run channel, harness/run/channel.ts) and, for the user, written line by line as it grows to
 * `reports/<run>/hooks.jsonl` when the run has one: a hook id is no secret, and a user cleaning up
 * after a run killed outright reads it there.
 */
import { appendFileSync } from 'node:fs';
import type { ApiClient } from '../http/client.ts';

export interface JournalEntry {
  readonly hookId: string;
  /** Which configured token created it (a token name, never the token). */
  readonly tokenName: string;
  readonly state: 'created' | 'deleted';
}

export class HookJournal {
  private readonly live = new Map<string, JournalEntry>();
  private readonly file: string | undefined;

  /** `file`: where the user reads the journal (reports/<run>/hooks.jsonl); none: memory only. */
  constructor(file?: string) {
    this.file = file;
  }

  record(entry: JournalEntry): void {
    if (this.file !== undefined) appendFileSync(this.file, `${JSON.stringify(entry satisfies JournalEntry)}\n`);
    if (entry.state === 'created') this.live.set(entry.hookId, entry);
    else this.live.delete(entry.hookId);
  }

  /** Hooks created and not known to be deleted. */
  outstanding(): JournalEntry[] {
    return [...this.live.values()];
  }
}

/**
 * Deletes every outstanding hook. 204 and 404 both mean gone (404: disabled or never created);
 * anything else is reported so a user can clean up by hand.
 */
export async function sweepHooks(
  journal: HookJournal,
  api: ApiClient,
  tokens: Readonly<Record<string, string | undefined>>,
): Promise<{ deleted: number; failed: string[] }> {
  let deleted = 0;
  const failed: string[] = [];
  for (const entry of journal.outstanding()) {
    const token = tokens[entry.tokenName];
    if (token === undefined) {
      failed.push(`${entry.hookId} (no ${entry.tokenName} token to delete it with)`);
      continue;
    }
    // 204 and 404 both mean gone, so a DELETE the network broke is sent again (repeatable).
    const exchange = await api.send({ method: 'DELETE', path: `/hooks/${entry.hookId}`, token, repeatable: true });
    if (exchange.status === 204 || exchange.status === 404) {
      journal.record({ hookId: entry.hookId, tokenName: entry.tokenName, state: 'deleted' });
      deleted += exchange.status === 204 ? 1 : 0;
    } else {
      failed.push(`${entry.hookId} (DELETE answered ${exchange.status ?? exchange.transportError})`);
    }
  }
  return { deleted, failed };
}
