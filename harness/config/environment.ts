/**
 * The one place the suite reads the process's environment for its configuration: `.env` (when
 * present) loaded into process.env without overriding what the shell set, then the target's
 * configuration (./config.ts) and the run's settings (./settings.ts) read from it, each validated
 * once. Whoever starts a run (a command's entry point, or vitest's global set-up when vitest was
 * started directly) calls these; everything else is handed the values.
 */
import { existsSync } from 'node:fs';
import { config as loadDotenvFile } from 'dotenv';
import { loadConfig, loadControlEndpoint, type SuiteConfig } from './config.ts';
import { loadRunSettings, type RunSettings } from './settings.ts';

function loadDotenv(envFile: string): void {
  if (existsSync(envFile)) loadDotenvFile({ path: envFile, quiet: true, override: false });
}

/** `.env`, then the configuration and the run's settings from the environment. */
export function loadFromEnvironment(envFile = '.env'): { config: SuiteConfig; settings: RunSettings } {
  loadDotenv(envFile);
  return { config: loadConfig(process.env), settings: loadRunSettings(process.env) };
}

/** `.env`, then the configuration from the environment. */
export function loadConfigFromEnvironment(envFile = '.env'): SuiteConfig {
  loadDotenv(envFile);
  return loadConfig(process.env);
}

/**
 * CONTROL_URL and CONTROL_TOKEN alone, read like loadConfigFromEnvironment (`.env` without
 * overriding the shell) and by the same rules, for `occ control-check`, which needs no
 * API_BASE_URL; undefined when neither is set.
 */
export function loadControlEndpointFromEnvironment(envFile = '.env'): SuiteConfig['control'] {
  loadDotenv(envFile);
  return loadControlEndpoint(process.env);
}

/**
 * The configuration and settings of this process's environment as it is, without `.env`: a
 * process a run started with the environment it chose (the self-proof's runners), or vitest
 * started directly (whose runs never read `.env`).
 */
export function loadFromProcessEnvironment(): { config: SuiteConfig; settings: RunSettings } {
  return { config: loadConfig(process.env), settings: loadRunSettings(process.env) };
}

/** Which of these variables are set (non-empty), with their values: for the evidence's list of names. */
export function variablesSet(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => ((process.env[name] ?? '').trim() !== '' ? [[name, process.env[name]!]] : [])),
  );
}

/**
 * The environment of an embedded run this process starts in a child (the self-proof's runners):
 * what `occ run` would read (the variables, then `.env`) with the target's variables removed,
 * since a configured remote target has no fault switches; `compileCache`: NODE_COMPILE_CACHE
 * unless set, since each fault's run starts a test worker, which loads the same dependencies again.
 */
export function embeddedRunEnvironment(compileCache: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NODE_COMPILE_CACHE: compileCache, ...process.env, CI: process.env.CI ?? 'true' };
  if (existsSync('.env'))
    loadDotenvFile({ path: '.env', quiet: true, override: false, processEnv: env as Record<string, string> });
  for (const name of ['API_BASE_URL', 'AUTH_URL', 'CONTROL_URL', 'CONTROL_TOKEN', 'OCC_REFERENCE_FAULTS'])
    delete env[name];
  return env;
}
