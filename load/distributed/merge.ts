/**
 * ONE verdict from N cooperating rate-limit runners (../lib/runners.ts): the summaries each runner
 * wrote (k6-rate-limit.runner-<i>-of-<N>.json, local runners or k6-operator pods) become one
 * summary in the shape of a single probe's (k6-rate-limit.json + .junit.xml), which the report
 * reads like any other (harness/report/files.ts fromK6Summary). Pure.
 *
 * Thresholds are judged here, not taken from the runners: under k6-operator each runner judges
 * its own thresholds alone (grafana/k6-operator#812), and a count summed over runners is not what
 * the per-IP rule says. Every threshold of the probe is a rule for ONE client address (its own
 * budget served, its excess refused, its several tokens counted together), so each is evaluated
 * again on each runner's own metrics and holds only when it holds for every address; runners that
 * share an address are left out of those rules (their loads add up on one budget). The rule
 * across addresses is the merge's own: while runner 1's address was refused, the first request
 * of every other address was served (`second_address_served`).
 *
 * A runner missing, stopped before the end of its phases, or ended by a signal or an error makes
 * the merged verdict not run: never failed, never passed.
 */
import {
  junitXml,
  thresholdResults,
  xmlEscape,
  type SummaryData,
  type SummaryMetric,
  type ThresholdMeta,
} from '../lib/junit.ts';
import { RUNNER_SUMMARY, type PerIpRecord } from '../lib/runners.ts';

/** What a runner's summary holds (load/lib/summary.ts buildSummary, load/rate-limit.ts extra). */
export interface RunnerSummary {
  probe: string;
  generatedAt?: string;
  passed: boolean;
  failedThresholds: string[];
  thresholds: Array<{
    key: string;
    expression: string;
    ok: boolean;
    observed?: boolean;
    requirement?: string;
    description?: string;
  }>;
  observations?: Record<string, unknown>;
  chart?: { perSecond?: Array<{ second: number; accepted: number; refused: number }> } & Record<string, unknown>;
  summary?: { state?: unknown; metrics?: Record<string, SummaryMetric> };
  runner?: { index: number; count: number; address: string | null };
  completed?: boolean;
  perIp?: PerIpRecord | null;
}

/** One runner as the merge sees it: its summary (if it left one) and how its process ended (local runs). */
export interface RunnerResult {
  readonly index: number;
  readonly count: number;
  readonly file?: string;
  readonly summary?: RunnerSummary;
  /** Local runners: k6's exit code (0 pass, 99 thresholds crossed; anything else: it did not finish). */
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  /** Why its summary could not be read. */
  readonly unreadable?: string;
}

export interface MergedSummary {
  probe: string;
  generatedAt: string;
  passed: boolean;
  failedThresholds: string[];
  thresholds: Array<{
    key: string;
    expression: string;
    ok: boolean;
    observed: boolean;
    requirement: string;
    description: string;
  }>;
  notVerifiable?: Record<string, string>;
  notFinished?: { reason: string };
  observations: Record<string, unknown>;
  chart: Record<string, unknown>;
  merged: {
    runners: number;
    addresses: Array<string | null>;
    perRunner: Array<{
      runner: number;
      address: string | null;
      passed: boolean | null;
      failedThresholds: string[];
      ended: string;
    }>;
  };
}

const SECOND_ADDRESS: ThresholdMeta = {
  key: 'second_address_served',
  requirement: 'RATE-LIMIT-PER-IP',
  description:
    "while runner 1's address was refused, the first request from every other runner's address was served: " +
    'each client IP has a budget of its own',
};

const THRESHOLD =
  /^\s*(count|rate|value|avg|min|max|med|p\(\d+(?:\.\d+)?\))\s*(==|!=|>=|<=|>|<)\s*(-?\d+(?:\.\d+)?)\s*$/;

/** A k6 threshold expression on a metric's values (the forms the probes use); undefined when not one of them. */
export function evaluateThreshold(expression: string, values: Record<string, number>): boolean | undefined {
  const m = THRESHOLD.exec(expression);
  if (m === null) return undefined;
  const actual = values[m[1]!] ?? 0;
  const expected = Number(m[3]);
  switch (m[2]) {
    case '==':
      return actual === expected;
    case '!=':
      return actual !== expected;
    case '>=':
      return actual >= expected;
    case '<=':
      return actual <= expected;
    case '>':
      return actual > expected;
    default:
      return actual < expected;
  }
}

