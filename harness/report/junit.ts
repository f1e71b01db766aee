/**
 * junit.xml for CI systems, through junit-report-builder: one testsuite per suite file, one
 * testcase per check with its requirement ids as properties, the failure message and the
 * redacted HTTP exchanges behind it, skipped checks with the reason, and checks an interrupted
 * run never reached as skipped with the property `status` = `not run (interrupted)`.
 *
 * XML 1.0 cannot carry NUL, most C0 control characters, lone surrogates or U+FFFE/U+FFFF at
 * all, not even escaped. Rather than let them vanish, every text is passed through `xmlText`,
 * which writes each such character visibly as `\uXXXX`; a testsuite where that happened says so
 * in its `text-encoding` property. The builder escapes attributes fully, but its CDATA writer
 * (xmlbuilder 15, bundled) splits only the first `]]>` of a text, so a second one would end the
 * section early: text bound for CDATA (failure details, system-out, system-err) goes through
 * `cdataText`, which writes `]]>` as `]]\u003e` inside the JSON of the exchanges (the same JSON to
 * a JSON reader) and as `]]&gt;` in plain text, and the testsuite says so too.
 */
import junitModule, { type Builder } from 'junit-report-builder';
import type { RunReport } from './model.ts';
import { LONE_SURROGATE } from './readable.ts';

// CommonJS under Node's ESM loader: the builder is the module's default export.
const junit: Builder = (junitModule as unknown as { default?: Builder }).default ?? (junitModule as unknown as Builder);
import { describeWaiver, UNUSED_WAIVER, waiverModeText } from './waivers.ts';

// Outside XML 1.0's Char production: C0 controls but tab, LF, CR; lone surrogates; U+FFFE, U+FFFF.
const notXmlChar = new RegExp(`[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]|${LONE_SURROGATE}`, 'g');

export const XML_ESCAPE_NOTE =
  'characters XML 1.0 cannot carry (NUL, control characters, lone surrogates) are written as \\uXXXX';
export const CDATA_ESCAPE_NOTE =
  'a "]]>" inside system-out, system-err or a failure text is ' +
  'written as "]]\\u003e" in JSON and "]]&gt;" in plain text';

