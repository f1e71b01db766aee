/**
 * A run without --with-load says, in every report a reader opens, which MUST requirements the k6
 * probes would decide (and, beside it, the control states the target lacks). Proved by writing
 * the files and reading them back with real parsers: JSON.parse, saxes for junit.xml, the
 * Markdown section, and the HTML section.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chartOnlyUnlessSince, fromK6Summary, writeReports } from '../../../harness/report/files.ts';
import { buildReport, loadDecides, type ReportInput } from '../../../harness/report/model.ts';
import { requirements } from '../../../requirements/catalogue.ts';
import { checkResult } from './fixtures.ts';
import { parseXml } from './parse-back.ts';
import { junitXml, observedAnything } from '../../../load/lib/junit.ts';

const rateLimitIds = ['RATE-LIMIT-100-PER-MIN', 'RATE-LIMIT-ENFORCED', 'RATE-LIMIT-ALL-ENDPOINTS'];

function input(overrides: Partial<ReportInput>): ReportInput {
  return {
    tool: 't',
    suiteVersion: '1',
    target: { kind: 'remote', baseUrl: 'https://api.example.com/v1' },
    startedAt: '2026-11-22T10:00:00.000Z',
    durationMs: 1000,
    seed: 7,
    dryRun: false,
    load: [],
    previous: [],
    requestsSent: 3,
    unhandledErrors: [],
    interrupted: false,
    checks: [
      checkResult({ name: 'GET /me answers 200', status: 'passed', requirements: ['ME-200-SHAPE'] }),
      // What a remote run without a shortened or measured window leaves: the passive judge saw no 429.
      checkResult({
        name: 'passive rate limit',
        status: 'skipped',
        requirements: ['RATE-LIMIT-100-PER-MIN'],
        skipReason: 'not verifiable: passively: no 429 under the documented limit in 3 requests',
      }),
      checkResult({
        name: 'rate limit burst',
        status: 'skipped',
        requirements: ['RATE-LIMIT-ENFORCED', 'RATE-LIMIT-ALL-ENDPOINTS'],
        skipReason: 'not verifiable with this configuration: needs the embedded reference server',
      }),
      // 5xx retry is a probe's requirement too, but this run verified it: not listed.
      checkResult({ name: '503 is retried', status: 'passed', requirements: ['WEBHOOK-5XX-RETRY'] }),
      checkResult({
        name: 'balance upstream',
        status: 'skipped',
        requirements: ['BALANCE-UPSTREAM-500'],
        skipReason: "not verifiable: the target's control endpoint does not offer balance-upstream-failing",
        missingCapabilities: ['balance-upstream-failing'],
      }),
    ],
    ...overrides,
  };
}

function writeAndRead(report: ReturnType<typeof buildReport>) {
  const root = mkdtempSync(join(tmpdir(), 'occ-with-load-listing-'));
  const { dir } = writeReports(report, root);
  return {
    json: JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      loadWouldDecide: string[];
      controlGaps: Array<{ capability: string; unlocks: string[] }>;
    },
    markdown: readFileSync(join(dir, 'report.md'), 'utf8'),
    html: readFileSync(join(dir, 'report.html'), 'utf8'),
    junit: readFileSync(join(dir, 'junit.xml'), 'utf8'),
  };
}

/** The list items (`<li><code>ID</code>…`) of one section of the page. */
function htmlSectionCodes(html: string, id: string): string[] | undefined {
  const section = new RegExp(`<section id="${id}">([\\s\\S]*?)</section>`).exec(html)?.[1];
  return section === undefined ? undefined : [...section.matchAll(/<li><code>([^<]+)<\/code>/g)].map((m) => m[1]!);
}

