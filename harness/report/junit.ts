/**
 * junit.xml for CI systems, through junit-report-builder: one testsuite per suite file, one
 * testcase per check with its requirement ids as properties, the failure message and the
 * redacted HTTP exchanges behind it, and skipped checks with the reason.
 */
import junitModule, { type Builder } from 'junit-report-builder';

// CommonJS under Node's ESM loader: the builder is the module's default export.
const junit: Builder = (junitModule as unknown as { default?: Builder }).default ?? (junitModule as unknown as Builder);
import type { RunReport } from './model.ts';
import { describeWaiver, waiverModeText } from './waivers.ts';

export function renderJunit(report: RunReport): string {
  const builder = junit.newBuilder().name('outbound-calling-conformance');
  const byFile = new Map<string, RunReport['checks'][number][]>();
  for (const check of report.checks) byFile.set(check.file, [...(byFile.get(check.file) ?? []), check]);
  for (const [file, checks] of byFile) {
    const suite = builder.testSuite().name(file).property('target', report.target.baseUrl).property('seed', String(report.seed)).property('waivers', waiverModeText(report.waivers));
    for (const check of checks) {
      const testCase = suite.testCase().className(file.replace(/\.(suite|property)\.ts$/, '').replace(/\//g, '.')).name(check.name).time(check.durationMs / 1000);
      testCase.property('requirements', check.requirements.join(' '));
      if (check.status === 'failed') {
        testCase.failure(check.failure ?? 'failed');
        if (check.exchanges.length > 0) {
          const replays = check.exchanges.filter((e) => typeof e.curl === 'string').map((e) => `# ${String(e.method)} ${String(e.url)} → ${e.status === undefined ? 'no response' : String(e.status)}\n${String(e.curl)}`);
          testCase.standardOutput(`${replays.length > 0 ? `Reproduce (secrets are the variables that hold them):\n${replays.join('\n')}\n\n` : ''}${JSON.stringify(check.exchanges, null, 2)}`);
        }
      } else if (check.status === 'waived') {
        // JUnit has no "waived": a skip whose message says so, never a pass.
        testCase.property('status', 'waived').skipped().standardOutput(`waived: ${(check.waivers ?? []).map(describeWaiver).join('; ')}\n\n${check.failure ?? ''}`);
      } else if (check.status === 'skipped') {
        testCase.skipped().standardOutput(check.skipReason ?? 'skipped');
      }
      if (check.observations.length > 0) testCase.standardError(check.observations.map((o) => `${o.requirement}: ${o.text}`).join('\n'));
    }
  }
  if (report.waivers.expired.length > 0 || report.waivers.unused.length > 0) {
    const suite = builder.testSuite().name('waivers').property('waivers', waiverModeText(report.waivers));
    for (const w of report.waivers.expired) suite.testCase().className('waivers').name(`expired waiver ${w.requirement}`).property('status', 'expired').failure(`expired waiver: ${describeWaiver(w)}`);
    for (const w of report.waivers.unused) suite.testCase().className('waivers').name(`unused waiver ${w.requirement}`).property('status', 'unused').standardOutput(`unused waiver (its check ran and did not fail: remove it): ${describeWaiver(w)}`);
  }
  for (const probe of report.load) {
    const suite = builder.testSuite().name(`k6 ${probe.probe}`);
    for (const [requirement, verdict] of Object.entries(probe.requirements)) {
      const testCase = suite.testCase().className(`load.${probe.probe}`).name(`${requirement} (k6 ${probe.probe})`);
      testCase.property('requirements', requirement);
      if (verdict === 'failed') testCase.failure(`failed thresholds: ${probe.failedThresholds.join(', ')}`);
    }
  }
  return builder.build();
}
