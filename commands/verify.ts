/** `occ verify <evidence.zip>`: an evidence archive (`occ run --evidence`) against its manifest. */
import { main } from '../verify/verify.ts';

export function verify(args: readonly string[]): Promise<number> {
  return main(args);
}