/** Text XML 1.0 can carry: every character it cannot is written visibly as \uXXXX. */
export function xmlText(text: string): { text: string; escaped: boolean } {
  let escaped = false;
  const out = text.replace(notXmlChar, (c) => {
    escaped = true;
    return `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  });
  return { text: out, escaped };
}

/** Text for a CDATA section, which must not hold `]]>` (see above); `json` for JSON text. */
export function cdataText(text: string, json = false): { text: string; escaped: boolean } {
  const safe = xmlText(text);
  if (!safe.text.includes(']]>')) return safe;
  return { text: safe.text.replaceAll(']]>', json ? ']]\\u003e' : ']]&gt;'), escaped: true };
}

/** The `waivers` testsuite: an expired waiver is a failing testcase, an unused one a passing one (README). */
function addWaiverSuite(builder: ReturnType<typeof junit.newBuilder>, report: RunReport): void {
  if (report.waivers.expired.length === 0 && report.waivers.unused.length === 0) return;
  const suite = builder.testSuite().name('waivers').property('waivers', waiverModeText(report.waivers));
  for (const w of report.waivers.expired)
    suite
      .testCase()
      .className('waivers')
      .name(`expired waiver ${w.requirement}`)
      .property('status', 'expired')
      .failure(`expired waiver: ${describeWaiver(w)}`);
  for (const w of report.waivers.unused)
    suite
      .testCase()
      .className('waivers')
      .name(`unused waiver ${w.requirement}`)
      .property('status', 'unused')
      .standardOutput(`unused waiver (${UNUSED_WAIVER}): ${describeWaiver(w)}`);
}

export function renderJunit(report: RunReport): string {
  const builder = junit.newBuilder().name('outbound-calling-conformance');
  const byFile = new Map<string, RunReport['checks'][number][]>();
  for (const check of report.checks) byFile.set(check.file, [...(byFile.get(check.file) ?? []), check]);
  for (const [file, checks] of byFile) {
    let escaped = false;
    let cdataEscaped = false;
    const x = (text: string): string => {
      const safe = xmlText(text);
      escaped ||= safe.escaped;
      return safe.text;
    };
    const c = (text: string, json = false): string => {
      const safe = cdataText(text, json);
      escaped ||= xmlText(text).escaped;
      cdataEscaped ||= text.includes(']]>');
      return safe.text;
    };
    const suite = builder
      .testSuite()
      .name(x(file))
      .property('target', x(report.target.baseUrl))
      .property('seed', String(report.seed))
      .property('waivers', x(waiverModeText(report.waivers)));
    if (report.interrupted) suite.property('interrupted', 'true');
    if (report.loadWouldDecide.length > 0) suite.property('with-load-would-decide', report.loadWouldDecide.join(' '));
    for (const check of checks) {
      const testCase = suite
        .testCase()
        .className(x(file.replace(/\.(suite|property)\.ts$/, '').replace(/\//g, '.')))
        .name(x(check.name))
        .time(check.durationMs / 1000);
      testCase.property('requirements', x(check.requirements.join(' ')));
      // A pass on part of the probes (the budget left the others to later seeds) says so.
      if (check.probes !== undefined && check.status === 'passed')
        testCase
          .property('status', `passed (${check.probes.sent} of ${check.probes.of} probes this run)`)
          .property('probes-left-to-later-seeds', x(check.probes.left.join('; ')));
      if (check.failedRequirements !== undefined)
        testCase.property('failed-requirements', x(check.failedRequirements.join(' ')));
      if (check.status === 'failed') {
        // The message attribute for one-line displays, the full text as the failure's body.
        testCase.failure(x(check.failure ?? 'failed')).stacktrace(c(check.failure ?? 'failed'));
        if (check.exchanges.length > 0) {
          const omitted =
            check.exchangesOmitted === undefined
              ? ''
              : `${check.exchangesOmitted} earlier exchanges of this check left out\n`;
          const replays = check.exchanges
            .filter((e) => typeof e.curl === 'string')
            .map((e) => {
              const status = e.status === undefined ? 'no response' : String(e.status);
              return `# ${String(e.method)} ${String(e.url)} → ${status}\n${String(e.curl)}`;
            });
          const reproduce =
            replays.length > 0
              ? `Reproduce (secrets are the variables that hold them):\n${c(replays.join('\n'))}\n\n`
              : '';
          testCase.standardOutput(`${reproduce}${omitted}${c(JSON.stringify(check.exchanges, null, 2), true)}`);
        }
      } else if (check.status === 'waived') {
        // JUnit has no "waived": a skip whose message says so, never a pass.
        testCase
          .property('status', 'waived')
          .skipped()
          .standardOutput(
            c(`waived: ${(check.waivers ?? []).map(describeWaiver).join('; ')}\n\n${check.failure ?? ''}`),
          );
      } else if (check.status === 'skipped') {
        testCase.skipped().standardOutput(c(check.skipReason ?? 'skipped'));
      } else if (check.status === 'not_run') {
        testCase.skipped().property('status', 'not run (interrupted)').standardOutput('not run (interrupted)');
      }
      if (check.observations.length > 0)
        testCase.standardError(c(check.observations.map((o) => `${o.requirement}: ${o.text}`).join('\n')));
    }
    if (escaped) suite.property('text-encoding', XML_ESCAPE_NOTE);
    if (cdataEscaped) suite.property('cdata-encoding', CDATA_ESCAPE_NOTE);
  }
  addWaiverSuite(builder, report);
  for (const probe of report.load) {
    const name = xmlText(probe.probe).text;
    const suite = builder.testSuite().name(`k6 ${name}`);
    // A probe that did not finish: each requirement it covers is a skip that says why, never a failure.
    for (const requirement of probe.notFinished?.covers ?? []) {
      suite
        .testCase()
        .className(`load.${name}`)
        .name(xmlText(`${requirement} (k6 ${probe.probe})`).text)
        .property('requirements', xmlText(requirement).text)
        .property('status', 'not run')
        .skipped()
        .standardOutput(xmlText(probe.notFinished!.reason).text);
    }
    for (const [requirement, verdict] of Object.entries(probe.requirements)) {
      const testCase = suite
        .testCase()
        .className(`load.${name}`)
        .name(xmlText(`${requirement} (k6 ${probe.probe})`).text);
      testCase.property('requirements', xmlText(requirement).text);
      if (verdict === 'failed')
        testCase.failure(xmlText(`failed thresholds: ${probe.failedThresholds.join(', ')}`).text);
    }
  }
  return builder.build();
}
