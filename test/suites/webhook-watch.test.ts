import { describe, expect, it } from 'vitest';
import type { WatchRole, WatchView } from '../../harness/seams/event-watch.ts';
import type { Delivery } from '../../harness/webhooks/receiver.ts';
import {
  attemptsByEvent,
  deletedSubscriptionDeliveries,
  gapsAfter503,
  retriedAfter,
  trailingFailures,
  unread,
} from '../../suites/rules/webhook-watch.ts';

let seq = 0;
/** A delivery as the receiver records it; only what the rules read matters. */
function delivery(fields: Partial<Delivery> & { payload?: Record<string, unknown> }): Delivery {
  const { payload, ...rest } = fields;
  const rawBody = payload === undefined ? (rest.rawBody ?? '') : JSON.stringify(payload);
  seq += 1;
  return {
    seq,
    path: '/hooks/x',
    method: 'POST',
    receivedAt: 0,
    headers: {},
    rawHeaders: [],
    bodyBase64: Buffer.from(rawBody).toString('base64'),
    json: undefined,
    signature: { ok: true },
    duplicate: false,
    answeredStatus: 200,
    ...rest,
    rawBody,
  };
}

const answered = (...statuses: Delivery['answeredStatus'][]) =>
  statuses.map((answeredStatus, index) => delivery({ answeredStatus, receivedAt: index * 1000 }));

describe('webhook-watch.judge.suite.ts: unread', () => {
  it("leaves out deliveries refused unread for the receiver's own reasons (unknown path, size, no secret)", () => {
    for (const error of ['not_found', 'no_secret_registered', 'payload_too_large']) {
      expect(unread(delivery({ error }))).toBe(true);
    }
  });

  it('judges every other delivery, refused for its signature or not refused at all', () => {
    expect(unread(delivery({}))).toBe(false);
    expect(unread(delivery({ error: 'signature_mismatch' }))).toBe(false);
  });
});

describe('webhook-watch.judge.suite.ts: trailingFailures (auto-disable before the clean-up DELETE)', () => {
  it('counts the failures after the last 2xx answer', () => {
    expect(trailingFailures([])).toBe(0);
    expect(trailingFailures(answered(503, 503, 200))).toBe(0);
    expect(trailingFailures(answered(200, 503, 'no-answer', 401))).toBe(3);
    expect(trailingFailures(answered(503, 204, 410, 500))).toBe(2);
  });

  it('takes any 2xx as a success and nothing else', () => {
    expect(trailingFailures(answered(500, 299))).toBe(0);
    expect(trailingFailures(answered(200, 300))).toBe(1);
    expect(trailingFailures(answered(200, 199))).toBe(1);
  });
});

describe('webhook-watch.judge.suite.ts: attemptsByEvent', () => {
  it('groups call.ended attempts by callId, whatever their eventIds', () => {
    const a1 = delivery({ payload: { callId: 'c1', eventId: 'e1' } });
    const b1 = delivery({ payload: { callId: 'c2', eventId: 'e2' } });
    const a2 = delivery({ payload: { callId: 'c1', eventId: 'e3' } });
    expect(attemptsByEvent([a1, b1, a2], 'call.ended')).toEqual([[a1, a2], [b1]]);
  });

  it('groups other kinds by eventId, and an attempt without one on its own', () => {
    const a1 = delivery({ payload: { callId: 'c1', eventId: 'e1' } });
    const a2 = delivery({ payload: { callId: 'c2', eventId: 'e1' } });
    const lone = delivery({ rawBody: 'not JSON' });
    expect(attemptsByEvent([a1, lone, a2], 'dnc.added')).toEqual([[a1, a2], [lone]]);
  });
});

