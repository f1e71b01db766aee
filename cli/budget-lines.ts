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
  const rotated = report.checks.filter((c) => c.probes !== undefined);
  const outOfTurn = report.checks.filter(
    (c) => /^not verifiable: request budget: /.test(c.skipReason ?? '') && !NEAR_MISS.test(c.name),
  );
  const lines = [`request budget: ${budgetText(settings)}`];
  if (rotated.length === 0 && outOfTurn.length === 0) lines.push('  every probe and matrix cell is sent: no rotation');
  for (const c of rotated)
    lines.push(
      `  ${c.probes!.requirement}: sends ${c.probes!.sent} of ${c.probes!.of} probes (${c.name}); ` +
        `later seeds: ${c.probes!.left.join('; ')}`,
    );
  for (const c of outOfTurn) lines.push(`  out of turn, later seeds send it: ${c.name}`);
  lines.push(...nearMissLines(report.checks));
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

/** Near-miss checks are named "near miss (<family>): …" (suites/near-misses-request.suite.ts). */
const NEAR_MISS = /^near miss \(([^)]+)\): /;

/**
 * What the near-miss operators add, per family: their requests, and whether this configuration
 * sends them (they are the full set's second layer: --all-probes, or a budget covering it).
 */
export function nearMissLines(checks: Pick<RunReport, 'checks'>['checks']): string[] {
  const families = new Map<string, { requests: number; sent: boolean }>();
  for (const c of checks) {
    const family = NEAR_MISS.exec(c.name)?.[1];
    if (family === undefined) continue;
    const seen = families.get(family) ?? { requests: 0, sent: true };
    const left = /^not verifiable: request budget: /.test(c.skipReason ?? '');
    families.set(family, {
      requests: seen.requests + (c.plannedRequestsAll ?? c.plannedRequests),
      sent: seen.sent && !left,
    });
  }
  if (families.size === 0) return [];
  const total = [...families.values()].reduce((sum, f) => sum + f.requests, 0);
  const sent = [...families.values()].every((f) => f.sent);
  const each = [...families].map(([family, f]) => `${family} ${f.requests}`).join(', ');
  return [
    `  near-miss operators (docs/near-misses.md): ${total} requests (${each}); ` +
      (sent ? 'all sent' : 'none sent: --all-probes, or a --time-budget that covers the full set, sends them'),
  ];
}

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
