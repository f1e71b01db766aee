import { describe, expect, it } from 'vitest';
import { openapi } from '../../contract/openapi.ts';
import {
  forwardingHeaders,
  freshAddress,
  judgeForwarded,
  judgeUnauthenticatedSpend,
  unauthenticatedReading,
  unauthenticatedRequests,
} from '../../operators/client-identity.ts';
import { retriesChangedId, sharedEventIds } from '../../operators/event-identity.ts';
import { bodilessAnswers, framingProblems, parseRaw } from '../../operators/framing.ts';
import { judgeLimit } from '../../operators/limit-exactness.ts';
import {
  judgeAtHalf,
  readingAtEnd,
  statedDurations,
  statedSeconds,
  timeUnitProbes,
} from '../../operators/time-units.ts';
import {
  allQuantityProbes,
  failureKinds,
  judgeConsecutive,
  longestFailureRun,
  quantityProbes,
  quantityPlaces,
} from '../../operators/quantities.ts';

describe('quantities: probes from the word', () => {
  it('a bound gets n − 1, n and n + 1, within it or not by its word', () => {
    const max = quantityPlaces.find((p) => p.word === 'maximum')!;
    expect(quantityProbes(max).map((p) => (p.kind === 'count' ? [p.value, p.within] : p.kind))).toEqual([
      [999, true],
      [1000, true],
      [1001, false],
    ]);
    const min = quantityPlaces.find((p) => p.word === 'minimum')!;
    expect(quantityProbes(min).map((p) => (p.kind === 'count' ? p.within : p.kind))).toEqual([false, true, true]);
  });

  it('"consecutive" gets n − 1, n and a reset in between; "immediately" the very next request', () => {
    const probes = allQuantityProbes();
    const reset = probes.find((p) => p.kind === 'reset');
    expect(reset?.kind === 'reset' && reset.sequence.join(' ')).toBe(`${'fail '.repeat(9)}succeed${' fail'.repeat(9)}`);
    expect(longestFailureRun(reset?.kind === 'reset' ? reset.sequence.map((s) => s === 'fail') : [])).toBe(9);
    expect(probes.filter((p) => p.kind === 'next-request')).toHaveLength(1);
  });

  it('"consecutive failures" is probed once per kind of failure the delivery rules name', () => {
    const kinds = failureKinds();
    expect(kinds.map((k) => [k.answer, k.retried, k.alsoNamed])).toEqual([
      ['4xx', false, []],
      ['5xx', true, ['timeout']],
    ]);
    const consecutive = quantityPlaces.find((p) => p.word === 'consecutive')!;
    const probes = quantityProbes(consecutive);
    for (const kind of kinds)
      expect(
        probes.filter((p) => p.kind !== 'next-request' && p.failure?.answer === kind.answer).map((p) => p.kind),
      ).toEqual(['count', 'count', 'reset']);
    // A rule added to the delivery rules is a kind of its own, with no new code.
    const more = failureKinds({ ...openapi['x-webhook-delivery'], onRedirect: '3xx: permanent failure, no retry' });
    expect(quantityProbes(consecutive, more)).toHaveLength(9);
    expect(more[2]).toMatchObject({ answer: '3xx', retried: false, status: 300 });
  });

  it('judges "consecutive" per kind: a success resets, the nth in a row disables', () => {
    const consecutive = quantityPlaces.find((p) => p.word === 'consecutive')!;
    const [fourxx] = failureKinds();
    const seen = (afterReset: [string, number], afterN: [string, number]) => ({
      afterReset: { status: afterReset[0], inRow: afterReset[1] },
      afterN: { status: afterN[0], inRow: afterN[1] },
    });
    expect(judgeConsecutive(consecutive, fourxx!, seen(['active', 9], ['disabled', 10]))).toBeUndefined();
    expect(judgeConsecutive(consecutive, fourxx!, seen(['active', 9], ['active', 10]))).toMatch(
      /4xx.*must be disabled/,
    );
    expect(judgeConsecutive(consecutive, fourxx!, seen(['disabled', 9], ['disabled', 9]))).toMatch(/starts the count/);
    // Failures of other events that made n in a row before the reset was seen: disabled is right.
    expect(judgeConsecutive(consecutive, fourxx!, seen(['disabled', 10], ['disabled', 10]))).toBeUndefined();
  });

  it('a place added to the table gets its probes with no new code', () => {
    const probes = allQuantityProbes([...quantityPlaces, { place: 'x', sentence: 'x', word: 'at most', n: 5 }]);
    expect(probes.length).toBe(allQuantityProbes().length + 3);
  });
});

describe('event identity', () => {
  it('names ids shared by distinct events, and retries that change the id', () => {
    expect(
      sharedEventIds([
        { kind: 'a', eventId: '1' },
        { kind: 'b', eventId: '2' },
      ]),
    ).toEqual([]);
    expect(
      sharedEventIds([
        { kind: 'a', eventId: '1' },
        { kind: 'b', eventId: '1' },
      ])[0],
    ).toMatch(/a, b/);
    expect(retriesChangedId('1', ['1', '1'])).toBeUndefined();
    expect(retriesChangedId('1', ['1', '2'])).toMatch(/2/);
  });
});

