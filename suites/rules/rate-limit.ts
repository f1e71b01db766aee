/** The rules of rate-limit.suite.ts that need no target: pure, so test/suites/rate-limit.test.ts can hold them. */

/** One answer of the check's own reference server. */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The refusals among answers (429, the usual status; anything else is recorded as shape). */
export function refused(answers: readonly Pick<Answer, 'status'>[]): number {
  return answers.filter((a) => a.status === 429).length;
}
