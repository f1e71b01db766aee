/**
 * Every report writer driven with hostile target data, and every file parsed back
 * with a real parser: report.json with JSON.parse, junit.xml with saxes (strict XML 1.0
 * well-formedness), report.md as strict UTF-8 whose tables keep their shape, report.html in
 * chromium (one browser for a batch of generated reports). No secret value may survive in any
 * file, and check names must come back as written.
 *
 * The data takes the real path: raw exchanges through the client's record (redaction by what
 * each part is, then the caps), texts through the same redactor, then buildReport and
 * writeReports.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { recordExchange, type Exchange } from '../../../harness/http/client.ts';
import { createRedactor } from '../../../harness/http/redact.ts';
import { REPORT_FILES, writeReports } from '../../../harness/report/files.ts';
import { xmlText } from '../../../harness/report/junit.ts';
import { buildReport, type RunReport } from '../../../harness/report/model.ts';
import type { CheckResult, CheckStatus } from '../../../harness/report/results.ts';
import { readable } from '../../../harness/report/readable.ts';
import { requirements } from '../../../requirements/catalogue.ts';
import { markdownTableProblems, outsideFences, parseXml } from './parse-back.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const seed = process.env.PROPERTY_SEED === undefined ? undefined : Number(process.env.PROPERTY_SEED);

/** Pieces a hostile target (or a hostile check) puts in text. */
const nasty = [
  '"',
  "'",
  '\\',
  '\\"',
  '\\\\"',
  ']]>',
  '<![CDATA[',
  '</testcase>',
  '</system-out>',
  '<script>alert(1)</script>',
  '</pre><script>x()</script>',
  '&amp;',
  '&#0;',
  '&lt;',
  '<!--',
  '-->',
  '<?xml version="1.0"?>',
  '|',
  '||',
  '\\|',
  '```',
  '~~~',
  '# heading',
  '* item',
  '_x_',
  '[a](javascript:alert(1))',
  '\u0000',
  '\u0001',
  '\u0007',
  '\u0008',
  '\u000B',
  '\u000C',
  '\u001B[2K',
  '\u001B]0;title\u0007',
  '\u007F',
  '\u0085',
  '\r',
  '\r\n',
  '\n',
  '\t',
  '\uD800',
  '\uDFFF',
  '\uDBFF\uDFFF',
  '\uFFFE',
  '\uFFFF',
  '\uFEFF',
  '\u202E',
  '\u2066',
  '\u2069',
  '\u200B',
  '\u2028',
  '\u2029',
  'Basic realm="oauth"',
  'Bearer',
  'HTTP Basic',
  'Basic [REDACTED]',
  'whsec_',
  'client_secret=',
  '"secret": "',
  '{"access_token":',
  '😀',
  'é',
  'e\u0301',
  '𝕏',
  '\u0000\u0000',
  '%00',
  '%ZZ',
] as const;

/** Invalid UTF-8 from the wire, decoded as the client decodes it. */
const decodedBytes = fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes).toString('utf8'));
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...nasty) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: decodedBytes },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
);
const hostile = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));
/** Now and then a value far beyond every cap. */
const hostileOrHuge = fc.oneof(
  { weight: 9, arbitrary: hostile },
  {
    weight: 1,
    arbitrary: fc
      .tuple(hostile, fc.integer({ min: 17_000, max: 40_000 }))
      .map(([s, n]) => `${s}${'Ω<]]>\\"'.repeat(n / 7)}`),
  },
);

interface Secrets {
  token: string;
  clientSecret: string;
  accessToken: string;
  hookSecret: string;
  controlToken: string;
}
const secretChars = fc.string({
  unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'),
  minLength: 16,
  maxLength: 28,
});
const secretsArb: fc.Arbitrary<Secrets> = fc.record({
  token: secretChars.map((s) => `oc_live_${s}`),
  clientSecret: secretChars.map((s) => `cs_${s}`),
  accessToken: secretChars.map((s) => `eyJ${s}.eyJ${s.slice(3)}`),
  hookSecret: secretChars.map((s) => `whsec_${s}`),
  controlToken: secretChars,
});

/** Text with one of the run's secrets somewhere inside it. */
function withSecret(text: string, secret: string, at: number): string {
  const i = Math.min(at, text.length);
  return `${text.slice(0, i)}${secret}${text.slice(i)}`;
}

const headerName = fc.oneof(
  fc.constantFrom(
    'www-authenticate',
    'authorization',
    'proxy-authorization',
    'cookie',
    'set-cookie',
    'x-api-key',
    'content-type',
    'retry-after',
    '__proto__',
    'constructor',
    '',
    ' ',
    'x-"quoted"',
    'x-<tag>',
    'ümlaut',
  ),
  hostile,
);
const headerValue = fc.oneof(
  fc.constantFrom('Basic realm="oauth"', 'Bearer error="invalid_token", error_description="expired"', 'Basic', ''),
  hostileOrHuge,
);

