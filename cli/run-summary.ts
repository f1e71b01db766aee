/**
 * `occ run`'s summary: the report built from what the collector saw, the k6 probes' summaries and
 * the waivers, written to reports/<run>/ and reports/latest/ in every format; `--update-waivers`'s
 * additions; and `--evidence`'s archive of the reports with their SHA-256.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redactor } from '../harness/http/redact.ts';
import type { CheckCollector } from '../harness/report/collector.ts';
import { gitCommit, writeEvidence } from '../harness/report/evidence.ts';
import { previousRuns, writeReports } from '../harness/report/files.ts';
import { buildReport, type RunReport } from '../harness/report/model.ts';
import { applyWaivers, updateWaiverFile } from '../harness/report/waivers.ts';
import { packageRoot } from './package-root.ts';
import { type LoadProbe, loadSummaries } from './run-load.ts';
import type { RunPlan } from './run-start.ts';

const suitePackage = (): { name: string; version: string } =>
  JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { name: string; version: string };

/** The run's report, waivers applied, written to reports/<run>/ and reports/latest/. */
export function writeRunReport(
  plan: RunPlan,
  run: { collector: CheckCollector; redact: Redactor; durationMs: number; sweepRequests: number },
  load: { probesSince: string | undefined; unfinished: ReadonlyMap<LoadProbe, string>; interrupted: boolean },
): { report: RunReport; dir: string } {
  const { options, config } = plan;
  const waived = applyWaivers(run.collector.results, plan.waivers, {
    strict: options.strict,
    today: plan.startedAt.slice(0, 10),
    file: plan.waiverFile,
  });
  const target = {
    kind: config.target.kind,
    baseUrl: config.target.kind === 'remote' ? config.target.baseUrl : 'embedded reference server',
  } as const;
  const report = buildReport({
    tool: 'outbound-calling-conformance',
    suiteVersion: suitePackage().version,
    target,
    startedAt: plan.startedAt,
    durationMs: run.durationMs,
    seed: plan.seed,
    dryRun: options.dryRun,
    checks: waived.checks,
    waivers: waived.summary,
    // Written by k6 with its own redaction; scrubbed once more of the configured secrets.
    load: options.dryRun ? [] : run.redact.value(loadSummaries(plan.reportsRoot, load.probesSince, load.unfinished)),
    previous: previousRuns(plan.reportsRoot, target),
    requestsSent: run.collector.results.reduce((sum, c) => sum + c.requests, 0) + run.sweepRequests,
    unhandledErrors: run.collector.unhandledErrors,
    interrupted: load.interrupted,
    withLoad: options.withLoad,
  });
  return { report, dir: writeReports(report, plan.reportsRoot).dir };
}

/** `--update-waivers`: this run's failures added to the waiver file, for the user to fill in. */
export function updateWaivers(plan: RunPlan, report: RunReport): void {
  if (plan.waiverFile === undefined) return;
  const added = updateWaiverFile(plan.waiverFile, report.checks);
  process.stdout.write(
    `conformance: --update-waivers: ${added} failure${added === 1 ? '' : 's'} added to ${plan.waiverFile} ` +
      '(fill in reason, ticket and expires)\n',
  );
}

/** `--evidence`: the reports and a manifest of their SHA-256 in reports/<run>/evidence.zip. */
export function writeRunEvidence(plan: RunPlan, report: RunReport, dir: string, exitCode: number): void {
  const pkg = suitePackage();
  const { path } = writeEvidence({
    runDir: dir,
    report,
    exitCode,
    suite: { name: pkg.name, version: pkg.version, gitCommit: gitCommit(packageRoot) },
    openapi: readFileSync(join(packageRoot, 'openapi.json')),
    configuration: plan.configuration,
  });
  process.stdout.write(`conformance: evidence in ${path} (check it with occ verify ${path})\n`);
}
