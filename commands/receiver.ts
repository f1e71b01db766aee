/** `occ receiver`: the HTTPS webhook receiver alone (configured by RECEIVER_* and WEBHOOK_PUBLIC_URL). */
import { main } from '../harness/webhooks/receiver-cli.ts';

/** Serves until stopped: no exit code of its own. */
export async function receiver(args: readonly string[]): Promise<undefined> {
  await main(args);
  return undefined;
}
