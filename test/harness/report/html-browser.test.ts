/**
 * The HTML report opened in a real headless browser (Debian's chromium, driven by
 * playwright-core): the matrix is there, every requirement has a row, nothing is fetched; the
 * requirements are grouped by the spec's sections with their counts, the status filter works
 * with scripts disabled, and the page uses a laptop's width and fits a phone's. Screenshots of
 * both widths are written to OCC_SCREENSHOT_DIR (default: a temporary folder) for a person to look at.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { renderHtml } from '../../../harness/report/html.ts';
import { buildReport } from '../../../harness/report/model.ts';
import { applyWaivers } from '../../../harness/report/waivers.ts';
import { requirements } from '../../../requirements/catalogue.ts';
import { checkResult } from './fixtures.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('report.html in a headless browser', () => {
  // One browser for both tests (a browser's start is most of the file's CPU); each test opens
  // its own context, so no page state is shared.
  let browser: Browser;
  beforeAll(async () => {
    expect(
      existsSync(CHROMIUM),
      `no browser at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`,
    ).toBe(true);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the requirement matrix with one row per requirement, the failure and the trend, offline', {
    timeout: 60_000,
  }, async () => {
    const report = buildReport({
      tool: 't',
      suiteVersion: '1',
      target: { kind: 'embedded', baseUrl: 'embedded reference server' },
      startedAt: '2026-11-21T10:00:00.000Z',
      durationMs: 10,
      seed: 1,
      dryRun: false,
      load: [],
      previous: [],
      requestsSent: 2,
      unhandledErrors: [],
      interrupted: false,
      checks: [
        checkResult({ name: 'GET /me answers 200', status: 'passed', requirements: ['ME-200-SHAPE'] }),
        checkResult({
          name: 'GET /cdrs rejects 32 days',
          status: 'failed',
          requirements: ['CDRS-WINDOW-MAX-31D'],
          failure: 'expected 400 window_too_wide, got 200',
        }),
      ],
    });
    const file = join(mkdtempSync(join(tmpdir(), 'occ-html-')), 'report.html');
    writeFileSync(file, renderHtml(report));

    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const requested: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith('file://')) requested.push(request.url());
      });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`file://${file}`);
      const matrix = page.locator('#requirement-matrix');
      await expect.poll(() => matrix.isVisible()).toBe(true);
      expect(await matrix.locator('tbody tr').count()).toBe(requirements.length);
      expect(await matrix.locator('tr[data-requirement="CDRS-WINDOW-MAX-31D"]').getAttribute('data-status')).toBe(
        'failed',
      );
      expect(await matrix.locator('tr[data-requirement="ME-200-SHAPE"]').getAttribute('data-status')).toBe('passed');
      // biome-ignore lint/performance/useDomNodeTextContent: innerText is what a person sees (hidden text excluded)
      expect(await page.locator('#failures').innerText()).toContain('expected 400 window_too_wide, got 200');
      expect(await page.locator('#trend svg').count()).toBe(1);
      expect(await page.title()).toContain('Conformance report');
      expect(requested).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('sections with counts, status filters without script, seeds in check details, fits a laptop and a phone', {
    timeout: 90_000,
  }, async () => {
    const applied = applyWaivers(
      [
        checkResult({ name: 'GET /me answers 200', status: 'passed', requirements: ['ME-200-SHAPE'] }),
        checkResult({
          name: 'GET /cdrs rejects 32 days',
          status: 'failed',
          requirements: ['CDRS-WINDOW-MAX-31D'],
          failure: 'expected 400 window_too_wide, got 200',
          exchanges: [
            {
              method: 'GET',
              url: 'https://api.example.com/v1/cdrs?from=a&till=b',
              requestHeaders: {},
              status: 200,
              responseHeaders: {},
              rawBody: '{}',
              durationMs: 3,
              curl:
                `curl -sS -i -X GET 'https://api.example.com/v1/cdrs?from=a&till=b' ` +
                `-H 'authorization: Bearer '"$TOKEN_READ_CDRS"`,
            },
          ],
        }),
        checkResult({
          name: 'GET /balance needs read:balance',
          status: 'failed',
          requirements: ['AUTH-SCOPE-BALANCE'],
          failure: 'expected 401 unauthorized, got 200',
        }),
        checkResult({
          name: 'GET /me answers 403 suspended',
          status: 'skipped',
          requirements: ['ME-SUSPENDED-403'],
          skipReason: 'not verifiable with this configuration: needs TOKEN_SUSPENDED',
        }),
        checkResult({
          name: 'GET /cdrs order',
          status: 'passed',
          requirements: ['CDRS-ORDER'],
          observations: [{ requirement: 'CDRS-ORDER', text: 'ascending startTime' }],
        }),
        checkResult({
          name: 'GET /cdrs answers every generated window',
          project: 'properties',
          file: 'properties/cdr-window.property.ts',
          status: 'passed',
          requirements: ['CDRS-INVALID-TIMESTAMP'],
          observations: [
            {
              requirement: 'CDRS-INVALID-TIMESTAMP',
              text:
                'property seed 424242, 5 run(s); replay: PROPERTY_SEED=424242 npx vitest run --project properties ' +
                '-t "GET /cdrs answers every generated window"',
            },
          ],
        }),
      ],
      [
        {
          requirement: 'AUTH-SCOPE-BALANCE',
          reason: 'scope check ships in 2.4',
          ticket: 'OPS-7',
          expires: '2099-01-01',
        },
      ],
      { strict: false, today: '2026-11-21', file: 'waivers.json' },
    );
    const report = buildReport({
      tool: 't',
      suiteVersion: '1',
      target: { kind: 'remote', baseUrl: 'https://api.example.com/v1' },
      startedAt: '2026-11-21T10:00:00.000Z',
      durationMs: 10,
      seed: 1,
      dryRun: false,
      load: [],
      previous: [],
      requestsSent: 6,
      unhandledErrors: [],
      interrupted: false,
      checks: applied.checks,
      waivers: applied.summary,
    });
    const dir = mkdtempSync(join(tmpdir(), 'occ-html-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, renderHtml(report));
    const shots = process.env.OCC_SCREENSHOT_DIR ?? join(dir, 'screenshots');
    mkdirSync(shots, { recursive: true });

    // Scripts off: the filter must work on CSS alone (the page's CSP forbids scripts anyway).
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1440, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`file://${file}`);
      const sections = page.locator('#requirement-matrix details.section');
      const sectionNames = [...new Set(requirements.map((r) => r.section.split(' › ')[0]))];
      expect(await sections.count()).toBe(sectionNames.length);
      const endpoints = page.locator('details.section[data-section="Endpoints"] > summary');
      const endpointRows = requirements.filter((r) => r.section.split(' › ')[0] === 'Endpoints').length;
      // biome-ignore lint/performance/useDomNodeTextContent: innerText is what a person sees (hidden text excluded)
      expect(await endpoints.innerText()).toContain(`${endpointRows} requirement`);
      // biome-ignore lint/performance/useDomNodeTextContent: innerText is what a person sees (hidden text excluded)
      expect(await endpoints.innerText()).toMatch(/1 not verifiable/);
      // biome-ignore lint/performance/useDomNodeTextContent: innerText is what a person sees (hidden text excluded)
      expect(await page.locator('details.section[data-section="Limits"] > summary').innerText()).toMatch(/1 failed/);
      // biome-ignore lint/performance/useDomNodeTextContent: innerText is what a person sees (hidden text excluded)
      expect(await page.locator('details.section[data-section="Authentication"] > summary').innerText()).toMatch(
        /1 waived/,
      );

      // The page uses the laptop's width: the matrix spans nearly all of it.
      const width = await page.locator('#requirement-matrix').evaluate((el) => el.getBoundingClientRect().width);
      expect(width).toBeGreaterThan(1440 * 0.9);
      await page.screenshot({ path: join(shots, 'report-laptop.png'), fullPage: false });

      // The seed and replay command are in the property check's details, not in the observations.
      // biome-ignore lint/performance/useDomNodeTextContent: innerText is what a person sees (hidden text excluded)
      expect(await page.locator('#observations').innerText()).not.toContain('property seed');
      const propertyRow = page.locator('tr[data-requirement="CDRS-INVALID-TIMESTAMP"]');
      await propertyRow.locator('details summary').click();
      // biome-ignore lint/performance/useDomNodeTextContent: innerText is what a person sees (hidden text excluded)
      expect(await propertyRow.locator('code.replay').innerText()).toContain(
        'PROPERTY_SEED=424242 npx vitest run --project properties',
      );

      const visibleRows = () =>
        page
          .locator('#requirement-matrix tr.req-row')
          .evaluateAll((rows) =>
            rows
              .filter((r) => (r as HTMLElement).offsetParent !== null)
              .map((r) => `${r.getAttribute('data-requirement')}:${r.getAttribute('data-status')}`),
          );
      expect((await visibleRows()).length).toBe(requirements.length);
      await page.locator('label[for="filter-failed"]').click();
      expect(await visibleRows()).toEqual(['CDRS-WINDOW-MAX-31D:failed']);
      expect(
        await sections.evaluateAll((all) => all.filter((s) => (s as HTMLElement).offsetParent !== null).length),
      ).toBe(1);
      await page.screenshot({ path: join(shots, 'report-laptop-failed.png'), fullPage: false });
      await page.locator('label[for="filter-waived"]').click();
      expect(await visibleRows()).toEqual(['AUTH-SCOPE-BALANCE:waived']);
      await page.locator('label[for="filter-not_verifiable"]').click();
      expect(await visibleRows()).toEqual(['ME-SUSPENDED-403:not_verifiable']);
      await page.locator('label[for="filter-observed"]').click();
      expect((await visibleRows()).every((row) => row.endsWith(':observed'))).toBe(true);
      expect(await visibleRows()).toContain('CDRS-ORDER:observed');
      await page.locator('label[for="filter-all"]').click();
      expect((await visibleRows()).length).toBe(requirements.length);

      // A phone: nothing wider than the screen, each requirement's cells stacked.
      await page.setViewportSize({ width: 390, height: 844 });
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await page.locator('label[for="filter-failed"]').click();
      await page.screenshot({ path: join(shots, 'report-phone-failed.png'), fullPage: true });
      await page.locator('label[for="filter-all"]').click();
      await page.screenshot({ path: join(shots, 'report-phone.png'), fullPage: false });
    } finally {
      await context.close();
    }
  });
});
