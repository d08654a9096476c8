// A sync stopped mid-walk (its process shut down, or killed with its database connections)
// resumes where it stopped: on the embedded engine and on PostgreSQL, against the simulator over
// HTTP, the sync that follows asks the card service for no day the stopped one had finished,
// goes on with each range it had open from the cursor of the last page it kept, and the index
// ends with every row of the history window once, none lost and none doubled.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import { useBothEngines } from '../../test/engines/sql-replicas';
import { testClient, useSimulator } from '../../test/upstream-client';
import type { UpstreamClient } from '../../upstream/client';
import { clientDefaults } from '../../upstream/client-options';
import { TransactionIndexStore } from './index-store';
import { INDEX_HISTORY_DAYS, indexSyncWork, newSyncProgress, utcDay } from './index-sync';

const DAY_MS = 86_400_000;
/** What a page of an older range waits more than a newer one's, in a stopped sync. */
const SLOW_PAGE_MS = 120;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const upstream = useSimulator({
  subAccounts: 2,
  transactions: 20_000,
  months: 12,
  rateLimit: false,
});

const both = useBothEngines();

/**
 * A client of its own (a process of its own) that lists each transaction page's dates asked. It
 * waits for an answer as long as the product does (not the test client's 2 s): the simulator
 * answers from this test's thread, which the embedded engine's writes hold, on a loaded machine,
 * for up to 1.6 s at a time (measured with `monitorEventLoopDelay` during a clean clone's run),
 * and what is tested here is where a sync resumes, not how long the card service may take.
 */
function recordingClient(slowBefore?: number) {
  const { client } = testClient(upstream.url, {
    attemptTimeoutMs: clientDefaults.attemptTimeoutMs,
    deadlineMs: clientDefaults.deadlineMs,
  });
  const asked: { from: number; to: number; cursor?: string }[] = [];
  const recording: UpstreamClient = {
    ...client,
    listTransactionsDeferred(ctx, query) {
      asked.push({
        from: query.fromDate ?? 0,
        to: query.toDate ?? Date.now(),
        ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      });
      if (slowBefore !== undefined && (query.fromDate ?? 0) < slowBefore) {
        return sleep(SLOW_PAGE_MS).then(() => client.listTransactionsDeferred(ctx, query));
      }
      return client.listTransactionsDeferred(ctx, query);
    },
  };
  return { client: recording, asked };
}

/**
 * The UTC days a page asked for reads. A range below another asks for one millisecond past its
 * end (`upstream/ranged-walk.ts`), the first of the next day, and keeps none of it: that day is
 * not read.
 */