describe('what --with-load would decide, in the reports', () => {
  it('loadDecides: exactly the undecided MUST requirements the catalogue gives to a k6 probe', () => {
    const byLoad = requirements
      .filter((r) => r.level === 'MUST' && (r.checks as readonly string[]).includes('load'))
      .map((r) => r.id);
    expect(byLoad).toEqual(expect.arrayContaining([...rateLimitIds, 'WEBHOOK-5XX-RETRY']));
    const verdicts = byLoad.map((id) => ({
      id,
      level: 'MUST' as const,
      status:
        id === 'WEBHOOK-5XX-RETRY'
          ? ('passed' as const)
          : id === 'WEBHOOK-ACK-2XX'
            ? ('failed' as const)
            : id === 'WEBHOOK-4XX-NO-RETRY'
              ? ('waived' as const)
              : ('not_verifiable' as const),
    }));
    expect(loadDecides(verdicts).sort()).toEqual(
      byLoad.filter((id) => !['WEBHOOK-5XX-RETRY', 'WEBHOOK-ACK-2XX', 'WEBHOOK-4XX-NO-RETRY'].includes(id)).sort(),
    );
    // An OBSERVE requirement of a probe is never listed (nothing to decide).
    expect(loadDecides([{ id: 'RATE-LIMIT-RESPONSE-SHAPE', level: 'OBSERVE', status: 'not_verifiable' }])).toEqual([]);
    // Remotely the probes never judge the recovery plan or the 24 h horizon: not promised.
    const horizon = [
      { id: 'WEBHOOK-RETRY-HORIZON-24H', level: 'MUST' as const, status: 'not_verifiable' as const },
      { id: 'WEBHOOK-RECOVERY-BEFORE-10', level: 'MUST' as const, status: 'not_verifiable' as const },
    ];
    expect(loadDecides(horizon, 'embedded')).toEqual(['WEBHOOK-RETRY-HORIZON-24H', 'WEBHOOK-RECOVERY-BEFORE-10']);
    expect(loadDecides(horizon, 'remote')).toEqual([]);
  });

  it('without --with-load, every report names what the probes would decide, and the missing control states', () => {
    const report = buildReport(input({}));
    const expected = loadDecides(report.requirements, 'remote');
    expect(expected).toEqual(expect.arrayContaining(rateLimitIds));
    expect(expected).not.toContain('WEBHOOK-5XX-RETRY');
    const files = writeAndRead(report);

    expect(files.json.loadWouldDecide).toEqual(expected);
    expect(files.json.controlGaps).toEqual([
      { capability: 'balance-upstream-failing', unlocks: ['BALANCE-UPSTREAM-500'] },
    ]);

    const section = /## Left to the load probes\n\n(.*)\n/.exec(files.markdown)?.[1];
    expect(section).toBeDefined();
    for (const id of expected) expect(section).toContain(id);
    expect(section).not.toContain('WEBHOOK-5XX-RETRY');
    expect(files.markdown).toContain('| balance-upstream-failing | BALANCE-UPSTREAM-500 |');

    expect(htmlSectionCodes(files.html, 'with-load')).toEqual(expected);
    expect(htmlSectionCodes(files.html, 'control-gaps')).toEqual(['balance-upstream-failing']);

    const xml = parseXml(files.junit);
    expect(xml.attributes).toContain(expected.join(' '));
    expect(files.junit).toContain(`<property name="with-load-would-decide" value="${expected.join(' ')}"/>`);
  });

  it('with --with-load (or in a dry run) nothing is left to the probes: no listing in any file', () => {
    for (const report of [buildReport(input({ withLoad: true })), buildReport(input({ dryRun: true }))]) {
      expect(report.loadWouldDecide).toEqual([]);
      const files = writeAndRead(report);
      expect(files.json.loadWouldDecide).toEqual([]);
      expect(files.markdown).not.toContain('Left to the load probes');
      expect(htmlSectionCodes(files.html, 'with-load')).toBeUndefined();
      expect(files.junit).not.toContain('with-load-would-decide');
    }
  });
});

describe('a k6 probe that could not do its own job', () => {
  const summary = (probeOk: boolean) =>
    fromK6Summary({
      probe: 'rate-limit',
      passed: probeOk,
      failedThresholds: probeOk ? ['refused_over'] : ['late_requests', 'refused_over'],
      thresholds: [
        { requirement: 'probe', ok: probeOk },
        { requirement: 'RATE-LIMIT-100-PER-MIN', ok: true },
        { requirement: 'RATE-LIMIT-ENFORCED', ok: false },
      ],
    });

  it('passes no requirement (late requests prove nothing); the failures it saw stand, and the report says why', () => {
    const valid = summary(true);
    expect(valid.requirements).toMatchObject({ 'RATE-LIMIT-100-PER-MIN': 'passed', 'RATE-LIMIT-ENFORCED': 'failed' });
    const invalid = summary(false);
    expect(invalid.requirements['RATE-LIMIT-100-PER-MIN']).toBeUndefined();
    expect(invalid.requirements['RATE-LIMIT-ENFORCED']).toBe('failed');
    expect(invalid.observations[0]).toMatch(/did not do its own job \(late_requests, refused_over\)/);
    // So the requirement keeps the checks' verdict: not verifiable, never passed.
    const report = buildReport(input({ load: [invalid] }));
    expect(report.requirements.find((r) => r.id === 'RATE-LIMIT-100-PER-MIN')?.status).toBe('not_verifiable');
    expect(report.requirements.find((r) => r.id === 'RATE-LIMIT-ENFORCED')?.status).toBe('failed');
  });
});

