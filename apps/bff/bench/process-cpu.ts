import { readFileSync } from 'node:fs';

const clockTicks = 100; // USER_HZ on Linux

/** CPU time (user + system) a process has used, in microseconds (Linux /proc). */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) / clockTicks) * 1_000_000;
}
