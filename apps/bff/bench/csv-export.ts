// CSV export benchmark: `npx tsx apps/bff/bench/csv-export.ts` (or `pnpm bench csv-export`).
// The BFF runs in this process; the simulator (100,000 transactions in one sub account) in a
// child process, so the RSS sampled here is the BFF's (plus a streaming, non-buffering client).
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { EXPORT_PAGES_AHEAD, EXPORT_WALKS } from '../src/features/transactions/export-service';
import { startBffInProcess } from './bff-in-process';
import { download } from './download';
import { cpuMicros } from './process-cpu';
import { mb, sampleMemory } from './rss-sampler';
import { startSimProcess } from './sim-process';
import { walkDirect } from './walk-direct';

const gc = (globalThis as { gc?: () => void }).gc;
/** Interleaved rounds of (bare walk, BFF export) after the first, cold export. */
const WARM_ROUNDS = 3;
const cores = availableParallelism();
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function runCsvExportBench(transactions = 100_000) {
  const apiKey = randomBytes(16).toString('hex');
  const sim = await startSimProcess(transactions, apiKey);
  const bff = await startBffInProcess(sim.url, apiKey);
  try {
    const headers = await bff.signIn();
    const exportUrl = `${bff.url}/api/transactions/export.csv?subAccountId=${sim.subAccountId}`;
    // Warm-up: JIT, connection pool, csv-stringify, on a 1-page export of a tiny date range.
    await download(`${exportUrl}&from=0&to=1`, headers);
    gc?.();
    await delay(200);

    const before = process.memoryUsage.rss();
    const pagesAtStart = await sim.pages();
    const sampler = sampleMemory(50);
    const cpuStart = process.cpuUsage();
    const simCpuStart = cpuMicros(sim.pid);
    // RSS as the download passes each quarter: flat memory means these do not climb.
    const quarters: string[] = [];
    const full = await download(exportUrl, headers, undefined, (lines) => {
      if (lines >= ((quarters.length + 1) * transactions) / 4)
        quarters.push(mb(process.memoryUsage.rss()));
    });
    const cpu = process.cpuUsage(cpuStart);
    const simCpuMs = (cpuMicros(sim.pid) - simCpuStart) / 1000;
    const peak = sampler.stop();
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const pagesFull = (await sim.pages()) - pagesAtStart;
    await delay(1_000);
    gc?.();
    const after = process.memoryUsage.rss();
    const heapAfter = process.memoryUsage().heapUsed;

    // Disconnect: hang up after 1 MB, then watch the upstream page counter.
    bff.clearLog();
    const pagesBeforeCut = await sim.pages();
    const cut = await download(exportUrl, headers, 1024 * 1024);
    const atAbort = (await sim.pages()) - pagesBeforeCut;
    await delay(500);
    const after500 = (await sim.pages()) - pagesBeforeCut;
    await delay(1_000);
    const after1500 = (await sim.pages()) - pagesBeforeCut;
    const stopLine = bff.exportLog().find((l) => l.includes('went away')) ? 'yes' : 'no';

    // Warm rounds: the JIT of all three processes settled, the bare walk beside the export.
    const bare: number[] = [];
    const warm: number[] = [];
    // Both processes' CPU per warm export, and the rows/s it would allow on all cores.
    const warmCpuMs: { bff: number; sim: number }[] = [];
    for (let round = 0; round < WARM_ROUNDS; round++) {
      const walk = await walkDirect(sim.url, apiKey, sim.subAccountId);
      bare.push(walk.rows / (walk.ms / 1000));
      const bffCpu = process.cpuUsage();
      const simCpu = cpuMicros(sim.pid);
      const again = await download(exportUrl, headers);
      const used = process.cpuUsage(bffCpu);
      warmCpuMs.push({
        bff: (used.user + used.system) / 1000,
        sim: (cpuMicros(sim.pid) - simCpu) / 1000,
      });
      if (again.rows !== full.rows) throw new Error(`warm export gave ${again.rows} rows`);
      warm.push(again.rows / (again.ms / 1000));
    }
    const warmBffMs = median(warmCpuMs.map((c) => c.bff));
    const warmSimMs = median(warmCpuMs.map((c) => c.sim));
    const warmCeiling = full.rows / ((warmBffMs + warmSimMs) / 1000 / cores);
    const coldRowsPerSecond = Math.round(full.rows / (full.ms / 1000));
    const rowsPerSecond = Math.round(median(warm));
    const bareRowsPerSecond = Math.round(median(bare));
    const range = (values: number[]) =>
      `${Math.round(Math.min(...values)).toLocaleString('en-US')}–${Math.round(Math.max(...values)).toLocaleString('en-US')}`;
    const markdown = [
      `Export of one sub account with ${transactions.toLocaleString('en-US')} transactions (simulator page size 50, no upstream rate limit), over loopback, Node ${process.version}. The BFF walks ${EXPORT_WALKS} date ranges at once, each reading up to ${EXPORT_PAGES_AHEAD} pages ahead of the download.`,
      `The first export runs cold and gives the memory and CPU figures; then ${WARM_ROUNDS} rounds each walk the upstream with a bare client and export again. The target is judged on the warm exports' median.`,
      '',
      '| measure | value |',
      '|---|---|',
      `| status / complete | ${full.status} / ${full.complete ? 'yes' : 'no'} |`,
      `| rows (data lines) | ${full.rows.toLocaleString('en-US')} |`,
      `| bytes | ${mb(full.bytes)} MB |`,
      `| time, first export | ${(full.ms / 1000).toFixed(2)} s |`,
      `| throughput, first (cold) export | ${coldRowsPerSecond.toLocaleString('en-US')} rows/s |`,
      `| throughput, ${WARM_ROUNDS} warm exports (median, range) | ${rowsPerSecond.toLocaleString('en-US')} rows/s (${range(warm)}) |`,
      `| the upstream walked by a bare client, interleaved with those (median, range) | ${bareRowsPerSecond.toLocaleString('en-US')} rows/s (${range(bare)}) |`,
      `| the export's speed ÷ the bare walk's | ${(rowsPerSecond / bareRowsPerSecond).toFixed(2)} |`,
      `| upstream pages walked by one export | ${pagesFull} |`,
      `| BFF process CPU, first export (incl. the streaming client) | ${(cpuMs / 1000).toFixed(2)} s, ${(cpuMs / (full.rows / 1000)).toFixed(1)} ms per 1,000 rows |`,
      `| simulator process CPU, first export | ${(simCpuMs / 1000).toFixed(2)} s, ${(simCpuMs / Math.max(1, pagesFull)).toFixed(2)} ms per page |`,
      // The simulator answers on one thread: its CPU per page caps the export however many
      // date ranges the BFF walks at once.
      `| ceiling set by the simulator's CPU alone | ${Math.round(full.rows / (simCpuMs / 1000)).toLocaleString('en-US')} rows/s |`,
      `| CPU of a warm export (median): BFF incl. the streaming client; simulator | ${(warmBffMs / 1000).toFixed(2)} s; ${(warmSimMs / 1000).toFixed(2)} s |`,
      // What a walk spread over both processes at once could reach at best: all the cores
      // doing nothing but the BFF's and the simulator's work for a warm export.
      `| ceiling of a warm export if all ${cores} cores did only its work | ${Math.round(warmCeiling).toLocaleString('en-US')} rows/s |`,
      `| BFF RSS before | ${mb(before)} MB |`,
      `| BFF RSS peak (sampled every 50 ms) | ${mb(peak.peakRss)} MB (+${mb(Math.max(0, peak.peakRss - before))} MB) |`,
      `| BFF RSS at 25 / 50 / 75 / 100 % of rows | ${quarters.join(' / ')} MB |`,
      `| BFF RSS after (1 s later${gc ? ', after gc' : ''}) | ${mb(after)} MB |`,
      `| BFF heap used: peak / after | ${mb(peak.peakHeap)} / ${mb(heapAfter)} MB |`,
      '',
      '**Disconnect after 1 MB**',
      '',
      '| measure | value |',
      '|---|---|',
      `| bytes received before hanging up | ${mb(cut.bytes)} MB (${cut.rows.toLocaleString('en-US')} rows) |`,
      `| upstream pages at hang-up | ${atAbort} |`,
      `| upstream pages 0.5 s later | ${after500} |`,
      `| upstream pages 1.5 s later | ${after1500} |`,
      `| pages a full export walks | ${pagesFull} |`,
      `| "client went away" logged | ${stopLine} |`,
    ].join('\n');
    return {
      markdown,
      walks: EXPORT_WALKS,
      rowsPerSecond,
      bareRowsPerSecond,
      rss: { before, peak: peak.peakRss, after },
      disconnect: { atAbort, after500, after1500 },
    };
  } finally {
    await bff.stop();
    await sim.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runCsvExportBench(Number(process.env.BENCH_TRANSACTIONS ?? 100_000));
  console.log(result.markdown);
}