interface Case {
  readonly secrets: Secrets;
  readonly checks: ReadonlyArray<{
    name: string;
    status: CheckStatus;
    failure: string;
    observation: string;
    skip: string;
    headers: Array<[string, string]>;
    body: string;
    secretAt: number;
    secretKind: number;
  }>;
  readonly unhandled: string;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  secrets: secretsArb,
  checks: fc.array(
    fc.record({
      // Names are the suite's own text and never redacted: they carry no secret value.
      name: hostileOrHuge.filter((name) => !/whsec_[A-Za-z0-9+/=_\-.]/.test(name)),
      status: fc.constantFrom<CheckStatus>('passed', 'failed', 'failed', 'skipped', 'not_run'),
      failure: hostileOrHuge,
      observation: hostile,
      skip: hostile,
      headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 6 }),
      body: hostileOrHuge,
      secretAt: fc.nat(40),
      secretKind: fc.nat(4),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  unhandled: hostile,
});

/** The run's data as the harness builds it: raw exchanges recorded, texts redacted. */
function buildCase(c: Case, index: number): { report: RunReport; names: string[]; secrets: string[] } {
  const { secrets } = c;
  const all = [secrets.token, secrets.clientSecret, secrets.accessToken, secrets.hookSecret, secrets.controlToken];
  // What the harness knows: the configured secrets; the access token and hook secret it learns.
  const redact = createRedactor([secrets.token, secrets.clientSecret, secrets.controlToken]);
  const ids = requirements.map((r) => r.id);
  const checks: CheckResult[] = c.checks.map((check, i) => {
    const secret = all[check.secretKind % all.length]!;
    const raw: Exchange = {
      seq: i,
      method: 'POST',
      url:
        `https://api.example.com/v1/oauth/token?client_secret=${encodeURIComponent(secrets.clientSecret)}` +
        `&q=${Buffer.from(check.body.slice(0, 50)).toString('hex')}`,
      requestHeaders: {
        authorization: `Bearer ${secrets.token}`,
        cookie: `s=${secrets.controlToken}`,
        'content-type': 'application/x-www-form-urlencoded',
        ...Object.fromEntries(check.headers.slice(0, 2)),
      },
      requestBody:
        `grant_type=client_credentials&client_secret=${encodeURIComponent(secrets.clientSecret)}` +
        `&note=${Buffer.from(check.body.slice(0, 100)).toString('base64url')}&x=%ZZ%00`,
      status: 401,
      responseHeaders: Object.fromEntries([
        ['content-type', 'application/json'],
        ['www-authenticate', 'Basic realm="oauth"'],
        ...check.headers,
      ]),
      rawBody: JSON.stringify({
        access_token: secrets.accessToken,
        secret: secrets.hookSecret,
        refresh_token: secrets.accessToken,
        error: 'invalid_client',
        error_description: withSecret(check.body, secret, check.secretAt),
        [check.name.slice(0, 20)]: check.body,
      }),
      json: undefined,
      jsonError: undefined,
      transportError: withSecret(check.failure.slice(0, 200), secret, check.secretAt),
      startedAt: '2026-11-22T10:00:00.000Z',
      durationMs: 1,
    };
    redact.learnFrom(JSON.parse(raw.rawBody));
    const text = (s: string) => redact(withSecret(s, secret, check.secretAt));
    const exchanges = [
      recordExchange(raw, redact),
      recordExchange(
        {
          ...raw,
          rawBody: withSecret(check.body, secret, check.secretAt),
          responseHeaders: { 'content-type': 'text/plain' },
        },
        redact,
      ),
    ];
    return {
      id: `unit:suites/x.suite.ts:${i}:${check.name}`,
      project: 'conformance',
      file: i % 2 === 0 ? 'suites/a.suite.ts' : `suites/${check.name.slice(0, 10)}.suite.ts`,
      name: check.name,
      status: check.status,
      durationMs: i,
      requirements: [ids[i % ids.length]!, ids[(i * 7 + 3) % ids.length]!],
      failure: check.status === 'failed' ? text(check.failure) : undefined,
      skipReason: check.status === 'skipped' ? text(check.skip) : undefined,
      observations: [{ requirement: ids[i % ids.length]!, text: text(check.observation) }],
      exchanges: check.status === 'failed' ? exchanges.map((e) => ({ ...e })) : [],
      ...(check.status === 'failed' ? { exchangesOmitted: 3 } : {}),
      requests: 2,
      plannedRequests: 2,
      rateLimited: 0,
    };
  });
  const report = buildReport({
    tool: 't',
    suiteVersion: '1',
    target: { kind: 'remote', baseUrl: 'https://api.example.com/v1' },
    startedAt: new Date(Date.UTC(2026, 10, 22, 10, 0, index)).toISOString(),
    durationMs: 10,
    seed: 1,
    dryRun: false,
    previous: [],
    requestsSent: checks.length * 2,
    interrupted: c.checks.some((x) => x.status === 'not_run'),
    unhandledErrors: [redact(withSecret(c.unhandled, secrets.token, 3))],
    // As cli/run-summary.ts reads k6 summaries: scrubbed as values.
    load: redact.value([
      {
        probe: 'rate-limit',
        passed: false,
        failedThresholds: [c.unhandled],
        requirements: { 'RATE-LIMIT-ENFORCED': 'failed' as const },
        observations: [c.unhandled],
      },
    ]),
    checks,
  });
  return { report, names: checks.map((x) => x.name), secrets: all };
}

