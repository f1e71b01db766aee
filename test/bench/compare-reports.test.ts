import { describe, expect, it } from 'vitest';
import { verdictDifferences, type Verdicts } from '../../bench/compare-reports.ts';

const base: Verdicts = {
  requirements: [
    { id: 'A', status: 'passed' },
    { id: 'B', status: 'not verifiable' },
  ],
  checks: [
    { id: 'x', status: 'passed' },
    { id: 'y', status: 'failed', failedRequirements: ['A'] },
  ],
};

describe('verdictDifferences', () => {
  it('finds nothing between a report and itself', () => {
    expect(verdictDifferences(base, structuredClone(base))).toEqual([]);
  });

  it('names each requirement and check whose verdict differs, or that one side lacks', () => {
    const after: Verdicts = {
      requirements: [{ id: 'A', status: 'failed' }],
      checks: [
        { id: 'x', status: 'passed' },
        { id: 'y', status: 'failed', failedRequirements: ['B'] },
        { id: 'z', status: 'skipped' },
      ],
    };
    expect(verdictDifferences(base, after)).toEqual([
      'requirement A: passed -> failed',
      'requirement B: not verifiable -> (absent)',
      'check y: failed (failed A) -> failed (failed B)',
      'check z: (absent) -> skipped',
    ]);
  });
});
