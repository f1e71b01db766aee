import { mkdtempSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProbeSummaries, previousRuns, writeReports } from '../../../harness/report/files.ts';
import { renderHtml } from '../../../harness/report/html.ts';
import { renderJunit, xmlText } from '../../../harness/report/junit.ts';
import { readable } from '../../../harness/report/readable.ts';
import { renderMarkdown } from '../../../harness/report/markdown.ts';
import { buildReport } from '../../../harness/report/model.ts';
import { checkResult } from './fixtures.ts';

const hostile = '<script>alert(1)</script>|pipe';
const report = buildReport({
  tool: 't',
  suiteVersion: '1',
  target: { kind: 'remote', baseUrl: 'https://api.example.com/v1' },
  startedAt: '2026-11-21T10:00:00.000Z',
  durationMs: 1234,
  seed: 42,
  dryRun: false,
  load: [],
  previous: [],
  requestsSent: 2,
  unhandledErrors: [],
  interrupted: false,
  checks: [
    checkResult({
      name: 'GET /cdrs rejects a window longer than 31 days with 400 window_too_wide',
      status: 'failed',
      requirements: ['CDRS-WINDOW-MAX-31D'],
      failure: `expected 400 window_too_wide, got 200 ${hostile}`,
      exchanges: [
        {
          method: 'GET',
          url: 'https://api.example.com/v1/cdrs',
          requestHeaders: { authorization: 'Bearer [REDACTED]' },
          status: 200,
          responseHeaders: { 'content-type': 'text/html' },
          rawBody: hostile,
          durationMs: 3,
        },
      ],
    }),
    checkResult({
      name: 'GET /me answers 403 suspended',
      status: 'skipped',
      requirements: ['ME-SUSPENDED-403'],
      skipReason: 'not verifiable with this configuration: needs TOKEN_SUSPENDED',
    }),
    checkResult({
      name: 'order',
      status: 'passed',
      requirements: ['CDRS-ORDER'],
      observations: [{ requirement: 'CDRS-ORDER', text: `ascending ${hostile}` }],
    }),
  ],
});

