/** `occ reference`: the embedded reference server standalone, printing its URLs and tokens. */
import { main } from '../reference/cli.ts';

/** Serves until stopped: no exit code of its own. */
export async function reference(args: readonly string[]): Promise<undefined> {
  await main(args);
  return undefined;
}
