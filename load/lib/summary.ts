/**
 * handleSummary for the probes: writes `<REPORT_DIR>/k6-<probe>.json` (k6's summary plus the
 * probe's observations and chart data), `<REPORT_DIR>/k6-<probe>.junit.xml` (one testcase per
 * threshold) and prints a short text summary on stdout. REPORT_DIR comes from __ENV (the
 * runner passes an absolute path; default reports/latest relative to k6's working directory).
 *
 * The runner (load/run.ts) reads `failedThresholds` from the JSON to print its one-line verdict.
 * What the probes observed of the target is redacted as values before it is serialised (the
 * suite's one redactor: the token k6 was given, credential fields, `whsec_` values).
 */
import { createRedactor } from '../../harness/http/redact.ts';
import { junitXml, thresholdResults } from './junit.ts';
import type { SummaryData, ThresholdMeta } from './junit.ts';

export interface ProbeReport {
  observations: Record<string, unknown>;
  chart: Record<string, unknown>;
  /** Extra lines for the text summary (the probe's headline figures). */
  lines: string[];
  /** Requirements the probe could not decide in this run, and why (never a pass: harness/report/files.ts). */
  notVerifiable?: Record<string, string>;
  /** More top-level fields of the JSON (a runner's identity and raw records, for the merge). */
  extra?: Record<string, unknown>;
  /** The files' name without extension (default k6-<probe>); a runner of N writes its own. */
  fileStem?: string;
}

export function reportDir(): string {
  const dir = (__ENV.REPORT_DIR ?? '').trim();
  return (dir === '' ? 'reports/latest' : dir).replace(/\/+$/, '');
}

/** k6 keeps every sample of a submetric key declared in thresholds; an empty list declares one. */
export function declareSubmetrics(thresholds: Record<string, string[]>, keys: readonly string[]): void {
  for (const key of keys) thresholds[key] ??= [];
}

export function buildSummary(
  probe: string,
  data: SummaryData,
  meta: readonly ThresholdMeta[],
  report: ProbeReport,
): Record<string, string> {
  const results = thresholdResults(data, meta);
  const failed = results.filter((r) => !r.ok);
  const unobserved = results.filter((r) => r.ok && !r.observed).length;
  const dir = reportDir();
  const stem = report.fileStem ?? `k6-${probe}`;
  const redact = createRedactor([__ENV.TOKEN, __ENV.CONTROL_TOKEN, __ENV.RECEIVER_TOKEN]);
  const json = redact.value({
    probe,
    generatedAt: new Date().toISOString(),
    passed: failed.length === 0,
    failedThresholds: failed.map((r) => `${r.key} ${r.expression}`),
    thresholds: results.map((r) => ({
      key: r.key,
      expression: r.expression,
      ok: r.ok,
      observed: r.observed,
      requirement: r.requirement,
      description: r.description,
    })),
    ...(report.notVerifiable === undefined ? {} : { notVerifiable: report.notVerifiable }),
    observations: report.observations,
    chart: report.chart,
    ...report.extra,
    summary: { state: data.state ?? null, metrics: data.metrics },
  });
  const seconds = ((data.state?.testRunDurationMs ?? 0) / 1000).toFixed(1);
  const text = [
    `k6 ${probe}: ${failed.length === 0 ? 'PASS' : 'FAIL'} — ` +
      `${results.length - failed.length}/${results.length} thresholds held` +
      `${unobserved > 0 ? ` (${unobserved} of them on nothing observed: no verdict)` : ''}, ${seconds} s`,
    ...report.lines.map((l) => `  ${redact(l)}`),
    ...failed.map((r) => `  crossed: ${r.key} ${r.expression} [${r.requirement}] ${r.description}`),
    `  report: ${dir}/${stem}.json, ${dir}/${stem}.junit.xml`,
    '',
  ].join('\n');
  return {
    stdout: text,
    [`${dir}/${stem}.json`]: `${JSON.stringify(json, null, 2)}\n`,
    [`${dir}/${stem}.junit.xml`]: junitXml(`k6.${probe}`, data, meta),
  };
}

/** A metric's value from the summary (0 when the metric or field is absent). */
export function value(data: SummaryData, key: string, field = 'count'): number {
  return data.metrics[key]?.values[field] ?? 0;
}
