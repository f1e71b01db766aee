/**
 * Known failures kept in a waiver file (`occ run --waivers waivers.json`, or WAIVERS_FILE).
 *
 *   { "waivers": [ { "requirement": "CDRS-WINDOW-MAX-31D", "check": "<check name, optional>",
 *                    "reason": "…", "ticket": "OPS-123", "expires": "2026-12-31" } ] }
 *
 * A waiver covers a failure of its requirement (in the named check only, when it names one).
 * A failed check whose every failed requirement is covered is reported as `waived`: not passed,
 * and not failing the exit code. A waiver past its `expires` date (the last day it holds, UTC)
 * covers nothing and fails the run, naming it. A waiver that covered nothing in a run where a
 * check of its requirement ran is reported as unused: the failure is fixed, remove it.
 * `--strict` ignores every waiver (vendor acceptance); the report says which mode it ran in.
 * Pure functions; reading and writing the file is at the edges (loadWaiverFile, updateWaiverFile).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isRequirementId } from '../../requirements/catalogue.ts';
import { requirementsFailedBy, type CheckResult, type Waiver } from './results.ts';

/** How a run treated its waivers; `none` when no waiver file was given. */
export type WaiverMode = 'waivers' | 'strict' | 'none';

export interface WaiverSummary {
  readonly mode: WaiverMode;
  readonly file?: string | undefined;
  /** Entries in the file (read even in strict mode, so the report can say what was ignored). */
  readonly entries: number;
  readonly applied: ReadonlyArray<Waiver & { readonly checks: readonly string[] }>;
  readonly expired: readonly Waiver[];
  readonly unused: readonly Waiver[];
}

export class WaiverError extends Error {}

const FIELDS = ['requirement', 'check', 'reason', 'ticket', 'expires'] as const;

function isDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

/**
 * Validates a waiver file's parsed JSON. Each problem is one line naming the entry and field.
 * `null` stands for a field left for a person to fill (what --update-waivers writes).
 */
