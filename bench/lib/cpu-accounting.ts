// Where the machine's CPU goes during a measurement: each named process's CPU time from
// /proc/<pid>/stat, and the whole machine's busy time from /proc/stat, before and after.
import { readdirSync, readFileSync } from 'node:fs';
import { cpuMicros } from './child';

const clockTicks = 100; // USER_HZ on Linux

/**
 * The whole machine's CPU time (all cores, every process) in microseconds: busy, and stolen by
 * the hypervisor (a virtual machine's cores are not always its own).
 */
export function machineMicros(): { busy: number; steal: number } {
  const [user, nice, system, , , irq, softirq, steal] = (
    readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? ''
  )
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map((ticks) => (Number(ticks) / clockTicks) * 1_000_000);
  return {
    busy: (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0),
    steal: steal ?? 0,
  };
}

/** Pids of this process's children whose command name is `name` (e.g. haproxy). */
export function childPidsNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && comm === name) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/** A process group by its pids, or by what it reports itself (PostgreSQL: a postmaster and its backends). */
export type Watched =
  | { name: string; pids: readonly number[] }
  | { name: string; micros: () => number };

/** CPU microseconds each watched process (summed over its pids) and the machine used. */
export interface CpuSample {
  byName: Record<string, number>;
  machine: { busy: number; steal: number };
  wallMicros: number;
}

export function sampleCpu(watched: readonly Watched[]): CpuSample {
  const byName: Record<string, number> = {};
  for (const w of watched) {
    byName[w.name] =
      'micros' in w ? w.micros() : w.pids.reduce((sum, pid) => sum + cpuMicros(pid), 0);
  }
  return { byName, machine: machineMicros(), wallMicros: performance.now() * 1000 };
}

/**
 * What each watched process, the rest of the machine, the hypervisor (steal) and nobody (idle)
 * used between two samples.
 */
export function cpuBetween(
  before: CpuSample,
  after: CpuSample,
  cores: number,
): { byName: Record<string, number>; others: number; steal: number; idle: number; wall: number } {
  const byName: Record<string, number> = {};
  let ours = 0;
  for (const name of Object.keys(after.byName)) {
    byName[name] = (after.byName[name] ?? 0) - (before.byName[name] ?? 0);
    ours += byName[name] ?? 0;
  }
  const wall = after.wallMicros - before.wallMicros;
  const busy = after.machine.busy - before.machine.busy;
  const steal = after.machine.steal - before.machine.steal;
  return {
    byName,
    others: Math.max(0, busy - ours),
    steal,
    idle: Math.max(0, cores * wall - busy - steal),
    wall,
  };
}
