/**
 * report.md: ready for a CI job summary (GitHub's $GITHUB_STEP_SUMMARY and the like).
 */
import type { RequirementStatus, RunReport } from './model.ts';

const statusLabel: Record<RequirementStatus, string> = {
  passed: '✅ passed',
  failed: '❌ failed',
  observed: '👁 observed',
  not_verifiable: '⏭ not verifiable',
  not_checked: '· not checked here',
};

/** Table cells hold target-controlled text: keep them on one line and free of pipes. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').slice(0, 400);
}

export function renderMarkdown(report: RunReport): string {
  const { checks, requirements } = report.counts;
  const verdict = report.dryRun ? 'DRY RUN (nothing sent)' : requirements.failed > 0 || checks.failed > 0 ? 'FAILED' : 'PASSED';
  const lines: string[] = [
    `# Outbound Calling API v1 conformance: ${verdict}`,
    '',
    `Target: ${report.target.kind === 'embedded' ? 'the embedded reference server' : `\`${report.target.baseUrl}\``} · started ${report.startedAt} · ${(report.durationMs / 1000).toFixed(1)} s · seed ${report.seed} · suite ${report.suiteVersion}`,
    '',
    '| Requirements | Count |',
    '|---|---|',
    `| MUST verified and passed | ${requirements.passed} |`,
    `| MUST verified and failed | ${requirements.failed} |`,
    `| not verifiable with this configuration | ${requirements.notVerifiable} |`,
    `| observed (the spec leaves it unshown) | ${requirements.observed} |`,
    `| no check in this run | ${requirements.notChecked} |`,
    '',
    `Checks: ${checks.passed} passed, ${checks.failed} failed, ${checks.skipped} skipped · requests sent ${report.requests.sent} (planned for a remote run: ${report.requests.planned}) · 429s received ${report.requests.rateLimited}`,
    '',
  ];
  if (report.interrupted) lines.push('**The run was interrupted; results are partial.**', '');
  if (report.regressions.length > 0) lines.push(`**Regressions since the previous run:** ${report.regressions.join(', ')}`, '');
  if (report.fixed.length > 0) lines.push(`Fixed since the previous run: ${report.fixed.join(', ')}`, '');

  const failures = report.checks.filter((c) => c.status === 'failed');
  if (failures.length > 0) {
    lines.push('## Failures', '');
    for (const failure of failures) {
      lines.push(`### ${failure.name}`, '', `Requirements: ${failure.requirements.join(', ')} · \`${failure.file}\``, '', '```text', (failure.failure ?? '').slice(0, 3000), '```', '');
    }
  }
  if (report.unhandledErrors.length > 0) {
    lines.push('## Errors outside checks', '', ...report.unhandledErrors.map((e) => `- ${cell(e)}`), '');
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
    for (const r of observed) lines.push(`- **${r.id}**: ${cell(r.observations.join('; '))}`);
    lines.push('');
  }
  if (report.load.length > 0) {
    lines.push('## Load probes (k6)', '', '| Probe | Verdict | Failed thresholds | Finished |', '|---|---|---|---|');
    for (const probe of report.load) lines.push(`| ${probe.probe} | ${probe.passed ? '✅ passed' : '❌ failed'} | ${cell(probe.failedThresholds.join(', ') || '–')} | ${probe.finishedAt ?? '–'} |`);
    lines.push('');
  }
  lines.push('## Requirement matrix', '', '| Requirement | Level | Status | Checks |', '|---|---|---|---|');
  for (const r of report.requirements) {
    lines.push(`| ${r.id} | ${r.level} | ${statusLabel[r.status]} | ${r.source ?? r.checks.length} |`);
  }
  lines.push('');
  if (report.controlGaps.length > 0) {
    // Last, as Pact ends with the provider states it found no handler for.
    lines.push('## Test-control states and inspections the target does not offer', '', 'See control-openapi.json; each would make these requirements verifiable.', '', '| State or inspection | Would unlock |', '|---|---|');
    for (const gap of report.controlGaps) lines.push(`| ${gap.capability} | ${cell(gap.unlocks.join(', ') || '–')} |`);
    lines.push('');
  }
  return lines.join('\n');
}
