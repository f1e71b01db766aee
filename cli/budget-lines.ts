/**
 * What `occ run` prints about the run's request budget (harness/scheduling/budget.ts): with
 * --dry-run, which probes this configuration sends and which it leaves to later seeds, and the
 * time the full set would take at the configured rate; after a run, the requirements that passed
 * on part of their probes. Pure: the lines, for the caller to print.
 */
import type { RunReport } from '../harness/report/model.ts';
import { FULL_SET_REQUESTS, secondsFor, type RunBudget } from '../harness/scheduling/budget.ts';

export interface BudgetSettings {
  readonly budget: RunBudget;
  readonly requestsPerMinute: number | undefined;
  readonly rateWindowMs: number;
}

/** "150 requests (80 per minute for 113 s)", or what makes the run send everything. */
export function budgetText({ budget, requestsPerMinute, rateWindowMs }: BudgetSettings): string {
  if (requestsPerMinute === undefined) return 'every probe (the embedded reference: requests are free)';
  const per = rateWindowMs === 60_000 ? 'per minute' : `per ${rateWindowMs / 1000} s`;
  const derived = `${budget.requests} requests (${requestsPerMinute} ${per} for ${budget.timeS} s)`;
  if (!budget.all) return derived;
  return `every probe (${budget.requests >= FULL_SET_REQUESTS ? `${derived} cover the full set` : '--all-probes'})`;
}

/** The dry run's account of the budget: each rotated list's probes sent and left, then the full set's size and time. */
export function dryRunBudgetLines(report: Pick<RunReport, 'checks'>, settings: BudgetSettings): string[] {
  const planned = report.checks.reduce((sum, c) => sum + c.plannedRequests, 0);
  const full = report.checks.reduce((sum, c) => sum + (c.plannedRequestsAll ?? c.plannedRequests), 0);
  const rotated = report.checks.filter((c) => c.probes !== undefined && !FAMILIES[0].named.test(c.name));
  const outOfTurn = report.checks.filter(
    (c) => /^not verifiable: request budget: /.test(c.skipReason ?? '') && !FAMILIES[0].named.test(c.name),
  );
  const lines = [`request budget: ${budgetText(settings)}`];
  if (rotated.length === 0 && outOfTurn.length === 0) lines.push('  every probe and matrix cell is sent: no rotation');
  for (const c of rotated)
    lines.push(
      `  ${c.probes!.requirement}: sends ${c.probes!.sent} of ${c.probes!.of} probes (${c.name}); ` +
        `later seeds: ${c.probes!.left.join('; ')}`,
    );
  for (const c of outOfTurn) lines.push(`  out of turn, later seeds send it: ${c.name}`);
  lines.push(...FAMILIES.flatMap((family) => familyLines(report.checks, family)));
  const at = (requests: number) => {
    const s = secondsFor(requests, settings.requestsPerMinute, settings.rateWindowMs);
    return settings.requestsPerMinute === undefined ? 'unthrottled' : `${Math.ceil(s)} s at this rate`;
  };
  lines.push(
    `the full set: ${full} requests, ${at(full)}; this configuration plans ${planned}, ${at(planned)}` +
      (full > planned ? ' (--all-probes, or a --time-budget that covers the full set, sends it in one run)' : ''),
  );
  return lines;
}

/** The request-sending families of a dry run: how their checks are named, and where they are documented. */
const FAMILIES = [
  { named: /^near miss \(([^)]+)\): /, heading: 'near-miss operators (docs/near-misses.md)' },
  { named: /^relation \(([^)]+)\): /, heading: 'relations of the standards (docs/relations.md)' },
] as const;

/**
 * What a family of checks adds, per member family: the requests this configuration plans at its
 * budget, and those of the full set; a family's checks are named "<kind> (<family>): …". A family
 * that sends no API request is left out.
 */
export function familyLines(
  checks: Pick<RunReport, 'checks'>['checks'],
  family: { readonly named: RegExp; readonly heading: string },
): string[] {
  const families = new Map<string, { planned: number; full: number }>();
  for (const c of checks) {
    const member = family.named.exec(c.name)?.[1];
    if (member === undefined) continue;
    const seen = families.get(member) ?? { planned: 0, full: 0 };
    families.set(member, {
      planned: seen.planned + c.plannedRequests,
      full: seen.full + (c.plannedRequestsAll ?? c.plannedRequests),
    });
  }
  const sending = [...families].filter(([, f]) => f.full > 0);
  if (sending.length === 0) return [];
  const planned = sending.reduce((sum, [, f]) => sum + f.planned, 0);
  const full = sending.reduce((sum, [, f]) => sum + f.full, 0);
  const each = sending.map(([member, f]) => `${member} ${f.planned} of ${f.full}`).join(', ');
  return [
    `  ${family.heading}: ${planned} of the full set's ${full} requests at this budget (${each})` +
      (planned < full ? '; later seeds send the others, --all-probes or a budget covering the full set all' : ''),
  ];
}

/** What the near-miss operators add (docs/near-misses.md), per family. */
export const nearMissLines = (checks: Pick<RunReport, 'checks'>['checks']) => familyLines(checks, FAMILIES[0]);

/** After a run: the requirements passed on part of their probes, or nothing when none was. */
export function partialPassLines(report: Pick<RunReport, 'requirements'>): string[] {
  const partial = report.requirements.filter((r) => r.probes !== undefined);
  if (partial.length === 0) return [];
  return [
    `conformance: ${partial.length} requirement${partial.length === 1 ? '' : 's'} passed on part of ` +
      'their probes (the budget left the others to later seeds; --all-probes sends them all):',
    ...partial.map((r) => `  ${r.id}: passed (${r.probes!.sent} of ${r.probes!.of} probes this run)`),
  ];
}
