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