describe('webhook-watch.judge.suite.ts: deletedSubscriptionDeliveries (delivery after DELETE, direct emit)', () => {
  function view(byRole: Array<[WatchRole, Delivery]>, deletedAt = -1): WatchView {
    const all = byRole.map(([role, d]) => ({ delivery: d, watched: { role } }));
    return {
      watch: { deletedAt },
      all: () => all,
      of: (role: WatchRole) => byRole.filter(([r]) => r === role).map(([, d]) => d),
    } as unknown as WatchView;
  }

  it('is empty when the deleted subscription received nothing', () => {
    expect(deletedSubscriptionDeliveries(view([['kind', delivery({ payload: { eventId: 'e1' } })]]))).toEqual({
      leaked: [],
      emitted: [],
      unreadable: [],
    });
  });

  it('splits what reached it: an event a live subscription also received leaked, anything else was emitted', () => {
    const live = delivery({ payload: { eventId: 'e1' } });
    const failing = delivery({ payload: { eventId: 'e2' } });
    const leaked = delivery({ payload: { eventId: 'e1' } });
    const leakedToo = delivery({ payload: { eventId: 'e2' } });
    const emitted = delivery({ payload: { eventId: 'e9' } });
    const unreadable = delivery({ rawBody: '' });
    const result = deletedSubscriptionDeliveries(
      view([
        ['kind', live],
        ['failing', failing],
        ['deleted', leaked],
        ['deleted', emitted],
        ['deleted', leakedToo],
        ['deleted', unreadable],
      ]),
    );
    expect(result.leaked).toEqual([leaked, leakedToo]);
    expect(result.emitted).toEqual([emitted, unreadable]);
  });

  it('sets apart what the receiver refused unread for its own reason: nobody can say what it was', () => {
    const refused = delivery({ error: 'not_found', answeredStatus: 404 });
    expect(deletedSubscriptionDeliveries(view([['deleted', refused]]))).toEqual({
      leaked: [],
      emitted: [],
      unreadable: [refused],
    });
  });

  it('an event live subscriptions received too that arrived before DELETE answered is neither', () => {
    // The account's activity at the hook's creation (deliver-on-subscribe): it was active then.
    const live = delivery({ payload: { eventId: 'e1' }, receivedAt: 10 });
    const before = delivery({ payload: { eventId: 'e1' }, receivedAt: 10 });
    // Its attempt was in flight at DELETE: the live subscription had it before DELETE answered.
    const inFlight = delivery({ payload: { eventId: 'e1' }, receivedAt: 30 });
    const laterLive = delivery({ payload: { eventId: 'e2' }, receivedAt: 40 });
    const leaked = delivery({ payload: { eventId: 'e2' }, receivedAt: 41 });
    const result = deletedSubscriptionDeliveries(
      view(
        [
          ['kind', live],
          ['deleted', before],
          ['deleted', inFlight],
          ['kind', laterLive],
          ['deleted', leaked],
        ],
        20,
      ),
    );
    expect(result).toEqual({ leaked: [leaked], emitted: [], unreadable: [] });
  });
});

describe('webhook-watch.judge.suite.ts: retriedAfter (WEBHOOK-5XX-RETRY, WEBHOOK-TIMEOUT-RETRY)', () => {
  it('holds when an attempt with that answer was followed by another', () => {
    expect(retriedAfter(answered(503, 503), 503)).toBe(true);
    expect(retriedAfter(answered(503, 503, 503, 'no-answer', 503), 'no-answer')).toBe(true);
  });

  it('does not hold for the last attempt, or for another answer', () => {
    expect(retriedAfter(answered(503), 503)).toBe(false);
    expect(retriedAfter(answered(503, 503, 503, 'no-answer'), 'no-answer')).toBe(false);
    expect(retriedAfter(answered(500, 200), 503)).toBe(false);
    expect(retriedAfter([], 503)).toBe(false);
  });
});

describe('webhook-watch.judge.suite.ts: gapsAfter503 (WEBHOOK-BACKOFF-EXPONENTIAL)', () => {
  const at = (pairs: Array<[Delivery['answeredStatus'], number]>) =>
    pairs.map(([answeredStatus, receivedAt]) => delivery({ answeredStatus, receivedAt }));

  it('measures the intervals up to and including the first attempt not answered 503', () => {
    expect(
      gapsAfter503(
        at([
          [503, 0],
          [503, 1000],
          [503, 3000],
          ['no-answer', 7000],
          [503, 37_000],
          [503, 99_000],
        ]),
      ),
    ).toEqual([1000, 2000, 4000]);
    expect(
      gapsAfter503(
        at([
          [503, 0],
          [503, 500],
          [503, 2000],
        ]),
      ),
    ).toEqual([500, 1500]);
    expect(
      gapsAfter503(
        at([
          ['no-answer', 0],
          [503, 30_000],
        ]),
      ),
    ).toEqual([]);
    expect(gapsAfter503([])).toEqual([]);
  });
});
