import { execFileSync } from 'child_process';
import { readdirSync, readFileSync } from 'fs';

/** A process as Linux's /proc/<pid>/stat shows it. */
export interface ProcessStat {
  ppid: number;
  /** R, S, D, Z (zombie), ... */
  state: string;
  /** user + system CPU time, in clock ticks (1/100 s on Linux). */
  cpuTicks: number;
}

/** Clock ticks per second of /proc CPU times (USER_HZ, 100 on Linux). */
export const CLOCK_TICKS_PER_S = 100;

/** Every live process by pid (Linux only: empty where there is no /proc). */
export function processTable(): Map<number, ProcessStat> {
  const table = new Map<number, ProcessStat>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after "pid (comm) ": state ppid ... utime(14th) stime(15th).
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      table.set(Number(entry), { state: fields[0], ppid: Number(fields[1]), cpuTicks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // the process ended meanwhile
    }
  }
  return table;
}

/** Pids of the live (not zombie) children of `pid`. */
export function childrenOf(pid: number, table = processTable()): number[] {
  return [...table].filter(([, s]) => s.ppid === pid && s.state !== 'Z').map(([child]) => child);
}

/** Whether `taskset` (CPU pinning, util-linux) is installed. */
export const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
