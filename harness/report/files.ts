/**
 * Where reports live: `reports/<timestamp>/` per run and a copy in `reports/latest/`, plus the
 * earlier runs read back for the trend and the k6 summaries the load probes leave in latest/.
 *
 * The report arrives already redacted (values, by what they are: harness/http/redact.ts) and
 * each file is written by a real serialiser; nothing rewrites the serialised text, which would
 * break its escaping.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';
import type { LoadProbeSummary, RunReport } from './model.ts';
import { isRequirementId, PROBE_REQUIREMENTS } from '../../requirements/catalogue.ts';

export const REPORT_FILES = ['report.json', 'report.md', 'report.html', 'junit.xml'] as const;

export function runDirectoryName(startedAt: string): string {
  return startedAt.replace(/[:.]/g, '-');
}

export function writeReports(report: RunReport, root: string): { dir: string; latest: string } {
  const dir = join(root, runDirectoryName(report.startedAt));
  const latest = join(root, 'latest');
  mkdirSync(dir, { recursive: true });
  mkdirSync(latest, { recursive: true });
  const contents: Record<(typeof REPORT_FILES)[number], string> = {
    'report.json': `${JSON.stringify(report, null, 2)}\n`,
    'report.md': renderMarkdown(report),
    'report.html': renderHtml(report),
    'junit.xml': renderJunit(report),
  };
  for (const name of REPORT_FILES) {
    writeFileSync(join(dir, name), contents[name]);
    copyFileSync(join(dir, name), join(latest, name));
  }
  return { dir, latest };
}

type PreviousRun = Pick<RunReport, 'startedAt' | 'requirements' | 'counts' | 'target' | 'dryRun'>;

/** Earlier completed runs against the same target, oldest first; unreadable ones are skipped. */
export function previousRuns(root: string, target: RunReport['target'], limit = 29): PreviousRun[] {
  if (!existsSync(root)) return [];
  const runs: PreviousRun[] = [];
  for (const entry of readdirSync(root)) {
    if (entry === 'latest') continue;
    const file = join(root, entry, 'report.json');
    if (!existsSync(file)) continue;
    try {
      const run = JSON.parse(readFileSync(file, 'utf8')) as PreviousRun;
      const sameTarget =
        run.target?.kind === target.kind && (target.kind === 'embedded' || run.target.baseUrl === target.baseUrl);
      if (sameTarget && run.dryRun !== true && Array.isArray(run.requirements)) runs.push(run);
    } catch {
      // a report cut short by an interrupted write is not history
    }
  }
  return runs.sort((a, b) => a.startedAt.localeCompare(b.startedAt)).slice(-limit);
}

interface K6ProbeJson {
  probe: string;
  passed: boolean;
  failedThresholds: string[];
  generatedAt?: string;
  /**
   * `observed: false`: a rate threshold k6 held on no sample
   * (written since the probes say so; absent in older summaries).
   */
  thresholds: Array<{ requirement?: string; ok: boolean; observed?: boolean }>;
  observations?: Record<string, unknown>;
  /** Requirements the probe could not decide, and why (e.g. RATE-LIMIT-PER-IP's second address, one runner). */
  notVerifiable?: Record<string, string>;
  /** A merge of runners (load/distributed/merge.ts) of which one did not finish: the probe was not run. */
  notFinished?: { reason: string };
  chart?: {
    perSecond?: Array<{ second: number; accepted: number; refused: number }>;
    expected?: { attemptAtS: number[] };
    series?: Array<{ plan: string; attemptAtS: number[] }>;
  };
}

