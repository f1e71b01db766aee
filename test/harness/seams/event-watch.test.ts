/**
 * How long the watch's judge keeps looking: the budget from when the events were caused, or from
 * the last clock step taken for the watch's call, whichever is later.
 */
import { describe, expect, it } from 'vitest';
import { waitEnds } from '../../../harness/seams/event-watch.ts';

describe('waitEnds', () => {
  const watch = { causedAt: 100_000, budgetS: 10 };

  it('is the budget after the events were caused, with no clock step taken', () => {
    expect(waitEnds(watch, undefined)).toBe(110_000);
  });

  it('runs from a clock step taken after the budget ran out: the step is what ends a call on a still clock', () => {
    expect(waitEnds(watch, 250_000)).toBe(260_000);
  });

  it('is not shortened by a step taken before the events were caused', () => {
    expect(waitEnds(watch, 50_000)).toBe(110_000);
  });
});
