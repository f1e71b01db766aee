/**
 * The rules a configured value is held to, each a pure function over an env record that names
 * the variable in its one-line error: the configuration (./config.ts) and the run's settings
 * (./settings.ts) are read through them alone.
 */

/** Thrown for configuration a run cannot start with; `message` is the one line to print. */
export class ConfigError extends Error {
  readonly variable: string;
  /** `line` is the whole message when the rule already names the variable. */
  constructor(variable: string, rule: string, line?: string) {
    super(line ?? `${variable}: ${rule}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

/** A variable's value, trimmed; undefined when unset or empty. */
export function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

export function parseUrl(variable: string, value: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new ConfigError(variable, `"${value}" is not a valid URL; write it in full, e.g. https://api.example.com/v1`);
  }
}

export function requireHttpsUnlessLoopback(variable: string, url: URL): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return;
  throw new ConfigError(
    variable,
    `a remote target must use https (got ${url.protocol}//${url.host}); plain http is allowed on loopback only`,
  );
}

export function positiveInteger(env: Env, variable: string, fallback: number): number;
export function positiveInteger(env: Env, variable: string, fallback: number | undefined): number | undefined;
export function positiveInteger(env: Env, variable: string, fallback: number | undefined): number | undefined {
  const raw = read(env, variable);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw new ConfigError(variable, `must be a whole number of at least 1 (got "${raw}")`);
  }
  return Number(raw);
}

/** A number of seconds above 0 (decimals allowed): RUN_BUDGET_S, and `--time-budget` through the same rule. */
export function positiveSeconds(variable: string, raw: string): number {
  if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) <= 0)
    throw new ConfigError(variable, `must be a number of seconds above 0, e.g. 113 or 600 (got "${raw}")`);
  return Number(raw);
}

export function boolean(env: Env, variable: string): boolean {
  const raw = read(env, variable)?.toLowerCase();
  if (raw === undefined || raw === 'false' || raw === '0' || raw === 'no') return false;
  if (raw === 'true' || raw === '1' || raw === 'yes') return true;
  throw new ConfigError(variable, `must be true or false (got "${raw}")`);
}

/** A comma-separated list of ids (OCC_REFERENCE_FAULTS, OCC_REFERENCE_VARIANTS, --faults). Pure. */
export function idList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
}
