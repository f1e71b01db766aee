/**
 * The environment of a run this process starts (a conformance run against a stand-in, a test's
 * `occ`): the machine's own (harness/config/machine.ts), so that its trust store, proxy, npm and
 * Node settings reach every child, without the suite's configuration (every variable
 * .env.example documents: the child is configured by its caller alone), the OCC_ settings, or a
 * test runner's markers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentedVariables } from '../harness/config/documented.ts';
import { machineEnvironment as machineOnly } from '../harness/config/machine.ts';
import { packageRoot } from './package-root.ts';

const documented = new Set(documentedVariables(readFileSync(join(packageRoot, '.env.example'), 'utf8')));

/** `passed`: configuration variables the caller hands on as they are (e.g. PROPERTY_*). */
export function machineEnvironment(passed: (name: string) => boolean = () => false): Record<string, string> {
  return machineOnly(documented, passed);
}
