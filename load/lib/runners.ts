/**
 * Cooperating runners of the rate-limit probe: N k6 processes (local, `occ load rate-limit
 * --runners N`, or the pods of a k6-operator TestRun), each with its execution segment and its
 * own source address, each acting as ONE client of the per-IP limit. The script's scenarios are
 * written for all N together (N × one address's load) and k6 gives each runner its segment: one
 * address's share. Pure; no k6 or Node import (both load it).
 *
 * The second-address half of RATE-LIMIT-PER-IP needs one client to start while another is
 * refused, so the set-up is staggered: runner 1 spends its budget at once; runners 2…N wait
 * `staggerMs` and then send one request from their fresh address (it must be served); runner 1
 * checks once more at `stillRefusedAtMs` that it is still refused (else a window turned and the
 * pair is void). Then every runner spends its own budget, and all set-ups end together.
 */

/** A runner's place among N: from k6's execution segment ("1/3:2/3") in its sequence ("0,1/3,2/3,1"). */
export function runnerIndex(
  segment: string | null | undefined,
  sequence: string | null | undefined,
): { index: number; count: number } {
  if (segment === null || segment === undefined || segment === '') return { index: 0, count: 1 };
  const fraction = (text: string): number => {
    const [n, d] = text.trim().split('/');
    return d === undefined ? Number(n) : Number(n) / Number(d);
  };
  const start = fraction(segment.split(':')[0] ?? '0');
  const points = (
    sequence === null || sequence === undefined || sequence === '' ? `0,${segment.split(':')[1] ?? '1'},1` : sequence
  )
    .split(',')
    .map(fraction);
  const index = points.findIndex((p) => Math.abs(p - start) < 1e-9);
  if (index < 0 || index >= points.length - 1)
    throw new Error(`execution segment ${segment} is not one of the sequence ${sequence}`);
  return { index, count: points.length - 1 };
}

/** The staggered set-up of N runners, in ms from each runner's own set-up start (see above). */
export interface PerIpTimeline {
  readonly staggerMs: number;
  readonly stillRefusedAtMs: number;
  /** Every runner's set-up ends here (or a window after its own last request, if later). */
  readonly setupEndMs: number;
}

export function perIpTimeline(windowMs: number, runners: number): PerIpTimeline {
  if (runners <= 1) return { staggerMs: 0, stillRefusedAtMs: 0, setupEndMs: 0 };
  const staggerMs = Math.round(0.4 * windowMs);
  const stillRefusedAtMs = Math.round(0.6 * windowMs);
  // After the last check, a whole window of silence, a quarter window of slack for slow bursts.
  return { staggerMs, stillRefusedAtMs, setupEndMs: stillRefusedAtMs + Math.round(1.25 * windowMs) + 250 };
}

/** A request of the per-IP set-up: when it was sent (epoch ms) and its status (0: no answer). */
export interface Stamp {
  readonly atMs: number;
  readonly status: number;
}

/** What a runner's set-up recorded for RATE-LIMIT-PER-IP (setup data, then its summary). */
export interface PerIpRecord {
  readonly runner: number;
  readonly runners: number;
  /** The runner's source address as it was given (SOURCE_ADDRESS or k6's --local-ips), when known. */
  readonly address: string | null;
  /** Its own budget spent with TOKEN: first request, first refusal (null: never refused). */
  readonly burstStartedAtMs: number;
  readonly refusedAtMs: number | null;
  /**
   * TOKEN_2 from the same address once refused (`statuses`: its tries back to back; `status`: 429
   * when any was refused, else the first), and TOKEN right after (429: the probe counts).
   */
  readonly otherToken: {
    readonly status: number;
    readonly statuses?: readonly number[];
    readonly trailing: number;
  } | null;
  /** Runners 2…N: their first request, from a fresh address, while runner 1 is refused. */
  readonly fresh: Stamp | null;
  /** Runner 1: one more request after the others' fresh ones (429: it was still refused). */
  readonly stillRefused: Stamp | null;
}

/** The file a runner's summary goes to in REPORT_DIR (never read as a probe summary itself: it has a dot). */
export function runnerSummaryName(probe: string, index: number, count: number): string {
  return `k6-${probe}.runner-${index + 1}-of-${count}`;
}

export const RUNNER_SUMMARY = /^k6-([\w-]+)\.runner-(\d+)-of-(\d+)\.json$/;
