/**
 * Moves a target's virtual clock while the suite waits for a call it originated to progress.
 * control-openapi.json (Time) lets a virtual clock stand still between advances and lets call
 * progress run on it (each an **either**): on such a target a call POST /calls queued ends (its
 * call.ended, its CDR) only when somebody advances the clock, and every timer due at or before the
 * new now MUST fire. Where the target offers `clock-advanced`, a wait for a call first gives it
 * CALL_GRACE_MS of real time, then advances the clock in steps that double from one second, each at
 * most a minute, within a bound in count and in total virtual time per call. On a target whose calls
 * run on real time the steps change nothing and the wait is the wall-clock wait it always was.
 *
 * Each step goes through the control client, which reads `clock` first and records both readings
 * (signature freshness is judged against them) and the wall-clock time of the jump (retry intervals
 * across it are not judged), and which takes the gate's `alone` claim in a parallel run.
 */
import type { ControlClient } from './control-client.ts';

export interface CallClockBounds {
  readonly firstStepMs: number;
  readonly maxStepMs: number;
  readonly maxSteps: number;
  readonly maxTotalMs: number;
}

/** Ten minutes of virtual time at most, in at most 16 steps: 1, 2, 4 … 32 s, then a minute each. */
export const CALL_CLOCK_BOUNDS: CallClockBounds = {
  firstStepMs: 1_000,
  maxStepMs: 60_000,
  maxSteps: 16,
  maxTotalMs: 10 * 60_000,
};

/** Real time a call is given to progress by itself before the clock is moved for it. */
export const CALL_GRACE_MS = 1_000;

/** The next step (ms) after `steps` steps of `totalMs` in all; undefined when the bounds are spent. Pure. */
export function nextCallStep(steps: number, totalMs: number, bounds: CallClockBounds = CALL_CLOCK_BOUNDS) {
  if (steps >= bounds.maxSteps || totalMs >= bounds.maxTotalMs) return undefined;
  const doubled = bounds.firstStepMs * 2 ** steps;
  return Math.min(doubled, bounds.maxStepMs, bounds.maxTotalMs - totalMs);
}

/** What the steps taken for one call were, for an observation; undefined when none was taken. Pure. */
export function describeCallSteps(steps: number, totalMs: number): string | undefined {
  if (steps === 0) return undefined;
  return (
    `the suite advanced the target's clock ${steps} time${steps === 1 ? '' : 's'} (${totalMs / 1000} s of ` +
    'virtual time in all, clock-advanced) while it waited for the call to progress'
  );
}

export interface CallClock {
  /**
   * One more step for the call, where the target offers clock-advanced and the bounds allow;
   * false when no step was taken.
   */
  step(control: ControlClient): Promise<boolean>;
  /** The steps taken so far (describeCallSteps). */
  describe(): string | undefined;
}

/** The steps of one call's wait. */
export function createCallClock(bounds: CallClockBounds = CALL_CLOCK_BOUNDS): CallClock {
  let steps = 0;
  let totalMs = 0;
  return {
    async step(control) {
      const ms = nextCallStep(steps, totalMs, bounds);
      if (ms === undefined || !control.offers('clock-advanced')) return false;
      steps += 1;
      totalMs += ms;
      await control.advanceClock(ms);
      return true;
    },
    describe: () => describeCallSteps(steps, totalMs),
  };
}

/** Whether the target's record of a call says it ended. */
const ended = (record: Record<string, unknown> | undefined): boolean => record?.status === 'ended';

/**
 * The target's record of `callId` (the `call-record` inspection) once the call ended, or the last
 * one read: looked at every 25 ms for `graceMs`, then after each step of `clock`, until the
 * steps are spent. Needs `call-record` offered.
 */
export async function recordAtEnd(
  control: ControlClient,
  callId: string,
  clock: CallClock,
  graceMs = CALL_GRACE_MS,
): Promise<Record<string, unknown> | undefined> {
  let record = await control.call(callId);
  const graceEnds = Date.now() + graceMs;
  for (let i = 0; i < 40 && !ended(record) && Date.now() < graceEnds; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    record = await control.call(callId);
  }
  while (!ended(record) && (await clock.step(control))) record = await control.call(callId);
  return record;
}
