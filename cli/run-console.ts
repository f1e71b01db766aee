/**
 * What `occ run` prints once the reports are written: a dry run's plan (each check's requests,
 * the budget, what --with-load would add and how long each part would take), a run's counts and
 * waivers, then what would unlock more and where the reports are. Only console lines: every
 * figure comes from the report or the configuration, none is computed here.
 */
import { join } from 'node:path';
import type { SuiteConfig } from '../harness/config/config.ts';
import type { RunSettings } from '../harness/config/settings.ts';
import type { RunReport } from '../harness/report/model.ts';
import { readable } from '../harness/report/readable.ts';
import { describeWaiver, UNUSED_WAIVER, waiverModeText } from '../harness/report/waivers.ts';
import type { RunTarget } from '../harness/run/context.ts';
import { probeRequests } from '../load/lib/probe-shape.ts';
import { budgetText, type BudgetSettings, dryRunBudgetLines, partialPassLines } from './budget-lines.ts';
import { expectedWallTime, expectedWallTimeLines } from './load-wall-time.ts';

const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/**
 * The checks' request budget, as the run computed it once (harness/run/target.ts, in the run
 * context): rate × time remotely, everything embedded.
 */
function budgetSettings(config: SuiteConfig, target: RunTarget): BudgetSettings {
  return { budget: target.budget, requestsPerMinute: target.requestsPerMinute, rateWindowMs: config.rateWindowMs };
}

/** `--dry-run --with-load`: the wall time each part of the run is expected to take (./load-wall-time.ts). */
function printExpectedWallTime(config: SuiteConfig, settings: RunSettings, plannedRequests: number): void {
  const parts = expectedWallTime({
    remote: config.target.kind === 'remote',
    control: config.control !== undefined,
    plannedRequests,
    requestsPerMinute: config.target.kind === 'remote' ? config.requestsPerMinute : undefined,
    rateWindowMs: config.rateWindowMs,
    limit: config.rateLimitPerWindow,
    webhookBudgetS: config.webhookBudgetS,
    timeBudgetS: settings.timeBudgetS,
  });
  print('\nexpected wall time of the run with --with-load, part by part:');
  for (const line of expectedWallTimeLines(parts)) print(line);
}

/** `--dry-run --with-load`: the probes' requests, bounded by design, not by the checks' budget: counted apart. */
function printLoadPlan(report: RunReport, config: SuiteConfig, target: RunTarget, settings: RunSettings): void {
  const probes = probeRequests({
    remote: config.target.kind === 'remote',
    control: config.control !== undefined,
    limit: config.rateLimitPerWindow,
    windowMs: config.rateWindowMs,
  });
  print(
    `\nthen --with-load, outside the checks' request budget of ${budgetText(budgetSettings(config, target))}; ` +
      "upper bounds from each probe's own bounded loops:",
  );
  for (const p of probes) print(`  ${String(p.maxRequests).padStart(3)}  k6 ${p.probe}: ${p.detail}`);
  print(
    `conformance: --with-load would send at most ${probes.reduce((sum, p) => sum + p.maxRequests, 0)} ` +
      `more requests (k6 probes), after the checks' ${report.requests.planned}`,
  );
  printExpectedWallTime(config, settings, report.requests.planned);
}

/** A dry run: every check and its planned requests, the budget remotely, and --with-load's share. */
export function printDryRun(
  report: RunReport,
  config: SuiteConfig,
  target: RunTarget,
  settings: RunSettings,
  withLoad: boolean,
): void {
  print(`\n${report.checks.length} checks, ${report.requests.planned} requests planned against a remote target:`);
  for (const c of report.checks) {
    const why = c.skipReason !== undefined && c.skipReason !== 'dry run' ? `  (${c.skipReason})` : '';
    print(readable(`  ${String(c.plannedRequests).padStart(3)}  ${c.name}  [${c.requirements.join(', ')}]${why}`));
  }
  if (config.target.kind === 'remote')
    print(`\n${dryRunBudgetLines(report, budgetSettings(config, target)).map(readable).join('\n')}`);
  const unverifiable = report.checks.filter((c) => c.skipReason !== undefined && c.skipReason !== 'dry run').length;
  print(
    `conformance: dry run, nothing sent: ${report.checks.length - unverifiable} checks would run, ` +
      `${unverifiable} are not verifiable with this configuration`,
  );
  if (withLoad) printLoadPlan(report, config, target, settings);
}

/** A run's counts, the requirements it passed on part of their probes, and its waivers. */
/** The network's share of the run, when it had one: never a verdict, always said. Pure. */
export function networkText(requests: RunReport['requests']): string {
  if (requests.transportFailures === 0 && requests.retries === 0) return '';
  return ` · the network broke ${requests.transportFailures} exchange(s), ${requests.retries} request(s) sent again`;
}

export function printRunOutcome(report: RunReport, durationMs: number): void {
  const r = report.counts.requirements;
  const checks = report.counts.checks;
  print(
    `conformance: ${r.passed} MUST passed, ${r.failed} failed, ${r.waived} waived, ` +
      `${r.notVerifiable} not verifiable, ${r.observed} observed` +
      ` · checks ${checks.passed} passed, ${checks.failed} failed, ${checks.skipped} skipped` +
      (checks.notRun > 0 ? `, ${checks.notRun} not run (interrupted)` : '') +
      ` · ${report.requests.sent} requests, ${report.requests.rateLimited} × 429` +
      networkText(report.requests) +
      ` · ${(durationMs / 1000).toFixed(1)} s`,
  );
  for (const line of partialPassLines(report)) print(readable(line));
  print(`conformance: waivers: ${waiverModeText(report.waivers)}`);
  for (const w of report.waivers.expired)
    print(`conformance: EXPIRED waiver (fails the run; renew or remove it): ${describeWaiver(w)}`);
  for (const w of report.waivers.unused) print(`conformance: unused waiver (${UNUSED_WAIVER}): ${describeWaiver(w)}`);
}

/** What would unlock more (control states, the load probes), the regressions, and where the reports are. */
export function printFollowUps(
  report: RunReport,
  config: SuiteConfig,
  where: { readonly dryRun: boolean; readonly dir: string; readonly reportsDir: string },
): void {
  if (!where.dryRun && report.controlGaps.length > 0) {
    const endpointState =
      config.control === undefined && config.target.kind === 'remote'
        ? 'is not configured (CONTROL_URL)'
        : 'does not offer';
    print(`conformance: the target's test-control endpoint ${endpointState}; each would unlock:`);
    for (const gap of report.controlGaps)
      print(`  ${gap.capability.padEnd(26)} ${gap.unlocks.join(', ') || '(nothing more in this run)'}`);
  }
  if (report.loadWouldDecide.length > 0)
    print(`conformance: --with-load (the k6 probes) would decide: ${report.loadWouldDecide.join(', ')}`);
  if (report.regressions.length > 0)
    print(`conformance: regressions since the previous run: ${report.regressions.join(', ')}`);
  print(`conformance: reports in ${where.dir} (and ${join(where.reportsDir, 'latest')})`);
}
