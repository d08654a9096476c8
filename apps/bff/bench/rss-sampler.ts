import { readFileSync } from 'node:fs';

/** Samples this process's RSS and heap every `everyMs` while running. */
export function sampleMemory(everyMs = 50) {
  let peakRss = process.memoryUsage.rss();
  let peakHeap = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return { peakRss, peakHeap };
    },
  };
}

export const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** A process's peak RSS in MB as the kernel keeps it (VmHWM; reset by writing 5 to clear_refs). */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}
