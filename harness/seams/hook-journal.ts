/**
 * The run's side-effect journal: every hook the suite creates is written here before the test
 * goes on, and every delete after it succeeds. Whatever ends the run (a failure, Ctrl-C,
 * SIGTERM, a crashed worker), the sweep deletes what the journal says is still there.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { ApiClient } from '../http/client.ts';

export interface JournalEntry {
  readonly hookId: string;
  /** Which configured token created it (a token name, never the token). */
  readonly tokenName: string;
  readonly state: 'created' | 'deleted';
}

export function journalCreated(path: string, hookId: string, tokenName: string): void {
  appendFileSync(path, `${JSON.stringify({ hookId, tokenName, state: 'created' } satisfies JournalEntry)}\n`);
}

export function journalDeleted(path: string, hookId: string, tokenName: string): void {
  appendFileSync(path, `${JSON.stringify({ hookId, tokenName, state: 'deleted' } satisfies JournalEntry)}\n`);
}

/** Hooks created and not known to be deleted. Unreadable lines (a write cut short) are skipped. */
export function outstandingHooks(path: string): JournalEntry[] {
  if (!existsSync(path)) return [];
  const live = new Map<string, JournalEntry>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const entry = JSON.parse(line) as JournalEntry;
      if (entry.state === 'created') live.set(entry.hookId, entry);
      else live.delete(entry.hookId);
    } catch {
      // a torn last line from an interrupted write: nothing to undo for it
    }
  }
  return [...live.values()];
}

/**
 * Deletes every outstanding hook. 204 and 404 both mean gone (404: disabled or never created);
 * anything else is reported so a user can clean up by hand.
 */
export async function sweepHooks(
  path: string,
  api: ApiClient,
  tokens: Readonly<Record<string, string | undefined>>,
): Promise<{ deleted: number; failed: string[] }> {
  let deleted = 0;
  const failed: string[] = [];
  for (const entry of outstandingHooks(path)) {
    const token = tokens[entry.tokenName];
    if (token === undefined) {
      failed.push(`${entry.hookId} (no ${entry.tokenName} token to delete it with)`);
      continue;
    }
    const exchange = await api.send({ method: 'DELETE', path: `/hooks/${entry.hookId}`, token });
    if (exchange.status === 204 || exchange.status === 404) {
      journalDeleted(path, entry.hookId, entry.tokenName);
      deleted += exchange.status === 204 ? 1 : 0;
    } else {
      failed.push(`${entry.hookId} (DELETE answered ${exchange.status ?? exchange.transportError})`);
    }
  }
  return { deleted, failed };
}
