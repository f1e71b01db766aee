/**
 * Reading the probes' configuration from k6's __ENV (set by load/run.ts). A missing or bad
 * value throws in the init context, which stops k6 before any request is sent.
 */

export function text(name: string, fallback?: string): string {
  const raw = (__ENV[name] ?? '').trim();
  if (raw !== '') return raw;
  if (fallback !== undefined) return fallback;
  throw new Error(`${name} is not set (load/run.ts sets it; run the probe with npm run load:<probe>)`);
}

export function positiveInt(name: string, fallback?: number): number {
  const raw = (__ENV[name] ?? '').trim();
  if (raw === '' && fallback !== undefined) return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a whole number >= 1, got "${raw}"`);
  return Number(raw);
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
