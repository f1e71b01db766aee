/**
 * Near-miss family "one-time values" (NM-ONE-TIME-VALUE-REPEATED): a value the contract says is
 * returned once is never returned again, whatever the second request looks like, including the
 * identical request. The values are the contract's (../contract/one-time-values.ts).
 */
import { type OneTimeValue, oneTimeValues } from '../contract/one-time-values.ts';

export { type OneTimeValue, oneTimeValues };

export type SecondReading = 'a new record' | 'refused';

export interface SecondVerdict {
  /** undefined when the second answer keeps the value one-time. */
  readonly problem: string | undefined;
  /** Which reading the target took (recorded; both are allowed). */
  readonly reading: SecondReading | undefined;
}

/**
 * The verdict on the answer to a second, identical request. The spec allows a new record (its
 * own identity and value) or a refusal; never the first value again, nor the first record's
 * identity with a value (that would be the first record given out twice).
 */
export function judgeSecondAnswer(
  value: OneTimeValue,
  first: Record<string, unknown>,
  second: { status: number | undefined; json: unknown; rawBody: string },
): SecondVerdict {
  const secret = first[value.field];
  if (typeof secret === 'string' && secret !== '' && second.rawBody.includes(secret))
    return {
      problem:
        `a second identical ${value.operation} answered ${second.status} carrying the first response's ` +
        `${value.field}: it is returned only once`,
      reading: undefined,
    };
  if (second.status === undefined || second.status < 200 || second.status >= 300)
    return { problem: undefined, reading: 'refused' };
  const body = (second.json ?? {}) as Record<string, unknown>;
  const same = value.identity.filter((name) => first[name] !== undefined && body[name] === first[name]);
  if (same.length > 0)
    return {
      problem:
        `a second identical ${value.operation} answered ${second.status} with the first record's ` +
        `${same.join(', ')} and a ${value.field}: the first record's ${value.field} was given out again`,
      reading: undefined,
    };
  return { problem: undefined, reading: 'a new record' };
}
