/**
 * The run channel's cost (harness/run/channel.ts): a worker process makes CALLS calls one after
 * another (a clock reading recorded, as most of a run's calls are), and both processes' CPU is
 * counted. A full embedded run makes about 1,800 calls, each self-proof fault a few dozen.
 *
 *   npm run bench:channel
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { channelClient, type ChannelAddress } from '../harness/run/channel-client.ts';
import { startRunChannel } from '../harness/run/channel.ts';
import { recordResult } from './results.ts';

const CALLS = 2_000;
const ROUNDS = 3;
const GOAL_CPU_S = 0.5;

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** The worker's half: the calls, then its own CPU time to the parent. */
async function worker(address: ChannelAddress): Promise<void> {
  const channel = channelClient(address);
  const start = process.cpuUsage();
  for (let i = 0; i < CALLS; i++)
    await channel.call('/clock/record', {
      reading: { url: 'http://bench', kind: 'clock', sent: i, answered: i, now: i },
    });
  const readings = await channel.call<unknown[]>('/clock/readings', { url: 'http://bench' });
  if (readings.length !== CALLS) throw new Error(`the channel kept ${readings.length} of ${CALLS} readings`);
  process.send?.(cpuMs(start));
}

/** One round: a channel here, a worker process calling it; both processes' CPU in ms. */
async function round(): Promise<{ worker: number; main: number }> {
  const channel = await startRunChannel();
  try {
    const start = process.cpuUsage();
    const workerMs = await new Promise<number>((resolve, reject) => {
      const child = fork(fileURLToPath(import.meta.url), ['worker', JSON.stringify(channel.address)]);
      child.once('message', (ms) => resolve(Number(ms)));
      child.once('exit', (code) => reject(new Error(`the worker exited ${code} before it reported`)));
    });
    return { worker: workerMs, main: cpuMs(start) };
  } finally {
    await channel.close();
  }
}

if (import.meta.main && process.argv[2] === 'worker') {
  await worker(JSON.parse(process.argv[3]!) as ChannelAddress);
  process.exit(0);
} else if (import.meta.main) {
  const totals: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const { worker: w, main } = await round();
    totals.push((w + main) / 1000);
    console.log(`round ${i + 1}: ${CALLS} calls, worker ${w.toFixed(0)} ms + run ${main.toFixed(0)} ms of CPU`);
  }
  const median = [...totals].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
  recordResult({
    goal:
      `the run channel: ${CALLS.toLocaleString('en-US')} calls from a worker process, ` +
      `≤ ${GOAL_CPU_S} CPU-s in both processes, median of ${ROUNDS}`,
    command: 'npm run bench:channel',
    figure:
      `${median <= GOAL_CPU_S ? 'met' : 'not met'}: median ${median.toFixed(2)} CPU-s ` +
      `(${totals.map((t) => t.toFixed(2)).join(', ')})`,
  });
}