function daysOf(ask: { from: number; to: number }): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${utcDay(ask.from)}T00:00Z`); at < ask.to; at += DAY_MS) {
    days.push(utcDay(at));
  }
  return days;
}

/**
 * Runs one sync of `sub` on `engine` as a fresh process would; `stopWhen` (told the days done
 * and the pages asked so far) stops it mid-walk, and pages of ranges starting before
 * `slowBefore` answer `SLOW_PAGE_MS` later.
 */
async function sync(
  engine: SqlEngine,
  sub: string,
  stopWhen?: (daysDone: number, pagesAsked: number) => boolean | Promise<boolean>,
  slowBefore?: number,
) {
  const { client, asked } = recordingClient(slowBefore);
  const work = indexSyncWork({
    upstream: client,
    store: new TransactionIndexStore(engine),
    clock: systemClock,
    logger: silentLogger,
  });
  const stop = new AbortController();
  const progress = newSyncProgress();
  const job = { key: sub, progress, signal: stop.signal };
  let watching = true;
  const watcher = (async () => {
    while (watching && stopWhen && !stop.signal.aborted) {
      if (await stopWhen(progress.daysDone, asked.length)) {
        stop.abort(new Error('the process stopped'));
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  const ended = await work(sub, { requestId: `req-${sub}`, freshForMs: 60_000 }, job).then(
    () => 'synced' as const,
    (error: unknown) => (error as Error).message,
  );
  watching = false;
  await watcher;
  return { ended, asked, progress };
}

/** The simulator's ids of the history window: what the index must hold of `sub`. */
function serviceIds(sub: string): string[] {
  const from = Date.parse(`${utcDay(Date.now() - (INDEX_HISTORY_DAYS - 1) * DAY_MS)}T00:00Z`);
  return upstream.sim.data
    .transactions(sub)
    .filter((t) => Date.parse(t.date) >= from)
    .map((t) => t.id)
    .sort();
}

async function indexedIds(engine: SqlEngine, sub: string): Promise<string[]> {
  const rows = await engine.query<{ id: string }>(
    'SELECT id FROM index_transaction WHERE sub_account_id = $1',
    [sub],
  );
  return rows.map((r) => r.id).sort();
}

describe.each([
  [
    'the embedded engine',
    () => ({ engine: both.embedded, kill: async () => {}, reader: both.embedded }),
  ],
  [
    'PostgreSQL, the stopped process’s connections closed with it',
    () => {
      const dying = both.postgres.replica(4);
      return { engine: dying, kill: () => dying.close(), reader: both.postgres.owner };
    },
  ],
] as const)('a sync stopped mid-walk resumes where it stopped: %s', (_name, open) => {
  it('walks no day the stopped sync finished, and the index ends with every row once', async () => {
    const { engine, kill, reader } = open();
    const sub = upstream.sim.data.subAccounts()[_name.startsWith('the embedded') ? 0 : 1]
      ?.id as string;
    // Stopped once about a third of the sub account’s pages (about 200) were asked for and a
    // range holding rows is written. A paced walk sizes its ranges to end together, and days are
    // written a range at a time, so the ranges starting before the sub account's middle row
    // answer slower: the newer ones end, their days written, while the older ones are open.
    // (Sized alike, a clean clone's run once stopped with every range ended, and another with
    // only the empty years before the data done, leaving no finished day's rows to check.)
    const dates = upstream.sim.data
      .transactions(sub)
      .map((t) => Date.parse(t.date))
      .sort((x, y) => x - y);
    const middle = dates[Math.floor(dates.length / 2)] as number;
    const daysWithRows = new Set(dates.map(utcDay));
    const watching = new TransactionIndexStore(engine);
    const first = await sync(
      engine,
      sub,
      async (done, pages) => {
        if (done === 0 || pages < 60) return false;
        return [...(await watching.walkedDays(sub)).keys()].some((day) => daysWithRows.has(day));
      },
      middle,
    );
    await kill();
    expect(first.ended).toBe('the process stopped');

    const store = new TransactionIndexStore(reader);
    const finished = new Set((await store.walkedDays(sub)).keys());
    expect(finished.size).toBeGreaterThan(0);
    expect(finished.size).toBeLessThan(INDEX_HISTORY_DAYS);
    // What the stopped sync finished is in the index whole: every row of those days.
    const ids = serviceIds(sub);
    const rowsOfFinished = upstream.sim.data
      .transactions(sub)
      .filter((t) => finished.has(utcDay(Date.parse(t.date))));
    expect(rowsOfFinished.length).toBeGreaterThan(0);
    const kept = new Set(await indexedIds(reader, sub));
    expect(rowsOfFinished.every((t) => kept.has(t.id))).toBe(true);

    // The ranges the stopped sync had open go on from the pages it kept: each one's next page
    // is asked with the cursor its last kept page gave, and none of them from its start again.
    const openRanges = (await store.openRanges(sub)).filter((range) => range.next !== undefined);
    expect(openRanges.length).toBeGreaterThan(0);

    const second = await sync(reader === both.embedded ? engine : both.postgres.a, sub);
    expect(second.ended).toBe('synced');
    expect(second.progress.days).toBe(INDEX_HISTORY_DAYS - finished.size);
    const walkedAgain = second.asked.flatMap(daysOf).filter((day) => finished.has(day));
    expect(walkedAgain).toEqual([]);
    for (const range of openRanges) {
      const its = second.asked.filter((ask) => ask.from === range.from);
      expect(its[0]).toEqual({ from: range.from, to: range.askTo, cursor: range.next });
      expect(its.filter((ask) => ask.cursor === undefined)).toEqual([]);
    }
    expect(await store.openRanges(sub)).toEqual([]);
    // Every row once: the same ids as the card service's, none missing, none twice.
    expect(await indexedIds(reader, sub)).toEqual(ids);
    expect((await store.summary({ subAccountIds: [sub] })).count).toBe(ids.length);
  }, 60_000);
});
