// Overview benchmark: `npx tsx apps/bff/bench/overview.ts` (or `pnpm bench overview`).
// The BFF runs in this process; the simulator (1,000,000 transactions over the last 12 months
// in one sub account) in a child process, so the RSS sampled here is the BFF's.
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { Overview } from '@card-console/shared/api/overview';
import { addDays, localDay } from '../src/features/overview/local-days';
import { MIN_REFRESH_MS } from '../src/features/overview/overview-service';
import { startBffInProcess } from './bff-in-process';
import { mb, sampleMemory } from './rss-sampler';
import { startSimProcess } from './sim-process';
import { walkDirect, walkDirectSliced } from './walk-direct';

const gc = (globalThis as { gc?: () => void }).gc;
const TIME_ZONE = 'America/New_York';
/**
 * How often the first computation is asked about: four times as often as the Overview screen
 * asks (every 1 s), so the time is measured finely and every answer's own cost is in it.
 */
const POLL_MS = 250;
const REPEATS = 25;
const REFRESHES = 5;

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)] ?? 0;

export async function runOverviewBench(transactions = 1_000_000) {
  const apiKey = randomBytes(16).toString('hex');
  const sim = await startSimProcess(transactions, apiKey, 12);
  const bff = await startBffInProcess(sim.url, apiKey);
  try {
    const headers = await bff.signIn();
    const today = localDay(Date.now(), TIME_ZONE);
    const query = (from: string, to: string, extra = '') =>
      `${bff.url}/api/overview?subAccountId=${sim.subAccountId}&from=${from}&to=${to}&tz=${encodeURIComponent(TIME_ZONE)}${extra}`;
    const get = async (url: string) => {
      const res = await fetch(url, { headers });
      if (res.status !== 200)
        throw new Error(`overview answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as Overview;
    };
    // Warm-up: JIT, connections, the card directory, on a period before the data begins.
    await get(query('2000-01-01', '2000-01-07'));
    gc?.();
    await delay(200);

    const from = addDays(today, -364);
    const before = process.memoryUsage.rss();
    const heapBefore = process.memoryUsage().heapUsed;
    const sampler = sampleMemory(50);
    const pagesAtStart = await sim.pages();
    const started = performance.now();
    let first = await get(query(from, today));
    let polls = 1;
    while (first.status === 'computing') {
      await delay(POLL_MS);
      first = await get(query(from, today));
      polls++;
    }
    const firstMs = performance.now() - started;
    const pagesFirst = (await sim.pages()) - pagesAtStart;
    const peak = sampler.stop();
    if (first.status !== 'complete') throw new Error(`first computation: ${first.status}`);
    const rows = first.totals.count + (first.previousTotals?.count ?? 0);

    const repeat: number[] = [];
    let pagesRepeat = 0;
    for (let i = 0; i < REPEATS; i++) {
      const pages = await sim.pages();
      const t = performance.now();
      const again = await get(query(from, today));
      repeat.push(performance.now() - t);
      pagesRepeat += (await sim.pages()) - pages;
      if (again.totals.count !== first.totals.count) throw new Error('a repeat changed the count');
    }
    // Asked to refresh: the days that can still change are read again, each time they are
    // old enough to be (`MIN_REFRESH_MS`).
    const refreshed: number[] = [];
    let pagesRefresh = 0;
    for (let i = 0; i < REFRESHES; i++) {
      await delay(MIN_REFRESH_MS);
      const pages = await sim.pages();
      const t = performance.now();
      await get(query(from, today, '&refresh=1'));
      refreshed.push(performance.now() - t);
      pagesRefresh += (await sim.pages()) - pages;
    }
    await delay(1_000);
    gc?.();
    const after = process.memoryUsage.rss();
    const heapAfter = process.memoryUsage().heapUsed;

    const walk = await walkDirect(sim.url, apiKey, sim.subAccountId);
    // As many pages in flight as the BFF's walk keeps (2 ranges, each a page ahead).
    const sliced = await walkDirectSliced(
      sim.url,
      apiKey,
      sim.subAccountId,
      { from: Date.now() - 400 * 86_400_000, to: Date.now() },
      4,
    );
    if (sliced.rows !== walk.rows) throw new Error(`sliced walk read ${sliced.rows} rows`);
    const rowsPerSecond = rows / (firstMs / 1000);
    const bareRowsPerSecond = walk.rows / (walk.ms / 1000);
    const slicedRowsPerSecond = sliced.rows / (sliced.ms / 1000);
    const repeatMs = { p50: median(repeat), min: Math.min(...repeat), max: Math.max(...repeat) };
    const markdown = [
      `One sub account with ${transactions.toLocaleString('en-US')} transactions over the last 12 months (simulator page size 50, no upstream rate limit), over loopback, Node ${process.version}. The Overview asked for is the last 365 days in ${TIME_ZONE} (with the 365 days before it, as the screen compares them), by a signed-in person over HTTP; the first computation is asked about every ${POLL_MS} ms until it is complete.`,
      '',
      '| measure | value |',
      '|---|---|',
      `| rows counted (period and the one before) | ${rows.toLocaleString('en-US')} |`,
      `| first computation | ${(firstMs / 1000).toFixed(2)} s, ${polls} requests, ${pagesFirst} upstream pages |`,
      `| first computation's speed | ${Math.round(rowsPerSecond).toLocaleString('en-US')} rows/s |`,
      `| bare walk of the simulator (one cursor, no checks), same run | ${Math.round(bareRowsPerSecond).toLocaleString('en-US')} rows/s (${walk.rows.toLocaleString('en-US')} rows in ${(walk.ms / 1000).toFixed(2)} s) |`,
      `| bare walk with as many pages in flight as the BFF's (4 time slices at once, one cursor each) | ${Math.round(slicedRowsPerSecond).toLocaleString('en-US')} rows/s (${(sliced.ms / 1000).toFixed(2)} s) |`,
      `| the first computation ÷ the 4-slice bare walk | ${(rowsPerSecond / slicedRowsPerSecond).toFixed(2)} |`,
      `| repeat, ${REPEATS} one after another: median (min–max) | ${repeatMs.p50.toFixed(1)} ms (${repeatMs.min.toFixed(1)}–${repeatMs.max.toFixed(1)}) |`,
      `| upstream pages read by the ${REPEATS} repeats | ${pagesRepeat} |`,
      `| asked to refresh (the days that can still change read again), ${REFRESHES} times ${MIN_REFRESH_MS / 1000} s apart: median (min–max) | ${median(refreshed).toFixed(1)} ms (${Math.min(...refreshed).toFixed(1)}–${Math.max(...refreshed).toFixed(1)}), ${Math.round(pagesRefresh / REFRESHES)} upstream pages each |`,
      `| BFF RSS before | ${mb(before)} MB |`,
      `| BFF RSS peak (sampled every 50 ms) | ${mb(peak.peakRss)} MB (+${mb(Math.max(0, peak.peakRss - before))} MB) |`,
      `| BFF RSS after (1 s later${gc ? ', after gc' : ''}) | ${mb(after)} MB (+${mb(Math.max(0, after - before))} MB) |`,
      `| BFF heap used: before / peak / after | ${mb(heapBefore)} / ${mb(peak.peakHeap)} / ${mb(heapAfter)} MB |`,
    ].join('\n');
    return {
      markdown,
      rowsPerSecond,
      bareRowsPerSecond,
      slicedRowsPerSecond,
      repeatP50Ms: repeatMs.p50,
      rssGrowth: Math.max(0, peak.peakRss - before, after - before),
    };
  } finally {
    await bff.stop();
    await sim.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runOverviewBench(Number(process.env.BENCH_TRANSACTIONS ?? 1_000_000));
  console.log(result.markdown);
  process.exit(0);
}
