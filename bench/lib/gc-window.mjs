// Loaded into a served process with `--import` by `profile-read.ts` (GC=1): V8's own account of
// each collection of the main thread (`v8.GCProfiler`) over a window the benchmark opens and
// closes with SIGUSR2, written as JSON to GC_WINDOW_FILE. Worker threads (the embedded engine's)
// load it too and do nothing. Not part of the product or of `pnpm bench`.
import { writeFileSync } from 'node:fs';
import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';

const file = process.env.GC_WINDOW_FILE;
if (isMainThread && file) {
  let profiler;
  process.on('SIGUSR2', () => {
    if (!profiler) {
      profiler = new v8.GCProfiler();
      profiler.start();
      return;
    }
    writeFileSync(file, JSON.stringify(profiler.stop()));
  });
}
