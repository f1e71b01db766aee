/** `occ control-check`: the target's test-control endpoint (CONTROL_URL) against control-openapi.json. */
import { runAsEntryPoint } from '../control-check/check.ts';

export function controlCheck(args: readonly string[]): Promise<number> {
  return runAsEntryPoint(args);
}
