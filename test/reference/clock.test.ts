import { afterEach, describe, expect, it } from 'vitest';
import { createClock } from '../../reference/clock.ts';
import type { Clock } from '../../reference/clock.ts';

const clocks: Clock[] = [];
function clock(options?: Parameters<typeof createClock>[0]): Clock {
  const c = createClock(options);
  clocks.push(c);
  return c;
}
afterEach(() => {
  for (const c of clocks.splice(0)) c.close();
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('createClock', () => {
  it('starts at `start` and runs `scale` virtual ms per real ms', async () => {
    const c = clock({ scale: 1000, start: 1_000_000 });
    const outerStart = performance.now();
    const t0 = c.now();
    const innerStart = performance.now();
    expect(t0).toBeGreaterThanOrEqual(1_000_000);
    expect(t0).toBeLessThan(1_000_000 + 1000 * 1000); // created a moment ago
    await sleep(30);
    const innerEnd = performance.now();
    const t1 = c.now();
    const outerEnd = performance.now();
    // Virtual elapsed is scale × real elapsed, bracketed by the real readings around it.
    expect(t1 - t0).toBeGreaterThanOrEqual(1000 * (innerEnd - innerStart) - 1e-6);
    expect(t1 - t0).toBeLessThanOrEqual(1000 * (outerEnd - outerStart) + 1e-6);
    expect(t1 - t0).toBeGreaterThanOrEqual(1000 * 25);
    expect(c.scale).toBe(1000);
  });

  it('defaults to real time from Date.now()', () => {
    const c = clock();
    expect(c.scale).toBe(1);
    expect(Math.abs(c.now() - Date.now())).toBeLessThan(50);
  });

  it('scale 0 freezes time; advance moves it', () => {
    const c = clock({ scale: 0, start: 5 });
    expect(c.now()).toBe(5);
    c.advance(60_000);
    expect(c.now()).toBe(60_005);
  });

  it('refuses a negative or non-finite scale and a negative advance', () => {
    expect(() => createClock({ scale: -1 })).toThrow(RangeError);
    expect(() => createClock({ scale: Number.POSITIVE_INFINITY })).toThrow(RangeError);
    const c = clock({ scale: 0 });
    expect(() => c.advance(-1)).toThrow(RangeError);
  });

  it('fires a timer at its virtual time on a scaled clock (a virtual hour in ~36 ms)', async () => {
    const c = clock({ scale: 100_000 });
    const at = c.now() + 3_600_000;
    let firedAt: number | undefined;
    c.setTimer(at, () => {
      firedAt = c.now();
    });
    await sleep(10);
    expect(firedAt).toBeUndefined();
    for (let i = 0; i < 100 && firedAt === undefined; i++) await sleep(5);
    expect(firedAt).toBeDefined();
    expect(firedAt as number).toBeGreaterThanOrEqual(at);
  });

  it('advance fires due timers synchronously, in due order, each seeing its own time', () => {
    const c = clock({ scale: 0, start: 0 });
    const seen: Array<[string, number]> = [];
    c.setTimer(300, () => seen.push(['c', c.now()]));
    c.setTimer(100, () => seen.push(['a', c.now()]));
    c.setTimer(200, () => {
      seen.push(['b', c.now()]);
      c.setTimer(250, () => seen.push(['b2', c.now()])); // set inside the jump: fires too
    });
    c.setTimer(10_000, () => seen.push(['late', c.now()]));
    c.advance(1000);
    expect(seen).toEqual([
      ['a', 100],
      ['b', 200],
      ['b2', 250],
      ['c', 300],
    ]);
    expect(c.now()).toBe(1000);
  });

  it('with deferNested, a timer set inside the jump waits for the next advance, even a running clock', async () => {
    const c = clock({ scale: 1, start: 0, deferNested: true });
    const seen: string[] = [];
    c.setTimer(200, () => {
      seen.push('b');
      c.setTimer(250, () => seen.push('b2')); // due within this jump: the next advance fires it
      c.setTimer(5_000, () => seen.push('later')); // due after it: as any timer
    });
    c.advance(1000);
    expect(seen).toEqual(['b']);
    await sleep(20); // armed against real time it would have fired by now
    expect(seen).toEqual(['b']);
    c.advance(0);
    expect(seen).toEqual(['b', 'b2']);
    c.advance(10_000);
    expect(seen).toEqual(['b', 'b2', 'later']);
  });

  it('re-arms remaining timers after advance so they fire sooner in real time', async () => {
    const c = clock({ scale: 1 });
    let fired = false;
    c.setTimer(c.now() + 10 * 60_000, () => {
      fired = true;
    }); // 10 real minutes away
    c.advance(10 * 60_000 - 20); // now ~20 real ms away
    expect(fired).toBe(false);
    for (let i = 0; i < 100 && !fired; i++) await sleep(5);
    expect(fired).toBe(true);
  });

  it('a timer already due fires promptly even on a frozen clock', async () => {
    const c = clock({ scale: 0, start: 1000 });
    let fired = false;
    c.setTimer(500, () => {
      fired = true;
    });
    expect(fired).toBe(false); // never synchronously inside setTimer
    await sleep(5);
    expect(fired).toBe(true);
  });

  it('clearTimer cancels; close() cancels every timer and later ones never fire', async () => {
    const c = clock({ scale: 0, start: 0 });
    let count = 0;
    const h = c.setTimer(10, () => count++);
    c.clearTimer(h);
    c.advance(20);
    expect(count).toBe(0);
    c.setTimer(30, () => count++);
    c.close();
    c.advance(100);
    c.setTimer(0, () => count++);
    await sleep(5);
    expect(count).toBe(0);
  });

  it('a throwing callback does not stop the others in the same advance', () => {
    const c = clock({ scale: 0, start: 0 });
    let after = false;
    c.setTimer(1, () => {
      throw new Error('boom');
    });
    c.setTimer(2, () => {
      after = true;
    });
    expect(() => c.advance(5)).toThrow('boom');
    expect(after).toBe(true);
    expect(c.now()).toBe(5);
  });
});