/** Runner files in a directory listing: by probe, each with its place (1-based in the name). Pure. */
export function runnerFiles(
  names: readonly string[],
): Map<string, Array<{ name: string; index: number; count: number }>> {
  const byProbe = new Map<string, Array<{ name: string; index: number; count: number }>>();
  for (const name of [...names].sort()) {
    const m = RUNNER_SUMMARY.exec(name);
    if (m === null) continue;
    const list = byProbe.get(m[1]!) ?? [];
    list.push({ name, index: Number(m[2]) - 1, count: Number(m[3]) });
    byProbe.set(m[1]!, list);
  }
  return byProbe;
}

function isServed(status: number): boolean {
  return status >= 200 && status < 300;
}

/** Why a runner did not finish, or undefined when it did. */
function notFinished(r: RunnerResult): string | undefined {
  const who = `runner ${r.index + 1} of ${r.count}`;
  if (r.signal !== undefined && r.signal !== null) return `${who} was ended by ${r.signal}`;
  if (r.exitCode !== undefined && r.exitCode !== null && r.exitCode !== 0 && r.exitCode !== 99)
    return `${who}: k6 exited with code ${r.exitCode}`;
  if (r.unreadable !== undefined) return `${who}: its summary is unreadable (${r.unreadable})`;
  if (r.summary === undefined) return `${who} left no summary (stopped before its end?)`;
  if (r.summary.completed !== true) return `${who} stopped before the end of its phases`;
  return undefined;
}

/** The second-address half from runner 1's refusal and check and the others' first requests. Pure. */
export function secondAddressPairs(records: ReadonlyArray<PerIpRecord | null | undefined>): {
  pairs: Array<{
    runner: number;
    address: string | null;
    atMs: number;
    status: number;
    conclusive: boolean;
    served: boolean;
  }>;
  reason?: string;
} {
  const first = records.find((r) => r?.runner === 0) ?? undefined;
  const others = records.filter((r): r is PerIpRecord => r !== null && r !== undefined && r.runner > 0);
  if (records.length <= 1 || others.length === 0)
    return { pairs: [], reason: 'a second client address: one runner is one address' };
  if (first === undefined) return { pairs: [], reason: 'a second client address: runner 1 left no set-up record' };
  const refusedAt = first.refusedAtMs;
  const still = first.stillRefused;
  const pairs = others
    .filter((o) => o.fresh !== null)
    .map((o) => {
      const fresh = o.fresh!;
      const sameAddress = o.address !== null && o.address === first.address;
      const conclusive =
        refusedAt !== null &&
        still !== null &&
        still.status === 429 &&
        !sameAddress &&
        refusedAt <= fresh.atMs &&
        fresh.atMs <= still.atMs;
      return {
        runner: o.runner,
        address: o.address,
        atMs: fresh.atMs,
        status: fresh.status,
        conclusive,
        served: isServed(fresh.status),
      };
    });
  if (pairs.some((p) => p.conclusive)) return { pairs };
  let reason: string;
  if (refusedAt === null) {
    reason =
      'runner 1 was never refused in its burst: no spent budget to compare a fresh address against ' +
      '(RATE-LIMIT-ENFORCED)';
  } else if (still === null) reason = 'runner 1 did not check that it was still refused';
  else if (still.status !== 429) {
    reason =
      `runner 1 was served again (${still.status}) when it checked: ` +
      "a window turned between its refusal and the others' first requests";
  } else if (pairs.length === 0) reason = 'no other runner sent its first request';
  else if (pairs.every((p) => p.address !== null && p.address === first.address)) {
    reason = `every runner sent from ${first.address}: one address`;
  } else {
    const at = pairs.map((p) => `+${p.atMs - refusedAt} ms`).join(', ');
    reason =
      `the other runners' first requests (${at}) did not fall between runner 1's refusal and its check ` +
      `(+${still.atMs - refusedAt} ms): the runners started too far apart`;
  }
  return { pairs, reason: `a second client address: ${reason}` };
}

/** The merged summary of N runners' summaries (see above). Pure. */
/**
 * Every threshold of every runner, evaluated again on that runner's own metrics, the counts
 * summed; a runner whose address others share counts for no own-budget rule. Pure.
 */