describe('report renderers', () => {
  it('HTML escapes everything the target controls and carries the matrix, failures and reasons', () => {
    const page = renderHtml(report);
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script>alert(1)&lt;/script>');
    expect(page).toContain('id="requirement-matrix"');
    expect(page).toContain('needs TOKEN_SUSPENDED');
    expect(page).toContain('HTTP exchanges behind this failure');
    expect(page).toMatch(/<svg[^>]+aria-label="Requirements per run"/);
    expect(page).not.toMatch(/<(link|script)[^>]+(src|href)=/); // self-contained
  });

  it('Markdown gives the verdict, the failure, the reasons and keeps table cells on one line', () => {
    const md = renderMarkdown(report);
    expect(md.split('\n')[0]).toBe('# Outbound Calling API v1 conformance: FAILED');
    expect(md).toContain('### GET /cdrs rejects a window longer than 31 days with 400 window_too_wide');
    expect(md).toContain('| ME-SUSPENDED-403 | not verifiable with this configuration: needs TOKEN_SUSPENDED |');
    // Target text is escaped so it renders as written, never as HTML or a table cell break.
    expect(md).toContain('ascending \\<script>alert(1)\\</script>\\|pipe');
  });

  it('JUnit XML has one testcase per check with requirement properties, failures and skips', () => {
    const xml = renderJunit(report);
    expect(xml).toMatch(/<testsuites[^>]*tests="3"[^>]*failures="1"[^>]*skipped="1"|<testsuites[^>]*failures="1"/);
    expect(xml).toContain('name="GET /cdrs rejects a window longer than 31 days with 400 window_too_wide"');
    expect(xml).toContain('<property name="requirements" value="CDRS-WINDOW-MAX-31D"/>');
    expect(xml).toContain('<skipped/>');
    // Target text is escaped in attributes; the exchanges travel in CDATA, inert to XML readers.
    expect(xml).toContain('message="expected 400 window_too_wide, got 200 &lt;script>alert(1)&lt;/script>|pipe"');
    expect(xml.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '')).not.toContain('<script>');
  });

  it('writes what XML 1.0 cannot carry as \\uXXXX, what a reader cannot show as pictures, keeping the rest', () => {
    expect(xmlText('a\u0000b\uD800c\uD83D\uDE00\u0007\t\n\uFFFE')).toEqual({
      text: 'a\\u0000b\\uD800c\uD83D\uDE00\\u0007\t\n\\uFFFE',
      escaped: true,
    });
    expect(xmlText('Basic realm="oauth" ]]> <x>')).toEqual({ text: 'Basic realm="oauth" ]]> <x>', escaped: false });
    expect(readable('a\u0000\u001B[2K\u202Eb\uDC00\u007F\r\n')).toBe('a\u2400\u241B[2K[U+202E]b\uFFFD\u2421\r\n');
  });

  it('writes a timestamped run and latest/ exactly as the model holds it, and reads them back as history', () => {
    const root = mkdtempSync(join(tmpdir(), 'occ-reports-'));
    const { dir, latest } = writeReports(report, root);
    expect(readdirSync(dir).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md']);
    for (const name of readdirSync(latest))
      expect(readFileSync(join(latest, name), 'utf8')).toBe(readFileSync(join(dir, name), 'utf8'));
    // No pass over the written text: the JSON reads back as the very model.
    expect(JSON.parse(readFileSync(join(latest, 'report.json'), 'utf8'))).toEqual(report);
    expect(previousRuns(root, report.target).map((r) => r.startedAt)).toEqual([report.startedAt]);
    expect(previousRuns(root, { kind: 'remote', baseUrl: 'https://other.example.com/v1' })).toEqual([]);
  });

  it('reads k6 probe summaries from latest/ and ignores anything malformed', () => {
    const root = mkdtempSync(join(tmpdir(), 'occ-reports-'));
    mkdirSync(join(root, 'latest'));
    writeFileSync(
      join(root, 'latest', 'k6-rate-limit.json'),
      JSON.stringify({
        probe: 'rate-limit',
        passed: false,
        failedThresholds: ['refused_under count==0'],
        thresholds: [
          { key: 'refused_under', ok: false, requirement: 'RATE-LIMIT-100-PER-MIN' },
          { key: 'x', ok: true, requirement: 'RATE-LIMIT-ENFORCED' },
        ],
        observations: { 'RATE-LIMIT-RESPONSE-SHAPE': { status: 429 } },
        chart: {
          perSecond: [
            { second: 0, accepted: 50, refused: 0 },
            { second: 1, accepted: 50, refused: 25 },
          ],
        },
      }),
    );
    writeFileSync(
      join(root, 'latest', 'k6-webhook-retry.json'),
      JSON.stringify({
        probe: 'webhook-retry',
        passed: true,
        failedThresholds: [],
        thresholds: [{ key: 'y', ok: true, requirement: 'WEBHOOK-5XX-RETRY' }],
        observations: {},
        chart: { expected: { attemptAtS: [0, 60, 180] }, series: [{ plan: 'server5xx', attemptAtS: [0, 61, 182] }] },
      }),
    );
    writeFileSync(join(root, 'latest', 'k6-broken.json'), '{"probe": ');
    writeFileSync(join(root, 'latest', 'k6-other.json'), '{"metrics": {}}');
    const [rate, retry] = loadProbeSummaries(root);
    expect(rate).toMatchObject({
      probe: 'rate-limit',
      passed: false,
      requirements: { 'RATE-LIMIT-100-PER-MIN': 'failed', 'RATE-LIMIT-ENFORCED': 'passed' },
      observations: ['RATE-LIMIT-RESPONSE-SHAPE: {"status":429}'],
      chart: { seconds: [0, 1], accepted: [50, 50], refused: [0, 25] },
    });
    expect(retry).toMatchObject({
      probe: 'webhook-retry',
      chart: {
        deliveries: [{ label: 'server5xx', attemptsMs: [0, 61_000, 182_000], expectedMs: [0, 60_000, 180_000] }],
      },
    });
    expect(loadProbeSummaries(root)).toHaveLength(2);
    const page = renderHtml({ ...report, load: [rate!, retry!] });
    expect(page).toContain('aria-label="Accepted and refused requests per second"');
    expect(page).toContain('aria-label="Attempt times of retried deliveries against the expected backoff"');
  });
});
