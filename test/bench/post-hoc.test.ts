/**
 * The judgements of bench/post-hoc.ts: a fault counts as caught only by what the unfaulted
 * reference did not show in the same configuration (the suite's MUST failures with exit 1,
 * Schemathesis' check code × operation), and the post-hoc section of RESULTS.md is replaced in place.
 */
import { describe, expect, it } from 'vitest';
import {
  POST_HOC_END,
  POST_HOC_START,
  postHocSection,
  schemathesisFindings,
  schemathesisVerdict,
  suiteVerdict,
  withPostHocSection,
} from '../../bench/post-hoc.ts';

describe('bench/post-hoc.ts', () => {
  it('the suite catches a fault with a MUST failure the baseline did not have, and exit 1', () => {
    const baseline = { exitCode: 0, mustFailed: [] };
    expect(suiteVerdict({ exitCode: 1, mustFailed: ['HOOKS-CREATE'] }, baseline)).toEqual({
      caught: true,
      by: ['HOOKS-CREATE'],
    });
    expect(suiteVerdict({ exitCode: 0, mustFailed: [] }, baseline).caught).toBe(false);
    expect(suiteVerdict({ exitCode: 1, mustFailed: ['X'] }, { exitCode: 1, mustFailed: ['X'] }).caught).toBe(false);
    expect(suiteVerdict({ exitCode: null, mustFailed: [], problem: 'no report' }, baseline)).toMatchObject({
      caught: false,
      problem: 'no report',
    });
  });

  it('Schemathesis catches a fault with a finding no baseline run had', () => {
    const findings = schemathesisFindings({
      failures: [
        { code: 'ST204', operations: ['QUERY /me', 'QUERY /agents'] },
        { code: 'ST200', operations: ['POST /hooks'] },
      ],
      errors: [{ title: 'Network Error', operations: ['GET /me'] }],
    });
    expect(findings).toEqual([
      'ST200 POST /hooks',
      'ST204 QUERY /agents',
      'ST204 QUERY /me',
      'error Network Error GET /me',
    ]);
    const baselines = [
      { exitCode: 1, findings: ['ST204 QUERY /me'] },
      { exitCode: 1, findings: ['ST204 QUERY /agents'] },
    ];
    expect(schemathesisVerdict({ exitCode: 1, findings }, baselines)).toEqual({
      caught: true,
      by: ['ST200 POST /hooks', 'error Network Error GET /me'],
    });
    expect(schemathesisVerdict({ exitCode: 1, findings: ['ST204 QUERY /me'] }, baselines).caught).toBe(false);
  });

  it('the post-hoc section is added once, then replaced in place', () => {
    const verdicts = [
      { fault: { id: 'ph-a', class: 'a class' }, suite: { caught: true, by: ['R-1'] } },
      {
        fault: { id: 'ph-b', class: 'b class' },
        suite: { caught: false, by: [] },
        schemathesis: { caught: true, by: ['ST200 GET /me'] },
      },
    ];
    const section = postHocSection(verdicts, ['npm run bench:post-hoc']);
    expect(section).toContain('the suite 1/2 (50.0 %)');
    expect(section).toContain('Schemathesis 1/2 (50.0 %)');
    expect(section).toContain('| `ph-a` | a class | caught (R-1) | — |');
    expect(section).toContain('| `ph-b` | b class | missed | caught (ST200 GET /me) |');
    const once = withPostHocSection('# Results\n\n| goal |\n', section);
    expect(once.startsWith('# Results\n\n| goal |\n\n')).toBe(true);
    const twice = withPostHocSection(`${once}\ntrailing\n`, postHocSection(verdicts.slice(0, 1), []));
    expect(twice.split(POST_HOC_START)).toHaveLength(2);
    expect(twice.split(POST_HOC_END)).toHaveLength(2);
    expect(twice).not.toContain('ph-b');
    expect(twice.endsWith('trailing\n')).toBe(true);
  });
});