function rerunThresholds(
  present: readonly RunnerResult[],
  sharesAddress: (runner: RunnerResult) => boolean,
): { meta: Map<string, ThresholdMeta>; metrics: Record<string, SummaryMetric> } {
  const meta = new Map<string, ThresholdMeta>();
  const expressions = new Map<string, Set<string>>();
  for (const r of present) {
    for (const t of r.summary!.thresholds) {
      if (!meta.has(t.key))
        meta.set(t.key, { key: t.key, requirement: t.requirement ?? 'k6', description: t.description ?? t.key });
      (expressions.get(t.key) ?? expressions.set(t.key, new Set()).get(t.key)!).add(t.expression);
    }
  }
  const metrics: Record<string, SummaryMetric> = {};
  for (const [key, exprs] of expressions) {
    const requirement = meta.get(key)!.requirement;
    let type: SummaryMetric['type'] = 'counter';
    const values: Record<string, number> = {};
    const thresholds: Record<string, { ok: boolean }> = {};
    for (const expression of exprs) thresholds[expression] = { ok: true };
    for (const r of present) {
      const metric = r.summary!.summary?.metrics?.[key];
      if (metric !== undefined) type = metric.type;
      // An address shared by runners carries their loads together: its own-budget rules are void.
      if (requirement !== 'probe' && sharesAddress(r)) continue;
      const own = metric?.values ?? {};
      if (metric?.type === 'rate' && (own.passes ?? 0) + (own.fails ?? 0) === 0) continue;
      for (const field of ['count', 'passes', 'fails'])
        if (own[field] !== undefined) values[field] = (values[field] ?? 0) + own[field];
      for (const expression of exprs) {
        const ownVerdict =
          evaluateThreshold(expression, own) ??
          r.summary!.thresholds.find((t) => t.key === key && t.expression === expression)?.ok ??
          true;
        if (!ownVerdict) thresholds[expression]!.ok = false;
      }
    }
    if (type === 'rate') values.rate = (values.passes ?? 0) / Math.max(1, (values.passes ?? 0) + (values.fails ?? 0));
    metrics[key] = { type, values, thresholds };
  }

  return { meta, metrics };
}

/** Accepted and refused requests per second, summed over the runners. Pure. */
function perSecondTogether(
  present: readonly RunnerResult[],
): Array<{ second: number; accepted: number; refused: number }> {
  const perSecond: Array<{ second: number; accepted: number; refused: number }> = [];
  for (const r of present) {
    for (const p of r.summary!.chart?.perSecond ?? []) {
      const slot = perSecond[p.second] ?? { second: p.second, accepted: 0, refused: 0 };
      perSecond[p.second] = slot;
      slot.accepted += p.accepted;
      slot.refused += p.refused;
    }
  }
  return perSecond;
}

/** When the last runner's summary was written. Pure. */
function latestGenerated(present: readonly RunnerResult[]): string | undefined {
  return present
    .map((r) => r.summary!.generatedAt)
    .filter((g): g is string => g !== undefined)
    .sort()
    .at(-1);
}

