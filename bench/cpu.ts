/**
 * CPU seconds (user + system) of this process's waited-for children, from /proc (Linux; undefined
 * elsewhere): on a shared machine the CPU a run costs varies much less than its wall time.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

export function childrenCpuSeconds(): number | undefined {
  try {
    // Fields after the command name (which may hold spaces) start at state; cutime and cstime are
    // the 14th and 15th of them.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100; // USER_HZ, 100 on Linux
  } catch {
    return undefined;
  }
}

/** The 1, 5 and 15 minute load averages, for the line next to a figure. */
export const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

/**
 * CPU seconds the hypervisor gave to other guests while ours wanted to run (steal, all cores,
 * from /proc/stat; undefined elsewhere). On this kind of machine it ranged from nothing to 7.7 s
 * during one npm test, and a run's CPU seconds rise with it: a figure is comparable with another
 * only when both say how much was stolen.
 */
export function stolenCpuSeconds(): number | undefined {
  try {
    // "cpu  user nice system idle iowait irq softirq steal …", in USER_HZ.
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const steal = Number(fields[8]);
    return fields[0] === 'cpu' && Number.isFinite(steal) ? steal / 100 : undefined;
  } catch {
    return undefined;
  }
}

/** ", N s stolen" for a figure's line, from a reading taken before it (and one after, or now); '' where unknown. */
export function stolenSince(before: number | undefined, after = stolenCpuSeconds()): string {
  return before === undefined || after === undefined ? '' : `, ${(after - before).toFixed(1)} s stolen by the host`;
}
