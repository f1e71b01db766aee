/**
 * Signature freshness where the run moved the target's clock: a `t` is fresh against real time or
 * against the clock the target reports (control-openapi.json, Time), bracketed by the run's readings.
 */
import { describe, expect, it } from 'vitest';
import { signPayload } from '../../../contract/signature.ts';
import {
  signatureClock,
  signatureFreshnessProblem,
  signingClockObservation,
} from '../../../harness/checks/delivery-verdicts.ts';
import { judgeDelivery } from '../../../harness/seams/receiver-client.ts';
import {
  ClockReadings,
  clockBounds,
  createTargetClock,
  type ClockLog,
  freshAgainstBounds,
  type ClockReading,
} from '../../../harness/seams/target-clock.ts';
import type { Delivery } from '../../../harness/webhooks/receiver.ts';

const URL = 'http://127.0.0.1:1/_control';
const HOUR = 3_600_000;
const REAL = 1_700_000_000_000;

const reading = (kind: ClockReading['kind'], sent: number, now: number, answered = sent + 5): ClockReading => ({
  url: URL,
  kind,
  sent,
  answered,
  now,
});

describe('clockBounds: the target clock at an arrival, between readings', () => {
  // Read at REAL (clock = REAL), advanced 10 h at REAL+1000, read again at REAL+5000.
  const readings = [
    reading('clock', REAL, REAL),
    reading('advance', REAL + 1000, REAL + 10 * HOUR + 1000),
    reading('clock', REAL + 5000, REAL + 10 * HOUR + 5000),
  ];

  it('a clock reading answered before is a lower bound; any reading sent after is an upper bound', () => {
    expect(clockBounds(readings, REAL + 500)).toEqual({ low: REAL, high: REAL + 10 * HOUR + 1000 });
    expect(clockBounds(readings, REAL + 6000)).toEqual({ low: REAL + 10 * HOUR + 5000 });
  });

  it("an advance's answer is never a lower bound: the timers it fires sign anywhere within the jump", () => {
    // Arrived after the advance answered: still bounded below by the reading before it.
    expect(clockBounds(readings, REAL + 2000).low).toBe(REAL);
  });

  it('a t within the bounds (and the tolerance) is fresh, outside them not; with a bound unknown, unknown', () => {
    const bounds = clockBounds(readings, REAL + 2000);
    expect(freshAgainstBounds((REAL + 5 * HOUR) / 1000, bounds, 300)).toBe(true);
    expect(freshAgainstBounds((REAL - HOUR) / 1000, bounds, 300)).toBe(false);
    expect(freshAgainstBounds((REAL + 11 * HOUR) / 1000, bounds, 300)).toBe(false);
    expect(freshAgainstBounds(REAL / 1000, { low: REAL }, 300)).toBeUndefined();
  });
});

/** The run's readings as the workers reach them (the run channel's calls, here in process). */
function runLog(): ClockLog {
  const kept = new ClockReadings();
  return {
    record: async (r) => kept.add(r),
    readings: async (url) => kept.of(url),
  };
}

describe("createTargetClock: readings shared through the run's log", () => {
  it('another worker sees the readings; cover() reads the clock once after an arrival', async () => {
    const log = runLog();
    let reads = 0;
    const target = REAL + 10 * HOUR;
    const clock = createTargetClock({
      log,
      url: URL,
      read: async () => {
        reads += 1;
        return target;
      },
    });
    const other = createTargetClock({ log, url: URL, read: async () => target });
    const arrival = Date.now();
    await clock.record({ kind: 'clock', sent: arrival - 10, answered: arrival - 5, now: target - 10 });
    expect(other.fresh(target / 1000, arrival, 300)).toBeUndefined(); // no reading after it yet
    await other.cover(arrival);
    await clock.cover(arrival);
    expect(reads).toBe(0); // other's reading, through the run's log, covers it
    expect(clock.fresh(target / 1000, arrival, 300)).toBe(true);
    expect(clock.fresh(arrival / 1000, arrival, 300)).toBe(false);
    // Another target (a new reference at another URL) has none of these readings.
    expect(
      createTargetClock({ log, url: 'http://other', read: async () => 0 }).fresh(target / 1000, arrival, 300),
    ).toBeUndefined();
  });

  it('without the clock inspection nothing is judged against it', async () => {
    const clock = createTargetClock({ log: undefined, url: URL, read: undefined });
    await clock.cover(Date.now());
    expect(clock.offered).toBe(false);
    expect(clock.fresh(0, Date.now(), 300)).toBeUndefined();
  });
});

describe('freshness verdicts: real time or the target clock', () => {
  const SECRET = 'whsec_fresh_test';
  const body = '{"eventId":"e1"}';
  const arrived = (t: number): Delivery => ({
    seq: 1,
    path: '/hooks/x',
    method: 'POST',
    receivedAt: REAL,
    headers: { 'x-service-signature': signPayload(SECRET, t, body), 'content-type': 'application/json' },
    rawHeaders: [],
    rawBody: body,
    bodyBase64: Buffer.from(body).toString('base64'),
    json: undefined,
    signature: { ok: false, reason: 'not_verified' },
    duplicate: false,
    answeredStatus: 200,
  });
  const virtualT = (REAL + 10 * HOUR) / 1000;
  const targetSaysFresh = (t: number) => Math.abs(t - virtualT) <= 300;

  it('a t hours ahead of real time is fresh when the target clock says so, and stale otherwise', () => {
    expect(signatureFreshnessProblem(arrived(virtualT), SECRET, 300, targetSaysFresh)).toBeUndefined();
    expect(signatureFreshnessProblem(arrived(virtualT), SECRET)).toMatch(/36000 s after it arrived/);
    expect(signatureFreshnessProblem(arrived(virtualT + 3600), SECRET, 300, targetSaysFresh)).toMatch(
      /nor of the clock the target reports/,
    );
    expect(signatureClock(arrived(REAL / 1000), SECRET, 300, targetSaysFresh)).toEqual({ real: true, target: false });
  });

  it("the receiver client's verdict accepts it too, instead of refusing timestamp_outside_tolerance", () => {
    expect(judgeDelivery(arrived(virtualT), SECRET).refusal?.reason).toBe('timestamp_outside_tolerance');
    const judged = judgeDelivery(arrived(virtualT), SECRET, 300, targetSaysFresh);
    expect(judged.refusal).toBeUndefined();
    expect(judged.eventId).toBe('e1');
  });

  it('the observation names the clock the target signed with', () => {
    expect(signingClockObservation([{ real: false, target: true }])).toMatch(/its own \(virtual\) clock/);
    expect(signingClockObservation([{ real: true, target: false }])).toMatch(/^signed with real time: 1/);
    expect(signingClockObservation([{ real: true, target: undefined }])).toMatch(/reports no clock/);
    expect(signingClockObservation([{ real: true, target: true }])).toMatch(/alike/);
  });
});