describe('framing', () => {
  it('finds the bodiless answers of openapi.json, and of a copy with one more', () => {
    expect(bodilessAnswers()).toEqual([{ method: 'DELETE', path: '/hooks/{id}', status: '204' }]);
    const copy = structuredClone(openapi) as unknown as { paths: Record<string, Record<string, unknown>> };
    copy.paths['/things'] = { put: { responses: { '202': { description: 'accepted' } } } };
    expect(bodilessAnswers(copy as never)).toHaveLength(2);
  });

  it('reads body bytes after a 204 and lengths that disagree', () => {
    const raw = (text: string) => parseRaw(Buffer.from(text, 'latin1'))!;
    expect(framingProblems(raw('HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n'))).toEqual([]);
    expect(framingProblems(raw('HTTP/1.1 204 No Content\r\n\r\n{}'))[0]).toMatch(/2 body bytes/);
    expect(framingProblems(raw('HTTP/1.1 204 No Content\r\ncontent-length: 2\r\n\r\n'))).toHaveLength(1);
    expect(framingProblems(raw('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}'))).toEqual([]);
    expect(framingProblems(raw('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n{}'))[0]).toMatch(/Content-Length: 5/);
    expect(parseRaw(Buffer.from('garbage'))).toBeUndefined();
  });
});

describe('client identity', () => {
  it('every forwarding header names a fresh address; only a served probe from a spent address fails', () => {
    expect(forwardingHeaders.map((h) => h.header)).toContain('forwarded');
    expect(forwardingHeaders.find((h) => h.header === 'forwarded')!.value(freshAddress(0))).toBe('for=203.0.113.10');
    expect(judgeForwarded('x-forwarded-for', 429, true)).toBeUndefined();
    expect(judgeForwarded('x-forwarded-for', 200, false)).toBeUndefined();
    expect(judgeForwarded('x-forwarded-for', 200, true)).toMatch(/fresh budget/);
  });
});

describe('unauthenticated requests and the budget', () => {
  it('applies to a request without credentials and one with a token never issued', () => {
    expect(unauthenticatedRequests.map((r) => r.headers.authorization?.split(' ')[0] ?? 'none')).toEqual([
      'none',
      'Bearer',
    ]);
  });

  it('fails only when the probe is served while the control is refused, rounds in a row', () => {
    const what = 'no Authorization header';
    const round = (control: number, probe: number) => ({ control, probe });
    const kind = (rounds: { control: number; probe: number }[]) => judgeUnauthenticatedSpend(what, 110, rounds, 3).kind;
    expect(kind([round(200, 200), round(429, 429)])).toBe('counted');
    expect(kind([round(429, 200), round(429, 200), round(429, 429)])).toBe('counted');
    expect(kind([round(200, 200), round(200, 200)])).toBe('no-limit');
    expect(kind([round(429, 200), round(429, 200), round(200, 200), round(429, 200)])).toBe('unresolved');
    const verdict = judgeUnauthenticatedSpend(what, 110, [round(429, 200), round(429, 201), round(429, 200)], 3);
    expect(verdict).toMatchObject({ kind: 'not-counted', problem: expect.stringMatching(/Applies to: all/) });
    expect(unauthenticatedReading([401, 429, 429])).toMatch(/rate before 401: 2 of 3/);
    expect(unauthenticatedReading([401, 401])).toMatch(/^401 before the refusal for rate: 2 answered 401/);
  });
});

describe('limit exactness', () => {
  it('exactly N over a window holding more, whatever count says', () => {
    expect(judgeLimit(1000, 1500, { rows: 1000, count: 1000 })).toBeUndefined();
    expect(judgeLimit(1000, 1500, { rows: 1000, count: 1500 })).toBeUndefined();
    expect(judgeLimit(1000, 1500, { rows: 999, count: 1500 })).toMatch(/exactly 1000/);
    expect(judgeLimit(1000, 600, { rows: 600, count: 600 })).toBeUndefined();
    expect(judgeLimit(7, 600, { rows: 8, count: 600 })).toMatch(/more than 7/);
  });
});

describe('time units', () => {
  const expiresIn = statedDurations.find((d) => d.name === 'expires_in')!;
  const retryAfter = statedDurations.find((d) => d.name === 'retry-after')!;

  it('probes a binding duration at half of it and at its end; one the spec promises nothing of, never', () => {
    expect(timeUnitProbes(expiresIn, 3600).map((p) => [p.atMs, p.expect])).toEqual([
      [1_800_000, 'honoured'],
      [3_600_000, 'over (recorded)'],
    ]);
    expect(timeUnitProbes(retryAfter, 60)).toEqual([]);
    expect(statedDurations.filter((d) => d.binding).map((d) => d.name)).toEqual(['expires_in']);
  });

  it('reads whole seconds from the body or a header', () => {
    expect(statedSeconds(expiresIn, { headers: {}, json: { expires_in: 3600 } })).toBe(3600);
    expect(statedSeconds(expiresIn, { headers: {}, json: { expires_in: '3600' } })).toBe(3600);
    expect(statedSeconds(expiresIn, { headers: {}, json: { expires_in: 0 } })).toBeUndefined();
    expect(statedSeconds(expiresIn, { headers: {}, json: {} })).toBeUndefined();
    expect(statedSeconds(retryAfter, { headers: { 'retry-after': '60' }, json: undefined })).toBe(60);
  });

  it('fails a refusal at half; records either answer at the end', () => {
    expect(judgeAtHalf(expiresIn, 3600, 200)).toBeUndefined();
    expect(judgeAtHalf(expiresIn, 3600, 401)).toMatch(/1800 s later.*refused \(401\)/);
    expect(readingAtEnd(expiresIn, 3600, 401)).toMatch(/runs on that clock/);
    expect(readingAtEnd(expiresIn, 3600, 200)).toMatch(/real time/);
  });
});
