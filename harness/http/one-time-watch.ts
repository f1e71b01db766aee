/**
 * The values the contract returns once ("returned only in this response": the hook secret), looked
 * for on every channel the target speaks on after it issued them: every later answer's content and
 * fields, every delivery's body and fields. No request of its own; the API client and the receiver
 * client feed it, a check judges it (suites/one-time.judge.suite.ts). A sighting names the value by
 * what it is and where it came from, never by the value.
 */
import { type OneTimeValue, oneTimeValues } from '../../contract/one-time-values.ts';

/** The channels the target speaks on: its answers, its deliveries. */
export type Channel = 'answer' | 'delivery';

export interface Sighting {
  readonly kind: Channel;
  /** e.g. "the secret of POST /hooks (exchange #12)". */
  readonly value: string;
  /** e.g. "GET /v1/me → 200, content". */
  readonly where: string;
}

export interface OneTimeWatch {
  /** An answer of `operation` (e.g. "POST /hooks"): its one-time values are watched from now on. */
  learn(operation: string, json: unknown, seq: number): void;
  /** What the target said at `where`: any watched value in `texts` is a sighting. `seq` orders answers. */
  scan(said: { kind: Channel; where: string; texts: readonly string[]; seq?: number }): void;
  /** How many values are watched. */
  readonly watched: number;
  /** How many messages of each channel were looked through after a value was watched. */
  readonly scanned: Readonly<Record<Channel, number>>;
  readonly sightings: readonly Sighting[];
}

/** Sightings kept: the first ones, which a report quotes. */
const KEPT = 10;
/** Shorter values could occur by chance: a one-time value is a secret, not a word. */
const MIN_LENGTH = 12;

export function createOneTimeWatch(values: readonly OneTimeValue[] = oneTimeValues()): OneTimeWatch {
  const watched = new Map<string, { label: string; seq: number }>();
  const sightings: Sighting[] = [];
  const scanned = { answer: 0, delivery: 0 };
  return {
    learn(operation, json, seq) {
      for (const value of values.filter((v) => v.operation === operation)) {
        const given = (json as Record<string, unknown> | undefined)?.[value.field];
        if (typeof given === 'string' && given.length >= MIN_LENGTH && !watched.has(given))
          watched.set(given, { label: `the ${value.field} of ${operation} (exchange #${seq})`, seq });
      }
    },
    scan({ kind, where, texts, seq }) {
      const after = [...watched].filter(([, from]) => seq === undefined || seq > from.seq);
      if (after.length > 0) scanned[kind] += 1;
      for (const [value, from] of after)
        if (sightings.length < KEPT && texts.some((text) => text.includes(value)))
          sightings.push({ kind, value: from.label, where });
    },
    scanned,
    get watched() {
      return watched.size;
    },
    sightings,
  };
}
