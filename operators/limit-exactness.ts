/**
 * Near-miss family "limit exactness under every count reading" (NM-LIMIT-EXACT): "CDR rows per
 * request: default 100, minimum 1, maximum 1000". A `limit=N` over a window holding more than N
 * records returns exactly N records, whatever `count` means: the spec leaves open whether count is
 * the rows returned or the window's total, so how many the window holds is learnt without count
 * (the rows of its two halves, each asked with the maximum), and both readings of count stay accepted.
 */
import { limits } from '../contract/openapi.ts';

/** The limits probed: every bound of the parameter and a value between (n of the quantity table). */
export function limitsProbed(): readonly number[] {
  return [limits.cdrLimitMin, limits.cdrLimitDefault, limits.cdrLimitMax];
}

export interface LimitAnswer {
  readonly rows: number;
  readonly count: number;
}

/**
 * The verdict on `limit=N` over a window known to hold at least `heldAtLeast` records (counted
 * without `count`). undefined when it holds; the count reading is judged by CDRS-COUNT-MATCHES-ROWS.
 */
export function judgeLimit(limit: number, heldAtLeast: number, answer: LimitAnswer): string | undefined {
  if (answer.rows > limit) return `limit=${limit} returned ${answer.rows} records, more than ${limit}`;
  const expected = Math.min(limit, heldAtLeast);
  if (answer.rows >= expected) return undefined;
  return (
    `limit=${limit} over a window holding at least ${heldAtLeast} records returned ${answer.rows} ` +
    `(count ${answer.count}): it must return exactly ${expected}, whether count is the rows or the total`
  );
}
