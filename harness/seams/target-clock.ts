/**
 * The target's clock as the run has read it, for judging signature freshness: control-openapi.json
 * (Time) lets a target with a virtual clock sign deliveries (`t` of X-Service-Signature) with that
 * clock or with real time, and the suite accepts a `t` fresh against either.
 *
 * Readings are the `clock` inspection's answers and clock-advanced's: one before any check
 * (../run/target.ts), one before and one after each advance (./control-client.ts), and one taken
 * when a delivery arrived after the last of them. They are kept by the process that started the
 * run (ClockReadings) and recorded and read by the workers through the run channel
 * (../run/channel.ts), so that every worker of a parallel run sees them all.
 *
 * The target's clock at the moment a delivery arrived is bracketed by readings, since it never
 * goes back: at least the value of any `clock` reading answered before, at most the value of any
 * reading sent after. A clock-advanced answer is never a lower bound: the timers an advance fires
 * run at their due times, anywhere within the jump, and so are their signatures.
 */
export interface ClockReading {
  /** CONTROL_URL of the target read (a self-proof run replaces its reference between runs). */
  readonly url: string;
  readonly kind: 'clock' | 'advance';
  /** Wall-clock ms when the request was sent and when its answer came. */
  readonly sent: number;
  readonly answered: number;
  /** The target's now, epoch ms, as it answered. */
  readonly now: number;
}

/** The readings of a run, where they are kept: the process that started the run (ClockReadings). */
export interface ClockLog {
  record(reading: ClockReading): Promise<void>;
  /** The readings of the target at `url`, in the order they were recorded. */
  readings(url: string): Promise<ClockReading[]>;
}

/** The run's readings, in the memory of the process that started it. */
export class ClockReadings {
  private all: ClockReading[] = [];

  add(reading: ClockReading): void {
    this.all.push(reading);
  }

  of(url: string): ClockReading[] {
    return this.all.filter((r) => r.url === url);
  }

  /** Forgets every reading (a self-proof runner's next fault starts a new target). */
  clear(): void {
    this.all = [];
  }
}

/** What the target's clock read at `atMs` (wall clock) at least and at most, as far as the readings tell. Pure. */
export function clockBounds(readings: readonly ClockReading[], atMs: number): { low?: number; high?: number } {
  let low: number | undefined;
  let high: number | undefined;
  for (const r of readings) {
    if (r.kind === 'clock' && r.answered <= atMs) low = Math.max(low ?? r.now, r.now);
    if (r.sent >= atMs) high = Math.min(high ?? r.now, r.now);
  }
  return { ...(low === undefined ? {} : { low }), ...(high === undefined ? {} : { high }) };
}

/**
 * Whether a `t` (unix seconds, so up to a second below the instant) is within `toleranceSeconds`
 * of the target's clock somewhere between the bounds; undefined when a bound is unknown. Pure.
 */
export function freshAgainstBounds(
  tSeconds: number,
  bounds: { low?: number; high?: number },
  toleranceSeconds: number,
): boolean | undefined {
  if (bounds.low === undefined || bounds.high === undefined) return undefined;
  const slack = toleranceSeconds * 1000 + 1000;
  return tSeconds * 1000 >= bounds.low - slack && tSeconds * 1000 <= bounds.high + slack;
}

/** Whether `t` (unix s) was fresh against the target's own clock when a delivery arrived; undefined: unknown. */
export type TargetClockFreshness = (
  tSeconds: number,
  receivedAtMs: number,
  toleranceSeconds: number,
) => boolean | undefined;

export interface TargetClock {
  /** Whether the target reports its clock (the `clock` inspection): else only real time judges. */
  readonly offered: boolean;
  record(reading: Omit<ClockReading, 'url'>): Promise<void>;
  /**
   * Makes sure a reading sent after `atMs` exists, reading the clock when none does (errors leave
   * it unknown); brings the run's readings up to date for `fresh`.
   */
  cover(atMs: number): Promise<void>;
  /**
   * Whether `t` was fresh against the target's reported clock when the delivery arrived
   * (`cover` its arrival first); undefined when the readings cannot tell.
   */
  readonly fresh: TargetClockFreshness;
}

export function createTargetClock(options: {
  /** Where the run keeps its readings; undefined: this clock keeps its own alone. */
  readonly log: ClockLog | undefined;
  readonly url: string | undefined;
  /** The `clock` inspection's now; undefined when the target does not offer it. */
  readonly read: (() => Promise<number>) | undefined;
}): TargetClock {
  const { log, url, read } = options;
  /** This clock's own readings, and the run's as last brought up to date (its own among them: harmless twice). */
  const own: ClockReading[] = [];
  let fetched: ClockReading[] = [];
  const known = (): ClockReading[] => [...fetched, ...own];
  const refresh = async (): Promise<void> => {
    if (log !== undefined && url !== undefined) fetched = await log.readings(url);
  };
  const record = async (reading: Omit<ClockReading, 'url'>): Promise<void> => {
    if (url === undefined) return;
    const full = { url, ...reading };
    own.push(full);
    await log?.record(full);
  };
  return {
    offered: read !== undefined && url !== undefined,
    record,
    async cover(atMs) {
      if (read === undefined) return;
      await refresh();
      if (known().some((r) => r.sent >= atMs)) return;
      const sent = Date.now();
      try {
        const now = await read();
        await record({ kind: 'clock', sent, answered: Date.now(), now });
      } catch {
        // Unknown stays unknown: the delivery is then judged against real time alone.
      }
    },
    fresh(tSeconds, receivedAtMs, toleranceSeconds) {
      if (read === undefined) return undefined;
      return freshAgainstBounds(tSeconds, clockBounds(known(), receivedAtMs), toleranceSeconds);
    },
  };
}