export function parseWaivers(value: unknown, file: string): Waiver[] {
  const list = (value as { waivers?: unknown } | null)?.waivers;
  if (typeof value !== 'object' || value === null || !Array.isArray(list)) {
    throw new WaiverError(`${file}: expected {"waivers": [ … ]}; see the README's "Known failures" for the format`);
  }
  return list.map((entry: unknown, index): Waiver => {
    const where = `${file}: waivers[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new WaiverError(`${where} must be an object with at least "requirement"`);
    const record = entry as Record<string, unknown>;
    const text = (field: (typeof FIELDS)[number]): string | undefined => {
      const v = record[field];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string') throw new WaiverError(`${where}.${field} must be a string (got ${JSON.stringify(v)})`);
      return v;
    };
    const requirement = text('requirement');
    if (requirement === undefined || requirement === '')
      throw new WaiverError(`${where} names no "requirement"; give a requirement id of requirements/catalogue.ts`);
    if (!isRequirementId(requirement))
      throw new WaiverError(
        `${where}.requirement "${requirement}" is not a requirement id of requirements/catalogue.ts`,
      );
    const expires = text('expires');
    if (expires !== undefined && !isDate(expires))
      throw new WaiverError(
        `${where}.expires "${expires}" is not a date; write YYYY-MM-DD (the last day the waiver holds)`,
      );
    const check = text('check');
    if (check === '') throw new WaiverError(`${where}.check is empty; name a check or leave the field out`);
    return { requirement, check, reason: text('reason'), ticket: text('ticket'), expires };
  });
}

/** Reads and validates a waiver file; a missing or unparsable file is a WaiverError (one line). */
export function loadWaiverFile(path: string): Waiver[] {
  if (!existsSync(path))
    throw new WaiverError(
      `waiver file ${path} does not exist; ` +
        'create it (occ run --update-waivers writes one) or fix --waivers / WAIVERS_FILE',
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new WaiverError(`${path} is not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  return parseWaivers(parsed, path);
}

/** The requirements a failed check fails (all it verifies: a plain failure fails every one). */
function failedBy(check: CheckResult): readonly string[] {
  // Per-requirement verdicts (t.verify) name the requirements a check failed; otherwise all of them.
  return check.status === 'failed' ? requirementsFailedBy(check) : [];
}

function covers(waiver: Waiver, check: CheckResult, requirement: string): boolean {
  return waiver.requirement === requirement && (waiver.check === undefined || waiver.check === check.name);
}

/** Expired on `today` (YYYY-MM-DD, UTC): the expiry date is the last day the waiver holds. */
export function isExpired(waiver: Waiver, today: string): boolean {
  return waiver.expires !== undefined && waiver.expires < today;
}

/**
 * Applies waivers to a run's checks. Strict mode or no file: the checks unchanged and the mode
 * recorded. Otherwise each failed check gets `waivedRequirements` for the failed requirements a
 * live waiver covers, and becomes `waived` when that is all of them.
 */
export function applyWaivers(
  checks: readonly CheckResult[],
  waivers: readonly Waiver[] | undefined,
  options: { readonly strict: boolean; readonly today: string; readonly file?: string | undefined },
): { checks: CheckResult[]; summary: WaiverSummary } {
  if (waivers === undefined || options.strict) {
    return {
      checks: [...checks],
      summary: {
        mode: waivers === undefined && !options.strict ? 'none' : 'strict',
        file: options.file,
        entries: waivers?.length ?? 0,
        applied: [],
        expired: [],
        unused: [],
      },
    };
  }
  const live = waivers.filter((w) => !isExpired(w, options.today));
  const used = new Map<Waiver, string[]>();
  const result = checks.map((check): CheckResult => {
    const failed = failedBy(check);
    if (failed.length === 0) return check;
    const waivedRequirements = failed.filter((id) => live.some((w) => covers(w, check, id)));
    if (waivedRequirements.length === 0) return check;
    for (const w of live)
      if (waivedRequirements.some((id) => covers(w, check, id))) used.set(w, [...(used.get(w) ?? []), check.name]);
    const all = waivedRequirements.length === failed.length;
    return {
      ...check,
      ...(all ? { status: 'waived' as const } : {}),
      waivedRequirements,
      waivers: live.filter((w) => waivedRequirements.some((id) => covers(w, check, id))),
    };
  });
  // Unused: a check its waiver could cover ran (passed or failed) yet the waiver covered nothing;
  // or it names a check its requirement has none of, while a check of that requirement ran (a
  // misspelt name would otherwise cover nothing, silently).
  const ran = (w: Waiver) => {
    const ofRequirement = checks.filter((c) => c.requirements.includes(w.requirement));
    const anyCheck = w.check === undefined || !ofRequirement.some((c) => c.name === w.check);
    return ofRequirement.some(
      (c) => (c.status === 'passed' || c.status === 'failed') && (anyCheck || c.name === w.check),
    );
  };
  return {
    checks: result,
    summary: {
      mode: 'waivers',
      file: options.file,
      entries: waivers.length,
      applied: [...used].map(([w, names]) => ({ ...w, checks: [...new Set(names)] })),
      expired: waivers.filter((w) => isExpired(w, options.today)),
      unused: live.filter((w) => !used.has(w) && ran(w)),
    },
  };
}

/** What every report says of an unused waiver, and what to do about it. */
export const UNUSED_WAIVER = 'a check of its requirement ran and it covered nothing: remove it, or fix its check name';

/** "CDRS-WINDOW-MAX-31D (check "…", ticket OPS-1, expires 2026-12-31)": a waiver on one line. */
export function describeWaiver(w: Waiver): string {
  const details = [
    w.check === undefined ? undefined : `check "${w.check}"`,
    w.ticket === undefined ? undefined : `ticket ${w.ticket}`,
    w.expires === undefined ? 'no expiry' : `expires ${w.expires}`,
  ].filter((d) => d !== undefined);
  return `${w.requirement} (${details.join(', ')})${w.reason === undefined ? '' : `: ${w.reason}`}`;
}

/**
 * The waiver file with the run's failures added (requirement and check named; reason, ticket and
 * expiry null for a person to fill). Existing entries are kept exactly as they are, unknown
 * fields included; a failure an existing entry already covers is not added again. Pure.
 */
export function withFailuresAdded(
  existing: unknown,
  checks: readonly CheckResult[],
): { file: { waivers: unknown[] } & Record<string, unknown>; added: number } {
  const base =
    typeof existing === 'object' && existing !== null && Array.isArray((existing as { waivers?: unknown }).waivers)
      ? (existing as { waivers: unknown[] } & Record<string, unknown>)
      : { waivers: [] as unknown[] };
  const current = base.waivers.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null);
  const known = (requirement: string, check: string) =>
    current.some(
      (e) => e.requirement === requirement && (e.check === undefined || e.check === null || e.check === check),
    );
  const additions: Record<string, unknown>[] = [];
  for (const check of checks) {
    const stillFailing = requirementsFailedBy(check);
    for (const requirement of stillFailing) {
      if (
        known(requirement, check.name) ||
        additions.some((a) => a.requirement === requirement && a.check === check.name)
      )
        continue;
      additions.push({ requirement, check: check.name, reason: null, ticket: null, expires: null });
    }
  }
  return { file: { ...base, waivers: [...base.waivers, ...additions] }, added: additions.length };
}

/** Reads the waiver file if there is one, adds the run's failures, writes it back. */
export function updateWaiverFile(path: string, checks: readonly CheckResult[]): number {
  let existing: unknown;
  if (existsSync(path)) {
    try {
      existing = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new WaiverError(
        `${path} is not valid JSON (${(error as Error).message.split('\n')[0]}); ` +
          'fix it before --update-waivers adds to it',
      );
    }
    parseWaivers(existing, path);
  }
  const { file, added } = withFailuresAdded(existing, checks);
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
  return added;
}

/** The waiver mode in words, as every report format states it. */
export function waiverModeText(summary: WaiverSummary): string {
  if (summary.mode === 'strict') {
    const ignored = summary.file === undefined ? '' : ` (${summary.entries} in ${summary.file})`;
    return `strict: every waiver ignored${ignored}`;
  }
  if (summary.mode === 'waivers') {
    const entries = `${summary.entries} entr${summary.entries === 1 ? 'y' : 'ies'}`;
    return (
      `waivers applied from ${summary.file ?? 'the waiver file'} (${entries}: ` +
      `${summary.applied.length} used, ${summary.unused.length} unused, ${summary.expired.length} expired)`
    );
  }
  return 'no waiver file';
}
