/**
 * report.md: ready for a CI job summary (GitHub's $GITHUB_STEP_SUMMARY and the like).
 *
 * Every text from the run is escaped for CommonMark/GFM, so it renders as written and never
 * as markup or HTML: the punctuation that can start markup (`\ ` * [ ] < | ~`, `_` at a word
 * edge, `&` of an entity) is backslash-escaped, nothing else, so ordinary names stay as they
 * are in the file. Table cells stay on one line; failure texts go in a code fence longer than
 * any backtick run they contain. Control and bidi characters are made visible first
 * (readable.ts).
 */
import type { RequirementStatus, RunReport } from './model.ts';
import { failedRequirementsText } from './results.ts';
import { describeWaiver, UNUSED_WAIVER, waiverModeText } from './waivers.ts';
import { clip, readableData } from './readable.ts';
import { partialText } from './partial.ts';

const statusLabel: Record<RequirementStatus, string> = {
  passed: '✅ passed',
  failed: '❌ failed',
  waived: '⚠️ waived (failed, known)',
  observed: '👁 observed',
  not_verifiable: '⏭ not verifiable',
  not_run: '⏹ not run (interrupted)',
  not_checked: '· not checked here',
};

/** Inline text rendered as written: Markdown's meaningful punctuation escaped, on one line. */
function md(text: string): string {
  return text
    .replace(/\r\n?|\n/g, ' ')
    .replace(/[\\`*[\]<|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|&(?=#?[A-Za-z0-9]+;)/g, (c) => `\\${c}`);
}

/** A table cell: inline text, cut to a readable length first (never mid-escape). */
function cell(text: string): string {
  return md(clip(text, 400));
}

/** A fenced block that nothing inside can close: the fence is longer than any backtick run. */
function fenced(text: string): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}text`, text, fence];
}

/** The curl command of each exchange behind a failure, with the status the check saw. */
function replayLines(exchanges: RunReport['checks'][number]['exchanges']): string[] {
  const replays = exchanges.filter((e) => typeof e.curl === 'string');
  if (replays.length === 0) return [];
  return [
    'Reproduce (secrets are the variables that hold them; export your .env first):',
    '',
    ...replays.flatMap((e) => [
      `${md(String(e.method))} ${md(String(e.url))} → ${e.status === undefined ? 'no response' : String(e.status)}:`,
      '',
      ...fenced(String(e.curl)),
      '',
    ]),
  ];
}

/** The report as Markdown: the verdict and counts, then each section that has something to say. */
export function renderMarkdown(run: RunReport): string {
  const report = readableData(run);
  return [
    ...headLines(report),
    ...failureLines(report),
    ...waiverLines(report),
    ...gapLines(report),
    ...matrixLines(report),
  ].join('\n');
}

/** The report with every string made readable (./readable.ts). */
type Readable = RunReport;

/** The verdict, the counts, the waivers' mode, and what changed since the previous run. */
function headLines(report: Readable): string[] {
  const { checks, requirements } = report.counts;
  const verdict = report.dryRun
    ? 'DRY RUN (nothing sent)'
    : requirements.failed > 0 || checks.failed > 0 || report.waivers.expired.length > 0
      ? 'FAILED'
      : 'PASSED';
  const target = report.target.kind === 'embedded' ? 'the embedded reference server' : md(report.target.baseUrl);
  const lines: string[] = [
    `# Outbound Calling API v1 conformance: ${verdict}`,
    '',
    `Target: ${target} · started ${report.startedAt} · ${(report.durationMs / 1000).toFixed(1)} s · ` +
      `seed ${report.seed} · suite ${report.suiteVersion}`,
    '',
    '| Requirements | Count |',
    '|---|---|',
    `| MUST verified and passed | ${requirements.passed} |`,
    `| MUST verified and failed | ${requirements.failed} |`,
    `| MUST failed but waived | ${requirements.waived} |`,
    `| not verifiable with this configuration | ${requirements.notVerifiable} |`,
    `| observed (the spec leaves it unshown) | ${requirements.observed} |`,
    `| not run (the run was interrupted) | ${requirements.notRun} |`,
    `| no check in this run | ${requirements.notChecked} |`,
    '',
    `Waivers: ${cell(waiverModeText(report.waivers))}`,
    '',
    `Checks: ${checks.passed} passed, ${checks.failed} failed, ${checks.waived} waived, ` +
      `${checks.skipped} skipped, ${checks.notRun} not run · requests sent ${report.requests.sent} ` +
      `(planned for a remote run: ${report.requests.planned}) · 429s received ${report.requests.rateLimited}` +
      ` · exchanges the network broke ${report.requests.transportFailures ?? 0}, ` +
      `sent again ${report.requests.retries ?? 0}`,
    '',
  ];
  if (report.interrupted) lines.push('**The run was interrupted; results are partial.**', '');
  if (report.regressions.length > 0)
    lines.push(`**Regressions since the previous run:** ${report.regressions.join(', ')}`, '');
  if (report.fixed.length > 0) lines.push(`Fixed since the previous run: ${report.fixed.join(', ')}`, '');

  return lines;
}

/** Each failed check: its requirements, its failure, the replay of its exchanges. */
function failureLines(report: Readable): string[] {
  const lines: string[] = [];
  const failures = report.checks.filter((c) => c.status === 'failed');
  if (failures.length > 0) {
    lines.push('## Failures', '');
    for (const failure of failures) {
      const omitted =
        failure.exchangesOmitted === undefined ? '' : ` · ${failure.exchangesOmitted} earlier exchanges left out`;
      lines.push(
        `### ${md(failure.name)}`,
        '',
        `Requirements: ${md(failedRequirementsText(failure))} · ${md(failure.file)}${omitted}`,
        '',
        ...fenced(clip(failure.failure ?? '', 3000)),
        '',
        ...replayLines(failure.exchanges),
      );
    }
  }
  return lines;
}

/** Expired and unused waivers, and each check a waiver covered. */
function waiverLines(report: Readable): string[] {
  const lines: string[] = [];
  const waived = report.checks.filter((c) => c.waivers !== undefined && c.waivers.length > 0);
  const { expired, unused } = report.waivers;
  if (waived.length > 0 || expired.length > 0 || unused.length > 0) {
    lines.push('## Waivers', '');
    for (const w of expired) lines.push(`- **expired, fails the run**: ${cell(describeWaiver(w))}`);
    for (const w of unused) lines.push(`- **unused** (${UNUSED_WAIVER}): ${cell(describeWaiver(w))}`);
    for (const c of waived) {
      lines.push(
        `### ${c.status === 'waived' ? 'Waived' : 'Partly waived'}: ${md(c.name)}`,
        '',
        `Waived requirements: ${md((c.waivedRequirements ?? []).join(', '))} · ${md(c.file)}`,
        '',
      );
      for (const w of c.waivers ?? []) lines.push(`- ${cell(describeWaiver(w))}`);
      lines.push('', ...fenced(clip(c.failure ?? '', 3000)), '');
    }
    lines.push('');
  }
  return lines;
}

/** What the run did not decide: errors outside checks, checks not run, not verifiable, observed, left to k6. */
function gapLines(report: Readable): string[] {
  const lines: string[] = [];
  if (report.unhandledErrors.length > 0) {
    lines.push('## Errors outside checks', '', ...report.unhandledErrors.map((e) => `- ${cell(e)}`), '');
  }
  const notRun = report.checks.filter((c) => c.status === 'not_run');
  if (notRun.length > 0) {
    lines.push(
      '## Not run (the run was interrupted)',
      '',
      ...notRun.map((c) => `- ${md(c.name)} (${md(c.requirements.join(', '))})`),
      '',
    );
  }
  const notVerifiable = report.requirements.filter((r) => r.status === 'not_verifiable');
  if (notVerifiable.length > 0) {
    lines.push('## Not verifiable with this configuration', '', '| Requirement | Why |', '|---|---|');
    for (const r of notVerifiable) lines.push(`| ${r.id} | ${cell(r.notVerifiableBecause.join('; '))} |`);
    lines.push('');
  }
  const observed = report.requirements.filter((r) => r.observations.length > 0);
  if (observed.length > 0) {
    lines.push('## Observations (never failures)', '');
    for (const r of observed) lines.push(`- **${r.id}**: ${md(clip(r.observations.join('; '), 2000))}`);
    lines.push('');
  }
  if (report.loadWouldDecide.length > 0) {
    const decided = report.loadWouldDecide.map((id) => md(id)).join(', ');
    lines.push(
      '## Left to the load probes',
      '',
      `Run with \`--with-load\` (the k6 probes, against the same target) to decide: ${decided} ` +
        '(what a probe does not observe within its budget stays not verifiable).',
      '',
    );
  }
  if (report.load.length > 0) {
    lines.push('## Load probes (k6)', '', '| Probe | Verdict | Failed thresholds | Finished |', '|---|---|---|---|');
    const verdict = (probe: (typeof report.load)[number]) =>
      probe.notFinished !== undefined ? `⏹ ${probe.notFinished.reason}` : probe.passed ? '✅ passed' : '❌ failed';
    for (const probe of report.load)
      lines.push(
        `| ${cell(probe.probe)} | ${cell(verdict(probe))} | ` +
          `${cell(probe.failedThresholds.join(', ') || '–')} | ${cell(probe.finishedAt ?? '–')} |`,
      );
    lines.push('');
  }
  return lines;
}

/** The requirement matrix, the partial passes, and the control capabilities the target lacks. */
function matrixLines(report: Readable): string[] {
  const lines: string[] = [];
  lines.push('## Requirement matrix', '', '| Requirement | Level | Status | Checks |', '|---|---|---|---|');
  for (const r of report.requirements) {
    lines.push(
      `| ${r.id} | ${r.level} | ${cell(partialText(statusLabel[r.status], r.probes))} | ` +
        `${cell(r.source ?? String(r.checks.length))} |`,
    );
  }
  lines.push('');
  const partial = report.requirements.filter((r) => r.probes !== undefined);
  if (partial.length > 0) {
    lines.push(
      '## Passed on part of their probes',
      '',
      "The run's request budget left the other probes to later seeds (--all-probes, or a larger " +
        '--time-budget, sends them all in one run).',
      '',
      '| Requirement | Probes this run | Every probe last sent and passed |',
      '|---|---|---|',
    );
    for (const r of partial)
      lines.push(`| ${r.id} | ${r.probes!.sent} of ${r.probes!.of} | ${cell(r.lastFullPass ?? 'not in the trend')} |`);
    lines.push('');
  }
  if (report.controlGaps.length > 0) {
    // Last, as Pact ends with the provider states it found no handler for.
    lines.push(
      '## Test-control states and inspections the target does not offer',
      '',
      'See control-openapi.json; each would make these requirements verifiable.',
      '',
      '| State or inspection | Would unlock |',
      '|---|---|',
    );
    for (const gap of report.controlGaps) {
      lines.push(`| ${gap.capability} | ${cell(gap.unlocks.join(', ') || '–')} |`);
    }
    lines.push('');
  }
  return lines;
}