/** The summary a k6 probe writes (load/lib/summary.ts), in the report model's terms. */
export function fromK6Summary(json: K6ProbeJson): LoadProbeSummary {
  const requirements: Record<string, 'passed' | 'failed'> = {};
  for (const threshold of json.thresholds) {
    // A check the probe never made (nothing seen within its watch) is no verdict, never a pass.
    if (threshold.requirement === undefined || threshold.observed === false) continue;
    requirements[threshold.requirement] =
      requirements[threshold.requirement] === 'failed' || !threshold.ok ? 'failed' : 'passed';
  }
  // A probe that could not do its own job (its "probe" thresholds: requests sent late or dropped,
  // nothing measured) proves no requirement passed; the failures it saw still stand.
  const invalid = requirements.probe === 'failed';
  if (invalid)
    for (const [id, verdict] of Object.entries(requirements)) if (verdict === 'passed') delete requirements[id];
  // Half a requirement verified is not a pass: what the probe says it could not decide passes nothing.
  const notVerifiable = Object.fromEntries(
    Object.entries(json.notVerifiable ?? {}).filter(([id]) => isRequirementId(id)),
  );
  for (const id of Object.keys(notVerifiable)) if (requirements[id] === 'passed') delete requirements[id];
  const observations = [
    ...(invalid
      ? [`the probe did not do its own job (${json.failedThresholds.join(', ')}): none of its passes counts`]
      : []),
    ...Object.entries(json.observations ?? {}).map(([key, value]) => `${key}: ${JSON.stringify(value)}`.slice(0, 400)),
  ];
  // What a probe recorded under an OBSERVE requirement's own id (the 429's shape, the window's
  // behaviour, the backoff intervals) is that requirement's observation.
  const requirementObservations = Object.fromEntries(
    Object.entries(json.observations ?? {})
      .filter(
        ([key, value]) =>
          isRequirementId(key) &&
          value !== null &&
          value !== undefined &&
          !(Array.isArray(value) && value.length === 0),
      )
      .map(([key, value]) => [key, `k6 ${json.probe}: ${JSON.stringify(value)}`.slice(0, 1000)]),
  );
  let chart: unknown;
  if (json.chart?.perSecond !== undefined) {
    chart = {
      seconds: json.chart.perSecond.map((p) => p.second),
      accepted: json.chart.perSecond.map((p) => p.accepted),
      refused: json.chart.perSecond.map((p) => p.refused),
    };
  } else if (json.chart?.series !== undefined) {
    const expected = json.chart.expected?.attemptAtS ?? [];
    chart = {
      deliveries: json.chart.series.map((s) => ({
        label: s.plan,
        attemptsMs: s.attemptAtS.map((at) => at * 1000),
        expectedMs: expected.slice(0, s.attemptAtS.length).map((at) => at * 1000),
      })),
    };
  }
  const summary: LoadProbeSummary = {
    probe: json.probe,
    passed: json.passed,
    failedThresholds: json.failedThresholds,
    requirements,
    observations,
    requirementObservations,
    ...(Object.keys(notVerifiable).length === 0 ? {} : { notVerifiable }),
    ...(chart === undefined ? {} : { chart }),
    ...(json.generatedAt === undefined ? {} : { finishedAt: json.generatedAt }),
  };
  if (json.notFinished !== undefined && isProbeName(json.probe)) {
    return unfinishedProbe(json.probe, summary, json.notFinished.reason);
  }
  return summary;
}

function isProbeName(probe: string): probe is keyof typeof PROBE_REQUIREMENTS {
  return Object.hasOwn(PROBE_REQUIREMENTS, probe);
}

function isK6ProbeJson(value: unknown): value is K6ProbeJson {
  const v = value as Partial<K6ProbeJson> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.probe === 'string' &&
    typeof v.passed === 'boolean' &&
    Array.isArray(v.failedThresholds) &&
    Array.isArray(v.thresholds)
  );
}

/** The k6 probes' summaries in reports/latest (k6-<probe>.json), when present. */
/**
 * A summary another k6 run left in reports/latest (an earlier `npm run load:*`, maybe against
 * another target) is charted, never counted: its verdicts and observations are dropped and it says
 * so. Only the probes this run started (`--with-load`, finished after `since`) decide requirements. Pure.
 */
export function chartOnlyUnlessSince(summary: LoadProbeSummary, since: string | undefined): LoadProbeSummary {
  if (since !== undefined && summary.finishedAt !== undefined && summary.finishedAt >= since) return summary;
  return {
    ...summary,
    requirements: {},
    requirementObservations: {},
    observations: [
      `from an earlier k6 run${summary.finishedAt === undefined ? '' : ` (finished ${summary.finishedAt})`}, ` +
        'not this run: charted only, its verdicts not counted (run with --with-load)',
      ...summary.observations,
    ],
  };
}

/**
 * A probe that did not finish in this run (`summary`: the partial one k6 wrote, if any): charted,
 * none of its verdicts or observations kept, its requirements not run (model.ts judgeRequirement).
 */
export function unfinishedProbe(
  probe: keyof typeof PROBE_REQUIREMENTS,
  summary: LoadProbeSummary | undefined,
  reason: string,
): LoadProbeSummary {
  return {
    probe,
    passed: false,
    failedThresholds: [],
    chart: summary?.chart,
    ...(summary?.finishedAt === undefined ? {} : { finishedAt: summary.finishedAt }),
    requirements: {},
    requirementObservations: {},
    observations: [`${reason}: no verdict of this probe counts`],
    notFinished: { reason, covers: PROBE_REQUIREMENTS[probe] },
  };
}

export function loadProbeSummaries(root: string): LoadProbeSummary[] {
  const latest = join(root, 'latest');
  if (!existsSync(latest)) return [];
  const summaries: LoadProbeSummary[] = [];
  for (const entry of readdirSync(latest)
    .filter((name) => /^k6-[\w-]+\.json$/.test(name))
    .sort()) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(join(latest, entry), 'utf8'));
      if (isK6ProbeJson(parsed)) summaries.push(fromK6Summary(parsed));
    } catch {
      // a summary k6 did not finish writing is left out
    }
  }
  return summaries;
}
