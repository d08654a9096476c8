// Transaction index benchmark, embedded engine (`pnpm bench transaction-index`): the demo's size
// of data (20,000 transactions over 18 months; the simulator in a child process, so the RSS
// sampled here is the index's and the client's). Measures the bare ranged walk of the 732-day
// history (the same walk with nothing stored: the ceiling), a first sync from a cold start (PGlite
// opened, migrations applied, every day stored), and the screen's queries: distinct filter
// combinations, each a page of 100 and the whole set's count and sums.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { systemClock } from '../src/core/clock';
import {
  type IndexFilter,
  type IndexOrder,
  TransactionIndexStore,
} from '../src/features/transaction-index/index-store';
import {
  createIndexSync,
  daysToWalk,
  walkIndexDays,
} from '../src/features/transaction-index/index-sync';
import { InProcessJobRunner } from '../src/platform/jobs/in-process-job-runner';
import { applyIndexMigrations } from '../src/platform/sql/index-migrations';
import { embeddedEngine } from '../src/platform/sql/sql-engine';
import { createUpstreamClient } from '../src/upstream/client';
import { walkBudget } from '../src/upstream/paginate';
import { WALK_LIMITS } from '../src/upstream/walk-limits';
import { peakRssMb, sampleMemory } from './rss-sampler';
import { startSimProcess } from './sim-process';

const TRANSACTIONS = 20_000;
const MONTHS = 18;
const QUERIES = 300;
const BARE_ROUNDS = 3;
const REFRESH_ROUNDS = 5;
/** New card transactions the sub account sees before each refresh (dated then). */
const ARRIVALS = 20;

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const at = (values: number[], q: number) =>
  sorted(values)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? 0;

/**
 * The peak RSS (MB) of this process's children whose command line holds `marker`, sampled
 * every 20 ms from /proc until `stop` (0 when none ran).
 */
function childPeak(marker: string) {
  let peak = 0;
  const timer = setInterval(() => {
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid !== process.pid) continue;
        if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) continue;
        peak = Math.max(peak, peakRssMb(Number(pid)));
      } catch {
        // the process ended between the listing and the read
      }
    }
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

