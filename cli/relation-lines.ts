/**
 * What the relation families add to a run (docs/relations.md "Budget"), for `occ run --dry-run`:
 * the requests this configuration plans at its budget and those of the full set, per family; each
 * family's checks are named "relation (<family>): …". A family that sends no request is left out.
 */
import type { RunReport } from '../harness/report/model.ts';

const RELATION = /^relation \(([^)]+)\): /;

export function relationLines(checks: Pick<RunReport, 'checks'>['checks']): string[] {
  const families = new Map<string, { planned: number; full: number }>();
  for (const c of checks) {
    const family = RELATION.exec(c.name)?.[1];
    if (family === undefined) continue;
    const seen = families.get(family) ?? { planned: 0, full: 0 };
    families.set(family, {
      planned: seen.planned + c.plannedRequests,
      full: seen.full + (c.plannedRequestsAll ?? c.plannedRequests),
    });
  }
  const sending = [...families].filter(([, f]) => f.full > 0);
  if (sending.length === 0) return [];
  const planned = sending.reduce((sum, [, f]) => sum + f.planned, 0);
  const full = sending.reduce((sum, [, f]) => sum + f.full, 0);
  const each = sending.map(([family, f]) => `${family} ${f.planned} of ${f.full}`).join(', ');
  return [
    `  relations of the standards (docs/relations.md): ${planned} of the full set's ${full} requests at this ` +
      `budget (${each})` +
      (planned < full ? '; later seeds send the others, --all-probes or a budget covering the full set all' : ''),
  ];
}