describe('a k6 threshold held on nothing observed', () => {
  it('is no verdict: a retry the watch never saw is not a pass (k6 holds rate==1 on an empty rate metric)', () => {
    const empty = {
      type: 'rate' as const,
      values: { rate: 0, passes: 0, fails: 0 },
      thresholds: { 'rate==1': { ok: true } },
    };
    const seen = {
      type: 'rate' as const,
      values: { rate: 1, passes: 1, fails: 0 },
      thresholds: { 'rate==1': { ok: true } },
    };
    expect(observedAnything(empty)).toBe(false);
    expect(observedAnything(seen)).toBe(true);
    // A counter at zero is a measurement (nothing refused), not an absence.
    expect(observedAnything({ type: 'counter', values: { count: 0 }, thresholds: { 'count==0': { ok: true } } })).toBe(
      true,
    );

    const summary = fromK6Summary({
      probe: 'webhook-retry',
      passed: true,
      failedThresholds: [],
      thresholds: [
        { requirement: 'probe', ok: true, observed: true },
        { requirement: 'WEBHOOK-ACK-2XX', ok: true, observed: true },
        { requirement: 'WEBHOOK-AUTO-DISABLE-10', ok: true, observed: false },
      ],
    });
    expect(summary.requirements).toEqual({ probe: 'passed', 'WEBHOOK-ACK-2XX': 'passed' });
    const report = buildReport(input({ load: [summary] }));
    expect(report.requirements.find((r) => r.id === 'WEBHOOK-AUTO-DISABLE-10')).not.toHaveProperty('source');

    // The probe's own junit file shows it skipped, not passed.
    const xml = junitXml(
      'k6.webhook-retry',
      { metrics: { 'checks{req:WEBHOOK-AUTO-DISABLE-10}': empty, 'checks{req:WEBHOOK-ACK-2XX}': seen } },
      [
        { key: 'checks{req:WEBHOOK-ACK-2XX}', requirement: 'WEBHOOK-ACK-2XX', description: 'ack' },
        { key: 'checks{req:WEBHOOK-AUTO-DISABLE-10}', requirement: 'WEBHOOK-AUTO-DISABLE-10', description: 'disable' },
      ],
    );
    expect(parseXml(xml).elements.filter((e) => e === 'skipped')).toHaveLength(1);
    expect(xml).toMatch(/WEBHOOK-AUTO-DISABLE-10" name="[^"]*"[^>]*>\s*<skipped/);
  });
});

describe("what a k6 probe recorded under an OBSERVE requirement's id", () => {
  it('makes that requirement observed (its source the probe); a null record leaves it as the checks did', () => {
    const summary = fromK6Summary({
      probe: 'rate-limit',
      passed: true,
      failedThresholds: [],
      thresholds: [{ requirement: 'RATE-LIMIT-ENFORCED', ok: true, observed: true }],
      observations: {
        'RATE-LIMIT-RESPONSE-SHAPE': { refusal: { status: 429 } },
        'RATE-LIMIT-WINDOW-BEHAVIOUR': null,
        configured: { limit: 100 },
      },
    });
    const report = buildReport(
      input({
        load: [summary],
        checks: [
          checkResult({
            name: 'burst',
            status: 'skipped',
            requirements: ['RATE-LIMIT-RESPONSE-SHAPE', 'RATE-LIMIT-WINDOW-BEHAVIOUR'],
            skipReason: 'not verifiable with this configuration: needs the embedded reference server',
          }),
        ],
      }),
    );
    const byId = new Map(report.requirements.map((r) => [r.id, r]));
    expect(byId.get('RATE-LIMIT-RESPONSE-SHAPE')).toMatchObject({
      status: 'observed',
      source: 'k6 rate-limit',
      observations: ['k6 rate-limit: {"refusal":{"status":429}}'],
    });
    expect(byId.get('RATE-LIMIT-WINDOW-BEHAVIOUR')?.status).toBe('not_verifiable');
  });
});

describe('a k6 summary another run left in reports/latest', () => {
  const summary = fromK6Summary({
    probe: 'rate-limit',
    passed: true,
    failedThresholds: [],
    generatedAt: '2026-11-22T10:00:00.000Z',
    thresholds: [{ requirement: 'RATE-LIMIT-ENFORCED', ok: true, observed: true }],
    observations: { 'RATE-LIMIT-RESPONSE-SHAPE': { status: 429 } },
  });

  it('is charted, never counted: an earlier `npm run load:*` (perhaps another target) decides nothing here', () => {
    for (const since of [undefined, '2026-11-22T10:00:00.001Z']) {
      const stale = chartOnlyUnlessSince(summary, since);
      expect(stale.requirements).toEqual({});
      expect(stale.requirementObservations).toEqual({});
      expect(stale.observations[0]).toMatch(
        /from an earlier k6 run \(finished 2026-11-22T10:00:00.000Z\), not this run/,
      );
      const report = buildReport(input({ load: [stale] }));
      expect(report.requirements.find((r) => r.id === 'RATE-LIMIT-ENFORCED')?.status).toBe('not_verifiable');
    }
    // The probes this run started (--with-load, finished after it started them) decide.
    expect(chartOnlyUnlessSince(summary, '2026-11-22T09:59:59.000Z')).toBe(summary);
  });
});
