/**
 * `occ self-proof`: each fault of the reference's catalogue switched on alone must be caught
 * (self-proof/catalogue.ts, given the catalogue here). Usage errors: one line, exit 2.
 */
import { main } from '../self-proof/catalogue.ts';
import { faults } from '../reference/faults.ts';

export async function selfProof(args: readonly string[]): Promise<number> {
  try {
    return await main(args, faults);
  } catch (error) {
    process.stderr.write(`self-proof: ${(error as Error).message}\n`);
    return 2;
  }
}

if (import.meta.main) process.exitCode = await selfProof(process.argv.slice(2));
