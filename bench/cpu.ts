/**
 * CPU seconds (user + system) of this process's waited-for children, from /proc (Linux; undefined
 * elsewhere): on a shared machine the CPU a run costs varies much less than its wall time.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

export function childrenCpuSeconds(): number | undefined {
  try {
    // Fields after the command name (which may hold spaces) start at state; cutime and cstime are the 14th and 15th of them.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100; // USER_HZ, 100 on Linux
  } catch {
    return undefined;
  }
}

/** The 1, 5 and 15 minute load averages, for the line next to a figure. */
export const load = (): string => loadavg().map((n) => n.toFixed(2)).join(' ');
