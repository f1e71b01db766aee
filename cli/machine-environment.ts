/**
 * The environment of a run this process starts (a conformance run against a stand-in, a test's
 * `occ`): the machine's own, so that its trust store, proxy, npm and Node settings reach every
 * child (a hand-picked PATH and HOME lose them, and npm then fails on its first registry or TLS
 * request), without the suite's configuration (every variable .env.example documents: the child
 * is configured by its caller alone), the OCC_ hand-offs, or a test runner's markers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentedVariables } from '../harness/config/documented.ts';
import { packageRoot } from './package-root.ts';

const documented = new Set(documentedVariables(readFileSync(join(packageRoot, '.env.example'), 'utf8')));

/** What vitest sets in its own workers, which must not make a child think it is one. */
const testRunnerMarkers = /^(VITEST.*|TEST|NODE_ENV)$/;

/** `passed`: configuration variables the caller hands on as they are (e.g. PROPERTY_*). */
export function machineEnvironment(passed: (name: string) => boolean = () => false): Record<string, string> {
  const kept = Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined &&
      (passed(entry[0]) ||
        (!documented.has(entry[0]) && !entry[0].startsWith('OCC_') && !testRunnerMarkers.test(entry[0]))),
  );
  return Object.fromEntries(kept);
}
