/**
 * GET /cdrs window rules as properties against the target: generated from/till/limit
 * combinations (./arbitraries/cdr-query.ts) judged by a pure model of the spec
 * (./models/cdr-window-model.ts).
 *
 * Proof — each check fails against the reference server with these faults on
 * (OCC_REFERENCE_FAULTS=<id> npx vitest run --project properties), verified (3 runs each, 3/3):
 *   window status                   cdrs-window-31d-rejected, cdrs-window-32d-accepted,
 *                                   cdrs-invalid-timestamp-500
 *   rows, count and limit on 200s   cdrs-limit-unbounded, cdrs-limit-ignored,
 *                                   cdrs-rows-outside-window, cdrs-count-mismatch,
 *                                   cdrs-default-window-48h, cdrs-window-31d-rejected
 * Remote targets run only the window-status check (numRuns requests, one per run).
 */
import fc from 'fast-check';
import { describe } from 'vitest';
import type { CdrList } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import { assertProperty } from '../harness/checks/property.ts';
import { cdrCountProblem } from '../harness/checks/verdicts.ts';
import { session } from '../harness/run/session.ts';
import type { RequirementId } from '../requirements/catalogue.ts';
import { acceptedWindowQuery, windowQuery, type GeneratedQuery } from './arbitraries/cdr-query.ts';
import { titles } from './titles.ts';
import { cdrVerdict, maxRows, WINDOW_ERROR_CODES, type CdrVerdict, type RowWindow } from './models/cdr-window-model.ts';

const numRuns = session().target.propertyNumRuns;
const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * "Now" as the target sees it, with the uncertainty around it: the reference runs a virtual
 * clock (other checks move it), read through the control API; a remote target runs on real
 * time, so allow for clock skew.
 */
async function targetNow(t: CheckTools): Promise<TargetNow> {
  if (t.control.offers('clock')) return { now: await t.control.clock(), slackMs: 1_000 };
  return { now: Date.now(), slackMs: 120_000 };
}

interface TargetNow {
  readonly now: number;
  readonly slackMs: number;
}

/**
 * The clock reading taken last in a check: the next request's "before". A reading taken after
 * one request is also taken before the next, and the target's clock never runs back within a
 * check (the checks that move it run alone, gate.ts; a remote run runs one check at a time), so
 * each request costs one reading of the clock (a control round trip), not two.
 */
interface LastReading {
  current: TargetNow;
}

interface Answer {
  readonly status: number;
  readonly code: string | undefined;
  readonly list: CdrList | undefined;
  readonly verdict: CdrVerdict;
}

/**
 * Sends one generated query and judges it with the model, "now" bracketed by the readings before
 * and after the request.
 */
async function ask(t: CheckTools, generated: GeneratedQuery, last: LastReading): Promise<Answer> {
  const before = last.current;
  const exchange = await t.call({
    method: 'GET',
    path: '/cdrs',
    token: t.token('read:cdrs'),
    query: { ...generated.query },
  });
  const after = await targetNow(t);
  last.current = after;
  const verdict = cdrVerdict(generated.query, {
    earliestMs: before.now - before.slackMs,
    latestMs: after.now + after.slackMs,
  });
  const code = (exchange.json as { error?: unknown } | undefined)?.error;
  return {
    status: exchange.status!,
    code: typeof code === 'string' ? code : undefined,
    list: exchange.status === 200 ? (exchange.json as CdrList) : undefined,
    verdict,
  };
}

const describeAnswer = (a: Answer): string => `${a.status}${a.code === undefined ? '' : ` ${a.code}`}`;
const describeQuery = (g: GeneratedQuery): string => `GET /cdrs ${JSON.stringify(g.query)} (${g.shape})`;

/** The status-and-code verdict: undefined when the answer is what the model allows. */
function statusProblem(answer: Answer): string | undefined {
  const { verdict } = answer;
  if (verdict.kind === 'error') {
    return answer.status === 400 && answer.code === verdict.code
      ? undefined
      : `expected 400 ${verdict.code} (${verdict.requirement}), got ${describeAnswer(answer)}`;
  }
  if (verdict.kind === 'ok')
    return answer.status === 200 ? undefined : `expected 200 (${verdict.requirement}), got ${describeAnswer(answer)}`;
  const listed = answer.status === 400 && (WINDOW_ERROR_CODES as readonly string[]).includes(answer.code ?? '');
  if (verdict.refused)
    return listed
      ? undefined
      : `the window alone is refused (${verdict.reason} left open only which code): expected a 400 with one of ` +
          `${WINDOW_ERROR_CODES.join(', ')}, got ${describeAnswer(answer)}`;
  return answer.status === 200 || listed
    ? undefined
    : `${verdict.reason} is not specified, but the answer must be a 200 or a 400 with one of ` +
        `${WINDOW_ERROR_CODES.join(', ')}; got ${describeAnswer(answer)}`;
}

