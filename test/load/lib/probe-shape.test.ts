/**
 * The k6 probes' request counts that `--dry-run --with-load` prints, from the same shape the
 * probes run (load/lib/probe-shape.ts). The loop bound is checked against a literal replay of the
 * probe's own "over" loop for many limits and windows.
 */
import { describe, expect, it } from 'vitest';
import {
  OVER_WINDOWS,
  probeRequests,
  rateLimitShape,
  REFERENCE_WINDOW_MS,
  webhookRetryPlans,
} from '../../../load/lib/probe-shape.ts';
import { PROBE_REQUIREMENTS, requirements } from '../../../requirements/catalogue.ts';

describe("the k6 probes' request bounds", () => {
  it("rate-limit at the spec's 100 per minute: 90 under, 210 in the burst at most, 262 over at most", () => {
    expect(rateLimitShape(100, 60_000)).toMatchObject({
      setupMaxRequests: 210,
      underPerWindow: 90,
      overPerWindow: 150,
      overRequests: 262,
      maxRequests: 562,
    });
    // The count depends on the limit, not on the window's length (a shortened window sends as many).
    expect(rateLimitShape(100, 2_500).maxRequests).toBe(562);
  });

  it('the "over" phase count is exactly what the probe\'s loop sends, for any limit and window', () => {
    for (const limit of [1, 7, 50, 100, 101, 333, 1000]) {
      for (const windowMs of [1_000, 2_500, 4_000, 60_000, 61_234]) {
        const shape = rateLimitShape(limit, windowMs);
        let sent = 0;
        for (let i = 0; (i + 1) * shape.slotMs <= shape.overMs; i++) sent++;
        expect(shape.overRequests, `${limit} per ${windowMs} ms`).toBe(sent);
        expect(shape.overRequests).toBeGreaterThanOrEqual(Math.floor(OVER_WINDOWS * shape.overPerWindow) - 1);
      }
    }
  });

  it('webhook-retry: a subscription created and deleted per plan, and the call that causes a watched event', () => {
    expect(webhookRetryPlans('watch').map((p) => p.name)).toEqual(['ack', 'client4xx', 'server5xx', 'timeout']);
    expect(webhookRetryPlans('control').map((p) => p.name)).toContain('recover');
    const remote = probeRequests({ remote: true, control: false, limit: 100, windowMs: 60_000 });
    expect(remote.map((p) => [p.probe, p.maxRequests])).toEqual([
      ['webhook-retry', 9],
      ['rate-limit', 562],
    ]);
    expect(remote[1]!.detail).toContain('limit 100 per 60 s');
    // With CONTROL_URL the event comes from event-emitted and every plan runs in virtual time.
    const control = probeRequests({ remote: true, control: true, limit: 100, windowMs: 60_000 });
    expect(control[0]).toMatchObject({ maxRequests: 10, detail: expect.stringContaining('event-emitted') });
    const embedded = probeRequests({ remote: false, control: false, limit: 100, windowMs: 60_000 });
    expect(embedded.map((p) => [p.probe, p.maxRequests])).toEqual([
      ['webhook-retry', 10],
      ['rate-limit', 562],
    ]);
    expect(embedded[1]!.detail).toContain(`per ${REFERENCE_WINDOW_MS / 1000} s`);
    // A raised limit is counted as configured.
    expect(probeRequests({ remote: true, control: false, limit: 200, windowMs: 60_000 })[1]!.maxRequests).toBe(
      rateLimitShape(200, 60_000).maxRequests,
    );
  });
});

describe('what each probe covers', () => {
  it("the probes together cover exactly the catalogue's requirements checked by load, each once", () => {
    const covered = Object.values(PROBE_REQUIREMENTS).flat();
    expect(new Set(covered).size).toBe(covered.length);
    const byLoad = requirements.filter((r) => (r.checks as readonly string[]).includes('load')).map((r) => r.id);
    expect([...covered].sort()).toEqual([...byLoad].sort());
  });
});
