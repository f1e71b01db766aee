/**
 * The judgements of bench/post-hoc.ts: a fault counts as caught only by what the unfaulted
 * reference did not show in the same configuration (the suite's MUST failures with exit 1,
 * Schemathesis' check code × operation), and the post-hoc section of RESULTS.md is replaced in place.
 */
import { describe, expect, it } from 'vitest';
import {
  benchCommand,
  POST_HOC_END,
  POST_HOC_START,
  postHocSection,
  postHocSetNamed,
  resolvedCommand,
  postHocSets,
  RFC_END,
  RFC_START,
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

  it("the rfc set has its own section, with a column of standards, beside the first set's, never over it", () => {
    const rfc = postHocSets.rfc;
    const verdicts = [
      {
        fault: { id: 'rfc-a', class: 'a class', standard: 'RFC 9110 §9.1' },
        suite: { caught: true, by: ['R-1'] },
        schemathesis: { caught: false, by: [] },
      },
    ];
    const section = postHocSection(verdicts, ['npm run bench:post-hoc -- --set rfc'], rfc);
    expect(section.startsWith(RFC_START)).toBe(true);
    expect(section.endsWith(RFC_END)).toBe(true);
    expect(section).toContain('| fault | standard | class | the suite, one run | Schemathesis, one run |');
    expect(section).toContain('| `rfc-a` | RFC 9110 §9.1 | a class | caught (R-1) | missed |');
    const first = postHocSection([{ fault: { id: 'ph-a', class: 'c' }, suite: { caught: false, by: [] } }], []);
    const both = withPostHocSection(withPostHocSection('# Results\n', first), section, rfc);
    expect(both.indexOf(POST_HOC_START)).toBeLessThan(both.indexOf(RFC_START));
    const again = withPostHocSection(both, postHocSection([], [], rfc), rfc);
    expect(again).toContain('ph-a');
    expect(again).not.toContain('rfc-a');
    expect(again.split(RFC_START)).toHaveLength(2);
    const firstAgain = withPostHocSection(again, postHocSection([], []));
    expect(firstAgain).not.toContain('ph-a');
    expect(firstAgain.split(RFC_START)).toHaveLength(2);
  });

  it('--set names a list, and the row of each set has its own command', () => {
    expect(postHocSetNamed('post-hoc').faults.length).toBeGreaterThanOrEqual(15);
    expect(postHocSetNamed('rfc').faults.every((f) => f.id.startsWith('rfc-'))).toBe(true);
    expect(postHocSetNamed('rfc2').faults.every((f) => f.id.startsWith('rfc2-'))).toBe(true);
    expect(postHocSetNamed('rfc2').start).not.toBe(postHocSetNamed('rfc').start);
    expect(() => postHocSetNamed('all')).toThrow(/post-hoc, rfc or rfc2/);
    expect(benchCommand('post-hoc', 'schemathesis')).toBe('npm run bench:post-hoc');
    expect(benchCommand('rfc', '.venv-st/bin/schemathesis')).toBe(
      'npm run bench:post-hoc -- --set rfc --schemathesis <path>',
    );
    expect(benchCommand('rfc', undefined)).toBe('npm run bench:post-hoc -- --set rfc');
  });

  it('a Schemathesis given as a relative path is made absolute, a bare name is left to PATH', () => {
    expect(resolvedCommand('.venv-st/bin/schemathesis', '/work/x')).toBe('/work/x/.venv-st/bin/schemathesis');
    expect(resolvedCommand('/opt/st/bin/schemathesis', '/work/x')).toBe('/opt/st/bin/schemathesis');
    expect(resolvedCommand('schemathesis', '/work/x')).toBe('schemathesis');
  });
});