/** A small seeded generator, so every run asks the same distinct queries. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

export async function runTransactionIndexBench() {
  const apiKey = randomBytes(16).toString('hex');
  const sim = await startSimProcess(TRANSACTIONS, apiKey, MONTHS);
  const logger = pino({ level: 'silent' });
  const upstream = createUpstreamClient({ baseUrl: sim.url, apiKey, logger });
  const dir = mkdtempSync(join(tmpdir(), 'cc-bench-index-'));
  const memory = sampleMemory();
  const ctx = { requestId: 'bench-index', bulk: true };
  try {
    const days = daysToWalk(Date.now(), new Map(), new Set());
    const budget = () => walkBudget(WALK_LIMITS.index);

    // The bare walk: the sync's own ranged walk, rows mapped and dropped.
    const bareMs: number[] = [];
    let bareRows = 0;
    for (let round = 0; round < BARE_ROUNDS; round++) {
      let rows = 0;
      const discard = {
        replaceDays: async (_s: string, walked: readonly { rows: readonly unknown[] }[]) => {
          for (const day of walked) rows += day.rows.length;
        },
      } as unknown as TransactionIndexStore;
      const started = performance.now();
      await walkIndexDays(
        { upstream, store: discard, clock: systemClock },
        ctx,
        sim.subAccountId,
        days,
        {
          budget: budget(),
        },
      );
      bareMs.push(performance.now() - started);
      bareRows = rows;
    }

    // A cold start: the engine opened, the schema applied, the first sync stored.
    const rssBefore = process.memoryUsage().rss;
    // The kernel's own high-water mark from here on: a sampler on this event loop misses what
    // happens while WebAssembly instantiates, synchronously.
    writeFileSync('/proc/self/clear_refs', '5');
    const cluster = childPeak('PGlite.create');
    const started = performance.now();
    // As the BFF opens it: on a thread of its own.
    const engine = await embeddedEngine(join(dir, 'transaction-index'), { thread: 'worker' });
    const clusterPeakMb = cluster.stop();
    await applyIndexMigrations(engine, logger);
    const openedMs = performance.now() - started;
    const store = new TransactionIndexStore(engine);
    const jobs = new InProcessJobRunner({
      clock: systemClock,
      cutOff: new AbortController().signal,
      failureMemoryMs: 0,
    });
    const sync = createIndexSync({ upstream, store, jobs, clock: systemClock, logger });
    const job = sync.sync(sim.subAccountId, 'bench-index');
    await job.done;
    const outcome = job.outcome();
    if (!outcome?.ok) throw new Error(`the sync failed: ${String(outcome?.error)}`);
    const coldMs = performance.now() - started;
    const synced = (await store.summary({})).count;

    // The refresh: the open days walked again after new transactions arrived, with the CPU of
    // this process: the thread that reads the answers and the embedded engine's own.
    const refreshMs: number[] = [];
    const refreshCpuMs: number[] = [];
    let openDays = 0;
    for (let round = 0; round < REFRESH_ROUNDS; round++) {
      await sim.arrive(ARRIVALS);
      const now = Date.now();
      const [walked, pending] = await Promise.all([
        store.walkedDays(sim.subAccountId),
        store.pendingDays(sim.subAccountId),
      ]);
      openDays = daysToWalk(now, walked, pending, now).length;
      const cpu = process.cpuUsage();
      const began = performance.now();
      const again = sync.sync(sim.subAccountId, `bench-refresh-${round}`);
      await again.done;
      const refreshed = again.outcome();
      if (!refreshed?.ok) throw new Error(`the refresh failed: ${String(refreshed?.error)}`);
      refreshMs.push(performance.now() - began);
      const used = process.cpuUsage(cpu);
      refreshCpuMs.push((used.user + used.system) / 1000);
    }

    // The screen's queries: distinct combinations of what it offers.
    const sample = (await store.page({}, { sort: 'date', direction: 'desc' }, 500)).items;
    const words = [...new Set(sample.flatMap((t) => (t.merchant ?? t.description).split(/\s+/)))]
      .filter((w) => w.length >= 3)
      .slice(0, 40);
    const random = rng(29);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
    const statuses = ['settled', 'pending', 'declined', 'refund', 'failed'];
    const now = Date.now();
    const queryMs: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const filter: IndexFilter = {};
      if (random() < 0.4) filter.text = pick(words);
      if (random() < 0.4) filter.statuses = statuses.filter(() => random() < 0.4);
      if (random() < 0.3) filter.minCents = Math.floor(random() * 50_000);
      if (random() < 0.5) {
        filter.from = now - Math.floor(random() * 400) * 86_400_000;
        filter.to = filter.from + Math.ceil(random() * 90) * 86_400_000;
      }
      if (random() < 0.2) filter.categoryCodes = [pick(sample).categoryCode ?? '5734'];
      const order: IndexOrder = {
        sort: random() < 0.7 ? 'date' : 'amount',
        direction: random() < 0.8 ? 'desc' : 'asc',
      };
      const t0 = performance.now();
      await Promise.all([store.page(filter, order, 100), store.summary(filter)]);
      queryMs.push(performance.now() - t0);
    }
    const peak = Math.max(memory.stop().peakRss, peakRssMb(process.pid) * 2 ** 20);
    await engine.close();
    return {
      bareRows,
      bareMedianMs: at(bareMs, 0.5),
      syncedRows: synced,
      openedMs,
      coldMs,
      syncOverBare: at(bareMs, 0.5) / (coldMs - openedMs),
      openDays,
      arrivals: ARRIVALS,
      refreshMedianMs: at(refreshMs, 0.5),
      refreshCpuMedianMs: at(refreshCpuMs, 0.5),
      queryP50Ms: at(queryMs, 0.5),
      queryP99Ms: at(queryMs, 0.99),
      rssBeforeMb: rssBefore / 2 ** 20,
      peakRssMb: peak / 2 ** 20,
      clusterPeakMb,
      pages: await sim.pages(),
    };
  } finally {
    memory.stop();
    await upstream.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}