/** What is wrong with the rows of a 200 under the model; empty when nothing. */
function rowsProblems(list: CdrList, verdict: CdrVerdict): string[] {
  const problems: string[] = [];
  // Every reading of count: when the limit in force is not known (out of range), the answer may have been truncated.
  const countProblem = cdrCountProblem(list, verdict.kind === 'ok' ? verdict.limit : list.calls.length);
  if (countProblem !== undefined) problems.push(`${countProblem} (CDRS-COUNT-MATCHES-ROWS)`);
  const most = maxRows(verdict);
  if (list.calls.length > most) {
    const rule =
      verdict.kind === 'ok'
        ? `at most limit = ${most} (CDRS-LIMIT-HONOURED)`
        : `at most ${most} whatever the limit (CDRS-LIMIT-MAX-1000)`;
    problems.push(`${list.calls.length} records returned, ${rule}`);
  }
  const window: RowWindow | undefined = verdict.kind === 'error' ? undefined : verdict.window;
  if (window !== undefined) {
    const outside = list.calls.filter((row) => {
      const at = Date.parse(row.startTime ?? '');
      return !(Number.isFinite(at) && at >= window.fromMs && at <= window.tillMs);
    });
    if (outside.length > 0) {
      const examples = outside
        .slice(0, 3)
        .map((row) => row.startTime)
        .join(', ');
      problems.push(
        `${outside.length} of ${list.calls.length} records start outside ` +
          `[${iso(window.fromMs)}, ${iso(window.tillMs)}] (CDRS-ROWS-IN-WINDOW), e.g. ${examples}`,
      );
    }
  }
  return problems;
}

/** Distinct observations per requirement, a few of each, recorded once after the property. */
function observations(): { add(requirement: RequirementId, text: string): void; flush(t: CheckTools): void } {
  const seen = new Map<RequirementId, Set<string>>();
  return {
    add(requirement, text) {
      const texts = seen.get(requirement) ?? new Set<string>();
      if (texts.size < 4) texts.add(text);
      seen.set(requirement, texts);
    },
    flush(t) {
      for (const [requirement, texts] of seen) t.observe(requirement, [...texts].join('; '));
    },
  };
}

describe('GET /cdrs window properties', () => {
  const statusTitle = titles.cdrWindowStatus;
  check(
    statusTitle,
    {
      verifies: [
        'CDRS-INVALID-TIMESTAMP',
        'CDRS-TILL-AFTER-FROM',
        'CDRS-WINDOW-MAX-31D',
        'CDRS-WINDOW-EXACTLY-31D',
        'CDRS-TIMESTAMP-OFFSETS',
        'CDRS-DEFAULT-WINDOW',
        'CDRS-DATE-ONLY-TIMESTAMP',
        'CDRS-WINDOW-SUBSECOND-PRECISION',
      ],
      needs: { tokens: ['read:cdrs'] },
      requests: numRuns,
    },
    async (t) => {
      const last: LastReading = { current: await targetNow(t) };
      const { now } = last.current;
      const seen = observations();
      try {
        await assertProperty(
          t,
          { title: statusTitle, requirement: 'CDRS-INVALID-TIMESTAMP' },
          fc.asyncProperty(windowQuery(now), async (generated) => {
            const answer = await ask(t, generated, last);
            const problem = statusProblem(answer);
            if (problem !== undefined) t.fail(`${describeQuery(generated)}: ${problem}`);
            if (answer.verdict.kind === 'unspecified' && answer.verdict.requirement !== 'CDRS-LIMIT-OUT-OF-RANGE') {
              seen.add(answer.verdict.requirement, `${JSON.stringify(generated.query)} → ${describeAnswer(answer)}`);
            }
          }),
        );
      } finally {
        seen.flush(t);
      }
    },
  );
});

// Against a remote target the properties' budget (~20 requests) goes to the window-status
// property above and the hook state machine; the cdrs suite checks rows, count and limit there.
describe.skipIf(session().target.kind === 'remote')(
  'GET /cdrs rows properties (embedded reference only: remote request budget)',
  () => {
    const rowsTitle = titles.cdrRows;
    check(
      rowsTitle,
      {
        verifies: [
          'CDRS-ROWS-IN-WINDOW',
          'CDRS-COUNT-MATCHES-ROWS',
          'CDRS-LIMIT-HONOURED',
          'CDRS-LIMIT-MAX-1000',
          'CDRS-DEFAULT-WINDOW',
          'CDRS-LIMIT-OUT-OF-RANGE',
        ],
        needs: { tokens: ['read:cdrs'] },
        requests: session().target.kind === 'remote' ? 0 : numRuns, // skipped there; the budget counts planned requests
      },
      async (t) => {
        const last: LastReading = { current: await targetNow(t) };
        const { now } = last.current;
        const seen = observations();
        try {
          await assertProperty(
            t,
            { title: rowsTitle, requirement: 'CDRS-ROWS-IN-WINDOW' },
            fc.asyncProperty(acceptedWindowQuery(now), async (generated) => {
              const answer = await ask(t, generated, last);
              const problem = statusProblem(answer);
              if (problem !== undefined) t.fail(`${describeQuery(generated)}: ${problem}`);
              if (answer.verdict.kind === 'unspecified')
                seen.add(
                  answer.verdict.requirement,
                  `${JSON.stringify(generated.query.limit)} → ` +
                    `${describeAnswer(answer)}` +
                    `${answer.list === undefined ? '' : ` with ${answer.list.calls.length} records`}`,
                );
              if (answer.list !== undefined) {
                const problems = rowsProblems(answer.list, answer.verdict);
                if (problems.length > 0) t.fail(`${describeQuery(generated)} answered 200: ${problems.join('; ')}`);
              }
            }),
          );
        } finally {
          seen.flush(t);
        }
      },
    );
  },
);