function assertNoSecret(text: string, secrets: readonly string[], file: string): void {
  for (const secret of secrets) {
    expect(text.includes(secret), `${secret.slice(0, 8)}… survived in ${file}`).toBe(false);
  }
  expect(text, `a whsec_ value survived in ${file}`).not.toMatch(/whsec_(?!\[REDACTED\])[A-Za-z0-9]/);
}

/** Writes a case's reports and checks every file with its parser; returns the HTML path. */
function writeAndParse(c: Case, index: number): { html: string; names: string[]; interrupted: boolean } {
  const { report, names, secrets } = buildCase(c, index);
  const root = mkdtempSync(join(tmpdir(), 'occ-hostile-'));
  const { latest } = writeReports(report, root);
  for (const name of REPORT_FILES) {
    const bytes = readFileSync(join(latest, name));
    // Every file is strict UTF-8, whatever the target sent.
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    assertNoSecret(text, secrets, name);
  }
  const json = JSON.parse(readFileSync(join(latest, 'report.json'), 'utf8')) as RunReport;
  expect(json.checks.map((x) => x.name)).toEqual(names);
  expect(json.checks.map((x) => x.status)).toEqual(report.checks.map((x) => x.status));
  for (const check of json.checks) {
    for (const exchange of check.exchanges) {
      expect(Buffer.byteLength(String(exchange.rawBody))).toBeLessThanOrEqual(16_384);
      if (
        Buffer.byteLength(String(exchange.rawBody)) === 16_384 ||
        String(exchange.truncated ?? '').includes('response body')
      ) {
        expect(String(exchange.truncated)).toMatch(/response body cut at \d+ of \d+ bytes/);
      }
    }
  }

  const xml = parseXml(readFileSync(join(latest, 'junit.xml'), 'utf8'));
  expect(xml.elements.filter((e) => e === 'testcase').length).toBe(names.length + 1 /* the k6 verdict */);
  // Attribute values come back exactly as written, but for what XML 1.0 cannot carry (\uXXXX).
  const attributes = new Set(xml.attributes);
  for (const name of names)
    expect(attributes.has(xmlText(name).text), `name ${JSON.stringify(name.slice(0, 60))} in junit.xml`).toBe(true);

  const md = readFileSync(join(latest, 'report.md'), 'utf8');
  // Fenced failure texts are shown literally; everything else keeps its table shape.
  const prose = outsideFences(md);
  expect(markdownTableProblems(prose)).toEqual([]);
  for (const line of prose.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Requirement')))
    expect(line.endsWith('|')).toBe(true);
  // Target text never becomes HTML or a fence break in the Markdown.
  expect(outsideFences(md)).not.toMatch(/(?<!\\)<script/);
  expect(md.split('\n').filter((l) => /^#{1,3} /.test(l)).length).toBeGreaterThan(0);
  return { html: join(latest, 'report.html'), names, interrupted: report.interrupted };
}

describe('every report writer with hostile target data', () => {
  // Generous timeout: the machine is shared; the property itself takes a few seconds.
  it('writes files every real parser reads back, names intact and no secret left', { timeout: 60_000 }, () => {
    let index = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        writeAndParse(c, index++);
      }),
      { numRuns: 30, ...(seed === undefined ? {} : { seed }) },
    );
  });

  it('renders report.html that chromium loads without running anything, names shown as written', {
    timeout: 90_000,
  }, async () => {
    expect(existsSync(CHROMIUM), `no browser at ${CHROMIUM}: install Debian's chromium or set CHROMIUM_PATH`).toBe(
      true,
    );
    const pages = fc
      .sample(caseArb, { numRuns: 8, ...(seed === undefined ? {} : { seed }) })
      .map((c, i) => writeAndParse(c, 1000 + i));
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const context = await browser.newContext({ javaScriptEnabled: true });
      const page = await context.newPage();
      const errors: string[] = [];
      const dialogs: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      for (const { html, names, interrupted } of pages) {
        await page.goto(`file://${html}`);
        expect(await page.locator('script').count()).toBe(0);
        expect(await page.locator('#requirement-matrix tbody tr').count()).toBe(requirements.length);
        const shown = await page
          .locator('#failures strong, #not-run li[data-status="not_run"]')
          .evaluateAll((nodes) => nodes.map((n) => n.firstChild?.textContent ?? ''));
        // What the browser shows is the name made readable (controls and bidi visible), nothing else changed.
        const expected = names.map((n) => readable(n).replace(/\r\n?/g, '\n'));
        for (const text of shown)
          expect(
            expected.some((name) => name === text || name.trimEnd() === text.trimEnd()),
            `shown name ${JSON.stringify(text.slice(0, 60))}`,
          ).toBe(true);
        if (interrupted) expect(await page.locator('#not-run').count()).toBe(1);
      }
      expect(errors).toEqual([]);
      expect(dialogs).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
