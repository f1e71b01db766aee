/** The rules of cdrs.suite.ts that need no target: pure, so test/suites/cdrs.test.ts can hold them. */
import type { CdrList } from '../../contract/openapi.ts';
import { isInsideWindow } from '../../harness/checks/verdicts.ts';

/** The records of `list` whose startTime is not inside [fromMs, tillMs] (± slack). */
export function rowsOutside(list: CdrList, fromMs: number, tillMs: number, slackMs = 0): string[] {
  return list.calls
    .filter((row) => !isInsideWindow(Date.parse(row.startTime ?? ''), fromMs, tillMs, slackMs))
    .map((row) => `${row.id ?? '?'} at ${row.startTime ?? '(no startTime)'}`);
}