export function mergeRunners(results: readonly RunnerResult[], now: string = new Date().toISOString()): MergedSummary {
  const count = results[0]?.count ?? 0;
  const sorted = [...results].sort((a, b) => a.index - b.index);
  const present = sorted.filter((r) => r.summary !== undefined);
  const probe = present[0]?.summary?.probe ?? 'rate-limit';
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !sorted.some((r) => r.index === i));
  const unfinished = [
    ...missing.map((i) => `runner ${i + 1} of ${count} left no summary (stopped before its end?)`),
    ...sorted.map(notFinished).filter((reason): reason is string => reason !== undefined),
  ];
  const addressOf = (r: RunnerResult): string | null => r.summary?.runner?.address ?? r.summary?.perIp?.address ?? null;
  const addresses = sorted.map(addressOf);
  const shared = new Set(addresses.filter((a, i) => a !== null && addresses.indexOf(a) !== i));

  // Every threshold of every runner, evaluated again on that runner's own metrics.
  const { meta, metrics } = rerunThresholds(present, (r) => shared.has(addressOf(r) ?? ''));
  // The rule across addresses.
  const { pairs, reason } = secondAddressPairs(present.map((r) => r.summary!.perIp ?? null));
  const conclusive = pairs.filter((p) => p.conclusive);
  const served = conclusive.filter((p) => p.served).length;
  metrics[SECOND_ADDRESS.key] = {
    type: 'rate',
    values: { passes: served, fails: conclusive.length - served, rate: served / Math.max(1, conclusive.length) },
    thresholds: { 'rate==1': { ok: served === conclusive.length } },
  };
  const allMeta = [...meta.values(), SECOND_ADDRESS];
  const data: SummaryData = {
    metrics,
    state: {
      testRunDurationMs: Math.max(
        0,
        ...present.map(
          (r) => (r.summary!.summary?.state as { testRunDurationMs?: number } | undefined)?.testRunDurationMs ?? 0,
        ),
      ),
    },
  };
  const results2 = thresholdResults(data, allMeta);
  const failed = results2.filter((t) => !t.ok);

  // Charts: requests per second summed over the runners (their phases start together).
  const perSecond = perSecondTogether(present);
  const firstRunner = present.find((r) => r.index === 0)?.summary ?? present[0]?.summary;
  const observations: Record<string, unknown> = {
    configured: {
      ...(firstRunner?.observations?.configured as Record<string, unknown> | undefined),
      runners: count,
      addresses,
    },
    ...(firstRunner?.observations?.['RATE-LIMIT-RESPONSE-SHAPE'] === undefined
      ? {}
      : { 'RATE-LIMIT-RESPONSE-SHAPE': firstRunner.observations['RATE-LIMIT-RESPONSE-SHAPE'] }),
    ...(firstRunner?.observations?.['RATE-LIMIT-WINDOW-BEHAVIOUR'] === undefined
      ? {}
      : { 'RATE-LIMIT-WINDOW-BEHAVIOUR': firstRunner.observations['RATE-LIMIT-WINDOW-BEHAVIOUR'] }),
    'RATE-LIMIT-PER-IP': {
      otherToken: present.map((r) => ({
        runner: r.index + 1,
        address: addressOf(r),
        ...(r.summary!.perIp?.otherToken ?? { status: null }),
      })),
      secondAddress: pairs.map((p) => ({
        runner: p.runner + 1,
        address: p.address,
        status: p.status,
        conclusive: p.conclusive,
      })),
    },
    perRunner: present.map((r) => ({
      runner: r.index + 1,
      address: addressOf(r),
      estimate: r.summary!.observations?.estimate,
      under: r.summary!.observations?.under,
      over: r.summary!.observations?.over,
    })),
    ...(shared.size > 0
      ? {
          sharedAddresses:
            `runners shared ${[...shared].join(', ')}: ` +
            'their own-budget rules are left out (their loads add up on one budget)',
        }
      : {}),
  };
  const latest = latestGenerated(present) ?? now;
  return {
    probe,
    generatedAt: latest,
    passed: unfinished.length === 0 && failed.length === 0,
    failedThresholds: failed.map((t) => `${t.key} ${t.expression}`),
    thresholds: results2.map((t) => ({
      key: t.key,
      expression: t.expression,
      ok: t.ok,
      observed: t.observed,
      requirement: t.requirement,
      description: t.description,
    })),
    ...(reason === undefined ? {} : { notVerifiable: { [SECOND_ADDRESS.requirement]: reason } }),
    ...(unfinished.length === 0 ? {} : { notFinished: { reason: `not run: ${unfinished.join('; ')}` } }),
    observations,
    chart: {
      ...(firstRunner?.chart ?? {}),
      title: `accepted and refused requests per second, ${count} runners together`,
      perSecond: perSecond.filter((p) => p !== undefined),
    },
    merged: {
      runners: count,
      addresses,
      perRunner: sorted.map((r) => ({
        runner: r.index + 1,
        address: addressOf(r),
        passed: r.summary?.passed ?? null,
        failedThresholds: r.summary?.failedThresholds ?? [],
        ended: notFinished(r) ?? 'finished',
      })),
    },
  };
}

/** The merged summary's JUnit XML: a testcase per threshold, as a single probe's; all skipped if not run. Pure. */
export function mergedJunit(merged: MergedSummary): string {
  if (merged.notFinished !== undefined) {
    const cases = merged.thresholds.map(
      (t) =>
        `    <testcase classname="${xmlEscape(`k6.${merged.probe}.${t.requirement}`)}" ` +
        `name="${xmlEscape(`${t.key} ${t.expression} — ${t.description}`)}" time="0">\n` +
        `      <skipped message="${xmlEscape(merged.notFinished!.reason)}"/>\n    </testcase>`,
    );
    const n = merged.thresholds.length;
    return [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<testsuites name="k6.${xmlEscape(merged.probe)}" tests="${n}" failures="0" skipped="${n}" time="0">`,
      `  <testsuite name="k6.${xmlEscape(merged.probe)}" tests="${n}" failures="0" errors="0" skipped="${n}" time="0">`,
      ...cases,
      '  </testsuite>',
      '</testsuites>',
      '',
    ].join('\n');
  }
  // A threshold held on nothing observed is written as skipped: junitXml reads that from a rate metric without samples.
  const metrics: Record<string, SummaryMetric> = {};
  for (const t of merged.thresholds) {
    const metric = metrics[t.key] ?? { type: t.observed ? 'counter' : 'rate', values: {}, thresholds: {} };
    metrics[t.key] = metric;
    metric.thresholds![t.expression] = { ok: t.ok };
  }
  const meta = merged.thresholds.map((t) => ({ key: t.key, requirement: t.requirement, description: t.description }));
  return junitXml(`k6.${merged.probe}`, { metrics }, meta);
}
