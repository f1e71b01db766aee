/**
 * The HTML report opened in a real headless browser (Debian's chromium, driven by
 * playwright-core): the matrix is there, every requirement has a row, nothing is fetched.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../harness/report/html.ts';
import { buildReport } from '../../harness/report/model.ts';
import { requirements } from '../../requirements/catalogue.ts';
import { checkResult } from './fixtures.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('report.html in a headless browser', () => {
  it('shows the requirement matrix with one row per requirement, the failure and the trend, offline', { timeout: 60_000 }, async () => {
    expect(existsSync(CHROMIUM), `no browser at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`).toBe(true);
    const report = buildReport({
      tool: 't', suiteVersion: '1', target: { kind: 'embedded', baseUrl: 'embedded reference server' }, startedAt: '2026-11-21T10:00:00.000Z',
      durationMs: 10, seed: 1, dryRun: false, load: [], previous: [], requestsSent: 2, unhandledErrors: [], interrupted: false,
      checks: [
        checkResult({ name: 'GET /me answers 200', status: 'passed', requirements: ['ME-200-SHAPE'] }),
        checkResult({ name: 'GET /cdrs rejects 32 days', status: 'failed', requirements: ['CDRS-WINDOW-MAX-31D'], failure: 'expected 400 window_too_wide, got 200' }),
      ],
    });
    const file = join(mkdtempSync(join(tmpdir(), 'occ-html-')), 'report.html');
    writeFileSync(file, renderHtml(report));

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = await browser.newPage();
      const requested: string[] = [];
      page.on('request', (request) => { if (!request.url().startsWith('file://')) requested.push(request.url()); });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`file://${file}`);
      const matrix = page.locator('#requirement-matrix');
      await expect.poll(() => matrix.isVisible()).toBe(true);
      expect(await matrix.locator('tbody tr').count()).toBe(requirements.length);
      expect(await matrix.locator('tr[data-requirement="CDRS-WINDOW-MAX-31D"]').getAttribute('data-status')).toBe('failed');
      expect(await matrix.locator('tr[data-requirement="ME-200-SHAPE"]').getAttribute('data-status')).toBe('passed');
      expect(await page.locator('#failures').innerText()).toContain('expected 400 window_too_wide, got 200');
      expect(await page.locator('#trend svg').count()).toBe(1);
      expect(await page.title()).toContain('Conformance report');
      expect(requested).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
