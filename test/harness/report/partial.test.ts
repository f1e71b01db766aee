/**
 * A rotated-out probe is never a pass: a requirement whose probes were only partly sent passes
 * "passed (k of n probes this run)" in every format, and the trend says when every probe of it
 * was last sent and passed (harness/report/partial.ts, the model and the renderers).
 */
import { describe, expect, it } from 'vitest';
import { buildReport, type RunReport } from '../../../harness/report/model.ts';
import { lastFullPass, partialText, probesSentFor } from '../../../harness/report/partial.ts';
import { renderMarkdown } from '../../../harness/report/markdown.ts';
import { renderJunit } from '../../../harness/report/junit.ts';
import { renderHtml } from '../../../harness/report/html.ts';
import { partialPassLines } from '../../../cli/budget-lines.ts';
import { checkResult } from './fixtures.ts';

const rotated = checkResult({
  name: 'POST /hooks answers 400 invalid_input to a target_url that is not an https URI',
  status: 'passed',
  requirements: ['HOOKS-TARGET-HTTPS', 'FORMAT-ERROR-BODY'],
  probes: { requirement: 'HOOKS-TARGET-HTTPS', sent: 2, of: 7, left: ['a scheme-relative target_url'] },
});
const outOfTurn = checkResult({
  name: 'GET /me answers 401 unauthorized to a revoked token',
  status: 'skipped',
  requirements: ['AUTH-REVOKED-TOKEN'],
  skipReason: 'not verifiable: request budget: this run (seed 3) sends slice 2 of 5 of …',
});
const inTurn = checkResult({
  name: 'GET /cdrs … a revoked token',
  status: 'passed',
  requirements: ['AUTH-REVOKED-TOKEN'],
});

describe('probesSentFor', () => {
  it("counts a check's rotated probes of the requirement, a check out of turn as one not sent", () => {
    expect(probesSentFor('HOOKS-TARGET-HTTPS', [rotated])).toEqual({ sent: 2, of: 7 });
    expect(probesSentFor('AUTH-REVOKED-TOKEN', [outOfTurn, inTurn])).toEqual({ sent: 1, of: 2 });
  });

  it('is undefined when every probe was sent, or for a requirement whose probes did not rotate', () => {
    expect(probesSentFor('FORMAT-ERROR-BODY', [rotated])).toBeUndefined();
    expect(probesSentFor('AUTH-REVOKED-TOKEN', [inTurn])).toBeUndefined();
    // Skipped for want of a fixture: not a probe the budget left out.
    const missing = { ...outOfTurn, skipReason: 'not verifiable: needs TOKEN_REVOKED' };
    expect(probesSentFor('AUTH-REVOKED-TOKEN', [missing, inTurn])).toBeUndefined();
  });

  it('words the status', () => {
    expect(partialText('passed', { sent: 3, of: 6 })).toBe('passed (3 of 6 probes this run)');
    expect(partialText('passed', undefined)).toBe('passed');
  });
});

describe('lastFullPass', () => {
  const run = (startedAt: string, status: string, probes?: { sent: number; of: number }) => ({
    startedAt,
    requirements: [{ id: 'R', status, probes }],
  });
  it('is the latest run that sent every probe and passed, undefined when none did', () => {
    const runs = [run('d1', 'passed'), run('d2', 'failed'), run('d3', 'passed', { sent: 1, of: 2 })];
    expect(lastFullPass('R', runs)).toBe('d1');
    expect(lastFullPass('R', runs.slice(1))).toBeUndefined();
    expect(lastFullPass('R', [...runs, run('d4', 'passed')])).toBe('d4');
  });
});

describe('a partial pass in every format', () => {
  const input = {
    tool: 'outbound-calling-conformance',
    suiteVersion: '0.0.0',
    target: { kind: 'remote', baseUrl: 'https://api.example.com/v1' },
    durationMs: 10,
    seed: 3,
    dryRun: false,
    load: [],
    requestsSent: 3,
    unhandledErrors: [],
    interrupted: false,
  } as const;
  const earlier = buildReport({
    ...input,
    startedAt: '2026-03-01T00:00:00.000Z',
    checks: [{ ...rotated, probes: undefined }],
    previous: [],
  });
  const report: RunReport = buildReport({
    ...input,
    startedAt: '2026-03-02T00:00:00.000Z',
    checks: [rotated, outOfTurn, inTurn],
    previous: [earlier],
  });
  const verdict = report.requirements.find((r) => r.id === 'HOOKS-TARGET-HTTPS')!;

  it('report.json: passed, with the probes sent and when every probe last passed', () => {
    expect(earlier.requirements.find((r) => r.id === 'HOOKS-TARGET-HTTPS')?.probes).toBeUndefined();
    expect(verdict).toMatchObject({ status: 'passed', probes: { sent: 2, of: 7 }, lastFullPass: earlier.startedAt });
    expect(report.requirements.find((r) => r.id === 'AUTH-REVOKED-TOKEN')).toMatchObject({
      probes: { sent: 1, of: 2 },
      lastFullPass: null,
    });
    expect(report.history.at(-1)?.partial).toBe(2);
  });

  it('report.md, report.html, junit.xml and the console say it', () => {
    expect(renderMarkdown(report)).toMatch(/\| HOOKS-TARGET-HTTPS \| MUST \| ✅ passed \(2 of 7 probes this run\) \|/);
    expect(renderMarkdown(report)).toMatch(/\| HOOKS-TARGET-HTTPS \| 2 of 7 \| 2026-03-01T00:00:00.000Z \|/);
    expect(renderHtml(report)).toContain('passed (2 of 7 probes this run)');
    expect(renderHtml(report)).toContain('every probe last sent and passed: 2026-03-01T00:00:00.000Z');
    expect(renderJunit(report)).toContain('value="passed (2 of 7 probes this run)"');
    expect(partialPassLines(report)).toContain('  HOOKS-TARGET-HTTPS: passed (2 of 7 probes this run)');
  });
});
