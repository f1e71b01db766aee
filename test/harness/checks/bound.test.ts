/**
 * harness/checks/check.ts `withinBound`: a check's body past its bound is abandoned; the check is
 * not verifiable when the network took at least half the bound (a slow link is not a verdict),
 * failed otherwise (a hang guard).
 */
import { describe, expect, it } from 'vitest';
import { CheckFailure, endsNotVerifiable, withinBound } from '../../../harness/checks/check.ts';

const running = (timeoutMs: number) => ({
  options: { verifies: ['ME-200-SHAPE'] as const, requests: 1, timeoutMs },
  abandoned: false,
});
const never = () => new Promise<void>(() => undefined);

describe('a check within its bound', () => {
  it('ends as the body does when it ends in time', async () => {
    const state = running(5_000);
    await expect(withinBound(Promise.resolve(), state, () => 0)).resolves.toBeUndefined();
    await expect(withinBound(Promise.reject(new Error('its own failure')), state, () => 0)).rejects.toThrow(
      'its own failure',
    );
    expect(state.abandoned).toBe(false);
  });

  it('is not verifiable past its bound when the network took half of it or more', async () => {
    const state = running(50);
    const ended = withinBound(never(), state, () => 30).catch((error: unknown) => error);
    const error = await ended;
    expect(endsNotVerifiable(error)).toBe(true);
    expect((error as Error).message).toMatch(/^the network: the check's exchanges took 0 s of its 0.1 s bound/);
    expect(state.abandoned).toBe(true);
  });

  it('fails past its bound when the time went elsewhere: a hang guard', async () => {
    const state = running(50);
    const error = await withinBound(never(), state, () => 10).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckFailure);
    expect(endsNotVerifiable(error)).toBe(false);
    expect(state.abandoned).toBe(true);
  });
});
