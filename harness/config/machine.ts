/**
 * The machine's own environment, as children of a run inherit it: its trust store, proxy, npm
 * and Node settings (PATH, HOME, NODE_EXTRA_CA_CERTS, HTTPS_PROXY, …) are not the suite's
 * configuration, and a child must keep them (a hand-picked PATH and HOME lose them, and npm then
 * fails on its first registry or TLS request). The suite's own variables are left out: a child
 * is configured by its caller. Light (no import) so `occ` can turn on the compile cache with it
 * before anything else loads.
 */

/** What vitest sets in its own workers, which must not make a child think it is one. */
const testRunnerMarkers = /^(VITEST.*|TEST|NODE_ENV)$/;

/**
 * The process's environment without the suite's configuration (`documented`: the variables
 * .env.example documents), the OCC_ settings or a test runner's markers; `passed`: configuration
 * variables the caller hands on as they are (e.g. PROPERTY_*).
 */
export function machineEnvironment(
  documented: ReadonlySet<string>,
  passed: (name: string) => boolean = () => false,
): Record<string, string> {
  const kept = Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined &&
      (passed(entry[0]) ||
        (!documented.has(entry[0]) && !entry[0].startsWith('OCC_') && !testRunnerMarkers.test(entry[0]))),
  );
  return Object.fromEntries(kept);
}

/** These machine variables, those set (non-empty): what a child given a minimal environment keeps (k6: PATH, HOME…). */
export function machineVariables(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
}

/** Whether the user chose Node's compile cache folder (NODE_COMPILE_CACHE): Node then turned it on already. */
export function compileCacheChosen(): boolean {
  return process.env.NODE_COMPILE_CACHE !== undefined;
}

/**
 * Points NODE_COMPILE_CACHE at `directory` unless the user set it, for every process this one
 * starts (test workers, runs, reference servers): they compile the same modules.
 */
export function shareCompileCache(directory: string): void {
  process.env.NODE_COMPILE_CACHE ??= directory;
}
