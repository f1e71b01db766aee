/**
 * When a fault counts as caught: the one judgement of a fault's run, used by the runner (a run stops
 * once its fault is caught) and the catalogue (the verdict). Pure.
 */
import type { RunReport } from '../harness/report/model.ts';
import { requirementsFailedBy } from '../harness/report/results.ts';

/** Caught when a failing check carries one of the requirement ids the fault names. Pure. */
export function judgeFault(violates: readonly string[], report: Pick<RunReport, 'checks'>): string[] {
  return (
    report.checks
      // A check split by per-requirement verdicts catches the fault only through a requirement it failed.
      .filter((check) => requirementsFailedBy(check).some((id) => violates.includes(id)))
      .map((check) => check.name)
  );
}
