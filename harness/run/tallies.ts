/**
 * What the run reads of every exchange at no request (the protocol lint's tallies, the one-time
 * watch's counts and sightings) is kept by each test worker for the exchanges it made; an embedded
 * run spreads its files over several workers. Each worker hands the run channel its tallies as
 * each check ends; a judge reads them all, merged. One worker (a remote run) reads its own.
 * Sightings name values by where they came from, never by the value, so nothing secret crosses.
 */
import { type LintTally, mergeTallies, type TallyRecord, tallyRecord } from '../../contract/standards/lint.ts';
import type { Channel, Sighting } from '../http/one-time-watch.ts';
import { threadId } from 'node:worker_threads';
import { session } from './session.ts';

export interface WatchSummary {
  readonly watched: number;
  readonly scanned: Readonly<Record<Channel, number>>;
  readonly sightings: readonly Sighting[];
}

export interface WorkerTallies {
  readonly worker: string;
  readonly api: TallyRecord;
  readonly receiver?: TallyRecord;
  readonly oneTime: WatchSummary;
}

export interface RunTallies {
  readonly api: LintTally;
  /** undefined when no worker of the run had a receiver. */
  readonly receiver: LintTally | undefined;
  readonly oneTime: WatchSummary;
}

const WORKER = `${process.pid}.${threadId}`;

function ownTallies(): WorkerTallies {
  const { api, receiver } = session();
  const { watched, scanned, sightings } = api.oneTime;
  return {
    worker: WORKER,
    api: tallyRecord(api.lint),
    ...(receiver === undefined ? {} : { receiver: tallyRecord(receiver.lint) }),
    oneTime: { watched, scanned: { ...scanned }, sightings: [...sightings] },
  };
}

/** Hands the run channel this worker's tallies (after each check). */
export async function shareTallies(): Promise<void> {
  await session().channel.call('/tallies/put', ownTallies());
}

/** Every worker's tallies merged, this one's as they are now. Pure. */
export function mergeWorkers(all: readonly WorkerTallies[]): RunTallies {
  const receivers = all.flatMap((w) => (w.receiver === undefined ? [] : [w.receiver]));
  return {
    api: mergeTallies(all.map((w) => w.api)),
    receiver: receivers.length === 0 ? undefined : mergeTallies(receivers),
    oneTime: {
      watched: all.reduce((n, w) => n + w.oneTime.watched, 0),
      scanned: {
        answer: all.reduce((n, w) => n + w.oneTime.scanned.answer, 0),
        delivery: all.reduce((n, w) => n + w.oneTime.scanned.delivery, 0),
      },
      sightings: all.flatMap((w) => w.oneTime.sightings),
    },
  };
}

/** The run's tallies: every worker's, through the channel. */
export async function runTallies(): Promise<RunTallies> {
  await shareTallies();
  return mergeWorkers(await session().channel.call<WorkerTallies[]>('/tallies/all', {}));
}
