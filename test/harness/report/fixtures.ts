import type { CheckResult } from '../../../harness/report/results.ts';

/** A check result with sensible defaults, for report tests. */
export function checkResult(
  overrides: Partial<CheckResult> & Pick<CheckResult, 'name' | 'status' | 'requirements'>,
): CheckResult {
  return {
    id: `conformance:suites/x.suite.ts:${overrides.name}`,
    project: 'conformance',
    file: 'suites/x.suite.ts',
    durationMs: 3,
    observations: [],
    exchanges: [],
    requests: 1,
    plannedRequests: 1,
    rateLimited: 0,
    ...overrides,
  };
}
