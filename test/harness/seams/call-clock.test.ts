/**
 * The steps by which the suite moves a target's virtual clock while it waits for a call: bounded in
 * count and in total virtual time, taken only where the target offers clock-advanced, and said.
 */
import { describe, expect, it } from 'vitest';
import {
  CALL_CLOCK_BOUNDS,
  createCallClock,
  describeCallSteps,
  nextCallStep,
  recordAtEnd,
} from '../../../harness/seams/call-clock.ts';
import type { ControlClient } from '../../../harness/seams/control-client.ts';

/** Every step the bounds allow, from none taken. */
function allSteps(bounds = CALL_CLOCK_BOUNDS): number[] {
  const steps: number[] = [];
  for (let total = 0; ; ) {
    const ms = nextCallStep(steps.length, total, bounds);
    if (ms === undefined) return steps;
    steps.push(ms);
    total += ms;
  }
}

/** A control client whose call ends once its clock has moved past `endsAfterMs` (a clock that stands still). */
function standingTarget(offered: boolean, endsAfterMs: number) {
  const advances: number[] = [];
  const moved = () => advances.reduce((a, b) => a + b, 0);
  const control = {
    offers: (capability: string) => offered || capability === 'call-record',
    advanceClock: async (ms: number) => {
      advances.push(ms);
    },
    call: async () => ({ status: moved() >= endsAfterMs ? 'ended' : 'queued' }),
  } as unknown as ControlClient;
  return { control, advances };
}

describe('the clock steps of a wait for a call', () => {
  it('double from a second, at most a minute each, ten minutes and 16 steps in all', () => {
    const steps = allSteps();
    expect(steps.slice(0, 7)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000]);
    expect(Math.max(...steps)).toBe(60_000);
    expect(steps.reduce((a, b) => a + b, 0)).toBe(10 * 60_000);
    expect(steps.length).toBeLessThanOrEqual(16);
    expect(allSteps({ ...CALL_CLOCK_BOUNDS, maxSteps: 3 })).toEqual([1_000, 2_000, 4_000]);
  });

  it('are said only when some were taken', () => {
    expect(describeCallSteps(0, 0)).toBeUndefined();
    expect(describeCallSteps(2, 3_000)).toBe(
      "the suite advanced the target's clock 2 times (3 s of virtual time in all, clock-advanced) while it " +
        'waited for the call to progress',
    );
  });

  it('end the wait as soon as the call ended, and are taken only where clock-advanced is offered', async () => {
    const standing = standingTarget(true, 5_000);
    const clock = createCallClock();
    expect((await recordAtEnd(standing.control, 'c', clock, 0))?.status).toBe('ended');
    expect(standing.advances).toEqual([1_000, 2_000, 4_000]);
    expect(clock.describe()).toMatch(/3 times \(7 s/);

    // The wall-clock wait of a target without clock-advanced is the grace alone.
    const without = standingTarget(false, 5_000);
    const none = createCallClock();
    expect((await recordAtEnd(without.control, 'c', none, 50))?.status).toBe('queued');
    expect(without.advances).toEqual([]);
    expect(none.describe()).toBeUndefined();
  });

  it('stop at their bound when the call never ends', async () => {
    const never = standingTarget(true, Number.POSITIVE_INFINITY);
    const clock = createCallClock();
    expect((await recordAtEnd(never.control, 'c', clock, 0))?.status).toBe('queued');
    expect(never.advances).toEqual(allSteps());
    expect(await clock.step(never.control)).toBe(false);
  });
});
