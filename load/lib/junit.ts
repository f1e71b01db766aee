/**
 * JUnit XML from a k6 end-of-test summary: one <testcase> per threshold expression, a
 * <failure> for each crossed one. Our own small module instead of the usual remote jslib
 * import, so k6 runs offline. Everything interpolated into the XML is escaped.
 *
 * Thresholds are labelled through `ThresholdMeta` (the requirement id a threshold checks and a
 * sentence saying what it means), which becomes the testcase's classname and name.
 */

/** The parts of k6's summary data these modules read. */
export interface SummaryMetric {
  type: 'counter' | 'gauge' | 'rate' | 'trend';
  contains?: string;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

export interface SummaryData {
  metrics: Record<string, SummaryMetric>;
  state?: { testRunDurationMs?: number; isStdOutTTY?: boolean };
  setup_data?: unknown;
  options?: unknown;
  root_group?: unknown;
}

export interface ThresholdMeta {
  /** The threshold key as in options.thresholds, e.g. `accepted_over{window:0}`. */
  key: string;
  /** Requirement id from requirements/catalogue.ts, or a probe-level label. */
  requirement: string;
  /** What passing means, in one sentence. */
  description: string;
}

export interface ThresholdResult {
  key: string;
  expression: string;
  ok: boolean;
  requirement: string;
  description: string;
  values: Record<string, number>;
  /**
   * False for a rate threshold on a metric that got no sample: k6 holds `rate==1` on nothing, but
   * a check never made verified nothing (e.g. a retry not seen within the watch). Never a pass.
   */
  observed: boolean;
}

/** A rate metric with no sample observed nothing: its threshold holds vacuously. Pure. */
export function observedAnything(metric: SummaryMetric): boolean {
  return metric.type !== 'rate' || (metric.values.passes ?? 0) + (metric.values.fails ?? 0) > 0;
}

export function xmlEscape(value: string): string {
  return (
    value
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
      // Characters XML 1.0 cannot carry at all.
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
  );
}

/** Every threshold expression of the run, in the order of `meta` then any unlabelled rest. */
export function thresholdResults(data: SummaryData, meta: readonly ThresholdMeta[]): ThresholdResult[] {
  const byKey = new Map(meta.map((m) => [m.key, m]));
  const keys = [
    ...meta.map((m) => m.key),
    ...Object.keys(data.metrics)
      .filter((k) => !byKey.has(k))
      .sort(),
  ];
  const results: ThresholdResult[] = [];
  for (const key of keys) {
    const metric = data.metrics[key];
    if (metric === undefined || metric.thresholds === undefined) continue;
    const m = byKey.get(key);
    for (const [expression, outcome] of Object.entries(metric.thresholds)) {
      results.push({
        key,
        expression,
        ok: outcome.ok,
        requirement: m?.requirement ?? 'k6',
        description: m?.description ?? key,
        values: metric.values,
        observed: observedAnything(metric),
      });
    }
  }
  return results;
}

function formatValues(values: Record<string, number>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(3)}`)
    .join(' ');
}

export function junitXml(suite: string, data: SummaryData, meta: readonly ThresholdMeta[]): string {
  const results = thresholdResults(data, meta);
  const failures = results.filter((r) => !r.ok).length;
  const skipped = results.filter((r) => r.ok && !r.observed).length;
  const seconds = ((data.state?.testRunDurationMs ?? 0) / 1000).toFixed(3);
  const cases = results.map((r) => {
    const name = xmlEscape(`${r.key} ${r.expression} — ${r.description}`);
    const open = `    <testcase classname="${xmlEscape(`${suite}.${r.requirement}`)}" name="${name}" time="0">`;
    if (r.ok && !r.observed)
      return `${open}\n      <skipped message="not observed: no sample within the probe"/>\n    </testcase>`;
    if (r.ok) return `${open}</testcase>`;
    const message = xmlEscape(`threshold ${r.key}: ${r.expression} crossed`);
    const detail = xmlEscape(`${r.requirement}: ${r.description}\nobserved: ${formatValues(r.values)}`);
    return `${open}\n      <failure message="${message}" type="threshold">${detail}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(suite)}" tests="${results.length}" failures="${failures}" ` +
      `skipped="${skipped}" time="${seconds}">`,
    `  <testsuite name="${xmlEscape(suite)}" tests="${results.length}" failures="${failures}" errors="0" ` +
      `skipped="${skipped}" time="${seconds}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
