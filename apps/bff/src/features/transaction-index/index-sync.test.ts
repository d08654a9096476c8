import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock';
import { InProcessJobRunner } from '../../platform/jobs/in-process-job-runner';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { testPan } from '../../test/test-pan';
import { testClient, useSimulator } from '../../test/upstream-client';
import type { UpstreamClient } from '../../upstream/client';
import { type IndexedTransaction, TransactionIndexStore } from './index-store';
import type { IndexRowsWritten } from './index-sync';
import {
  createIndexSync,
  daysToWalk,
  INDEX_HISTORY_DAYS,
  INDEX_SETTLING_DAYS,
  runsOf,
  syncDoneAt,
  toIndexed,
  utcDay,
} from './index-sync';

describe('which days a sync walks', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  it('first: the whole history window, oldest first, ending today', () => {
    const days = daysToWalk(now, new Map(), new Set());
    expect(days).toHaveLength(INDEX_HISTORY_DAYS);
    expect(days.at(-1)).toBe('2026-11-26');
    expect(runsOf(days)).toEqual([days]);
  });
  it('then: the settling window and days with pending rows only', () => {
    const walked = new Map(daysToWalk(now, new Map(), new Set()).map((d) => [d, now]));
    const days = daysToWalk(now, walked, new Set(['2026-10-02', '2026-10-04']));
    expect(days).toEqual([
      '2026-10-02',
      '2026-10-04',
      ...Array.from({ length: INDEX_SETTLING_DAYS + 1 }, (_, i) =>
        utcDay(now - (INDEX_SETTLING_DAYS - i) * 86_400_000),
      ),
    ]);
    expect(runsOf(days)).toEqual([['2026-10-02'], ['2026-10-04'], days.slice(2)]);
  });
  it('days walked since `freshSince` are not walked again, open or not; unwalked ones always are', () => {
    const walked = new Map(daysToWalk(now, new Map(), new Set()).map((d) => [d, now - 1_000]));
    walked.delete('2026-11-01');
    expect(daysToWalk(now, walked, new Set(['2026-10-02']), now - 30_000)).toEqual(['2026-11-01']);
    expect(daysToWalk(now, walked, new Set(['2026-10-02']), now)).toContain('2026-10-02');
  });
});

describe("a running sync's estimated end", () => {
  const startedAt = Date.parse('2026-11-26T12:00:00Z');
  it('is the days left at the pace the days read so far took, from now', () => {
    // 100 of 400 days in 60 s: 300 days left at 0.6 s a day.
    const now = startedAt + 60_000;
    expect(syncDoneAt({ days: 400, daysDone: 100, rows: 5_000, startedAt }, now)).toBe(
      now + 180_000,
    );
    expect(syncDoneAt({ days: 400, daysDone: 400, rows: 5_000, startedAt }, now)).toBe(now);
  });
  it('while it expects more pages than it has read, is its pages left at the pace of its pages so far', () => {
    // 40 of about 200 pages in 20 s, no day done yet: 160 pages left at 0.5 s a page.
    const now = startedAt + 20_000;
    const progress = { days: 732, daysDone: 0, rows: 0, startedAt, pages: 40, pagesExpected: 200 };
    expect(syncDoneAt(progress, now)).toBe(now + 80_000);
    // Past what it expected (the first page's density said too few): its days tell instead.
    expect(syncDoneAt({ ...progress, pages: 250, daysDone: 366 }, now)).toBe(now + 20_000);
    expect(syncDoneAt({ ...progress, pages: 250 }, now)).toBe(undefined);
  });
  it('is unknown before a day is read, or from a job that never said when it began', () => {
    expect(syncDoneAt({ days: 400, daysDone: 0, rows: 0, startedAt }, startedAt + 5_000)).toBe(
      undefined,
    );
    expect(syncDoneAt({ days: 400, daysDone: 10, rows: 90 }, startedAt)).toBe(undefined);
  });
});

describe('syncing the index from the card service (simulator over HTTP)', () => {
  const upstream = useSimulator({ subAccounts: 2, transactions: 3_000, months: 3 });
  let engine: SqlEngine;
  let store: TransactionIndexStore;
  beforeAll(async () => {
    engine = await migratedMemoryEngine();
    store = new TransactionIndexStore(engine);
  }, 60_000);
  afterAll(() => engine?.close());
  beforeEach(() =>
    engine.query(
      'TRUNCATE index_transaction, index_sync_day, index_hour_tally, index_day_key_tally, index_month_key_tally, index_sync_range_page',
    ),
  );

  const sync = (
    on: TransactionIndexStore = store,
    client: UpstreamClient = testClient(upstream.url).client,
    rowsWritten?: IndexRowsWritten,
  ) =>
    createIndexSync({
      ...(rowsWritten ? { rowsWritten } : {}),
      upstream: client,
      store: on,
      jobs: new InProcessJobRunner({
        clock: systemClock,
        cutOff: new AbortController().signal,
        failureMemoryMs: 0,
      }),
      clock: systemClock,
      logger: silentLogger,
    });

  async function indexed(subAccountId: string): Promise<IndexedTransaction[]> {
    const out: IndexedTransaction[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.page(
        { subAccountIds: [subAccountId] },
        { sort: 'date', direction: 'desc' },
        500,
        cursor,
      );
      out.push(...page.items);
      cursor = page.next;
    } while (cursor);
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The simulator's own rows of the history window, as the index should hold them. */
  function expected(subAccountId: string, now: number): IndexedTransaction[] {
    const from = Date.parse(`${utcDay(now - (INDEX_HISTORY_DAYS - 1) * 86_400_000)}T00:00:00Z`);
    return upstream.sim.data
      .transactions(subAccountId)
      .filter((t) => Date.parse(t.date) >= from)
      .map((t) => ({ subAccountId, ...toIndexed(t as never) }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  it('a first sync holds exactly the service rows of every day, and a second walks only the open days', async () => {
    const sub = upstream.sim.data.subAccounts()[0]?.id as string;
    const s = sync();
    const job = s.sync(sub, 'req-sync-1');
    await job.done;
    expect(job.outcome()).toMatchObject({ ok: true });
    const want = expected(sub, Date.now());
    expect(want.length).toBeGreaterThan(500);
    expect(await indexed(sub)).toEqual(want);
    const firstPages = upstream.sim.stats.count('GET /transaction');
    // Its progress counted every page it used (a first page the ranges do not reuse is asked
    // again), and expected pages from its first page's density: more than it used here, as the
    // newest days are the densest (what its estimate then says errs long).
    expect(job.progress.pages).toBeGreaterThan(firstPages / 2);
    expect(job.progress.pages).toBeLessThanOrEqual(firstPages);
    expect(job.progress.pagesExpected).toBeGreaterThanOrEqual(job.progress.pages ?? 0);

    upstream.sim.stats.reset();
    const again = sync().sync(sub, 'req-sync-2');
    await again.done;
    expect(again.progress.days).toBeLessThan(INDEX_HISTORY_DAYS / 4);
    expect(upstream.sim.stats.count('GET /transaction')).toBeLessThan(firstPages / 2);
    expect(await indexed(sub)).toEqual(want);
  }, 60_000);

  it('counts the rows it wrote as read before the alerts are told of them', async () => {
    const sub = upstream.sim.data.subAccounts()[0]?.id as string;
    let job: ReturnType<ReturnType<typeof createIndexSync>['sync']> | undefined;
    let handed = 0;
    const counted: [number, number][] = [];
    // The alerts' evaluation of a write: its rows are in the index, so in the count.
    const s = sync(store, undefined, async ({ rows }) => {
      handed += rows.length;
      counted.push([job?.progress.rows ?? -1, handed]);
    });
    job = s.sync(sub, 'req-sync-counted');
    await job.done;
    expect(job.outcome()).toMatchObject({ ok: true });
    expect(counted.length).toBeGreaterThan(0);
    expect(counted).toEqual(counted.map(([, sum]) => [sum, sum]));
    expect(job.progress.rows).toBe(expected(sub, Date.now()).length);
  }, 60_000);

  describe("while the index's writes wait", () => {
    // Small pages: over 200 of them, walked as about 20 ranges, at most 4 at once (the pace's ceiling).
    const paged = useSimulator({
      subAccounts: 1,
      transactions: 3_000,
      months: 3,
      pageSize: { transactions: 10 },
      // No 429's hold for a pause in the pages to be taken for the walk's end.
      rateLimit: false,
    });

    it('the walk reads on: every page asked before the first write ends, the index whole once they do', async () => {
      const sub = paged.sim.data.subAccounts()[0]?.id as string;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let writesBegun = 0;
      const held = new Proxy(store, {
        get(target, property) {
          if (property === 'replaceDays') {
            return async (...args: Parameters<TransactionIndexStore['replaceDays']>) => {
              writesBegun += 1;
              await gate;
              return target.replaceDays(...args);
            };
          }
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const job = sync(held, testClient(paged.url, { bulkConcurrency: 4 }).client).sync(
        sub,
        'req-behind',
      );
      // Until no page has been asked for 300 ms: the walk has read all it will while writes wait.
      const pages = () => paged.sim.stats.count('GET /transaction');
      let asked = -1;
      while (asked !== pages()) {
        asked = pages();
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      // One write began and waits; the ranges that ended meanwhile wait to be written with it.
      expect(writesBegun).toBe(1);
      expect(job.outcome()).toBeUndefined();
      release();
      await job.done;
      expect(job.outcome()).toMatchObject({ ok: true });
      expect(pages()).toBe(asked);
      const from = Date.parse(
        `${utcDay(Date.now() - (INDEX_HISTORY_DAYS - 1) * 86_400_000)}T00:00:00Z`,
      );
      const want = paged.sim.data
        .transactions(sub)
        .filter((t) => Date.parse(t.date) >= from)
        .map((t) => ({ subAccountId: sub, ...toIndexed(t as never) }))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      // At 10 rows a page, every row's page was asked before the first write ended.
      expect(asked).toBeGreaterThanOrEqual(want.length / 10);
      expect(await indexed(sub)).toEqual(want);
    }, 60_000);
  });

  it('a card number in a description reaches the index masked to its last four', async () => {
    const sub = upstream.sim.data.subAccounts()[1]?.id as string;
    const newest = upstream.sim.data.transactions(sub)[0];
    if (!newest) throw new Error('no transaction');
    const pan = testPan(3);
    upstream.sim.testing.setTransactionText(newest.id, { description: `refund to ${pan}` });
    await sync().sync(sub, 'req-sync-3').done;
    const row = (await indexed(sub)).find((t) => t.id === newest.id);
    expect(row?.description).toContain(pan.slice(-4));
    expect(JSON.stringify(await indexed(sub))).not.toContain(pan);
  }, 60_000);

  describe('pages a stopped sync kept', () => {
    const DAY = 86_400_000;
    const dayStart = (day: string) => Date.parse(`${day}T00:00:00.000Z`);
    /** The simulator's busiest day of `sub` in the window's settled part, and its rows. */
    function busyDay(sub: string) {
      const settled = utcDay(Date.now() - 10 * DAY);
      const byDay = new Map<string, IndexedTransaction[]>();
      for (const t of expected(sub, Date.now())) {
        const day = utcDay(Date.parse(t.at));
        if (day < settled) byDay.set(day, [...(byDay.get(day) ?? []), t]);
      }
      const [day, rows] = [...byDay].sort((a, b) => b[1].length - a[1].length)[0] ?? [];
      if (!day || !rows || rows.length < 3) throw new Error('no busy day');
      return { day, rows: rows.map(({ subAccountId: _, ...row }) => row) };
    }

    it('a range whose cursor the card service no longer takes is walked again from its start: every row once', async () => {
      const sub = upstream.sim.data.subAccounts()[0]?.id as string;
      const { day, rows } = busyDay(sub);
      const from = dayStart(day);
      await store.saveRangePages(
        sub,
        [
          {
            from,
            to: from + DAY - 1,
            askTo: from + DAY,
            page: 1,
            next: 'a cursor long gone',
            rows: rows.slice(0, 2),
          },
        ],
        Date.now(),
      );
      const job = sync().sync(sub, 'req-kept-1');
      await job.done;
      expect(job.outcome()).toMatchObject({ ok: true });
      expect(await indexed(sub)).toEqual(expected(sub, Date.now()));
      expect(await store.openRanges(sub)).toEqual([]);
    }, 60_000);

    it('a range read to its end is written as kept, without asking again; kept pages a day old are forgotten', async () => {
      const sub = upstream.sim.data.subAccounts()[1]?.id as string;
      const { day, rows } = busyDay(sub);
      const from = dayStart(day);
      const older = dayStart(utcDay(from - 3 * DAY));
      const ghost = (id: string, at: number) =>
        ({ ...rows[0], id, at: new Date(at).toISOString() }) as (typeof rows)[number];
      // Read to its end (no cursor): its rows are what the day holds, the one kept row only.
      await store.saveRangePages(
        sub,
        [
          {
            from,
            to: from + DAY - 1,
            askTo: from + DAY - 1,
            page: 1,
            rows: [ghost('kept-row', from + 1)],
          },
        ],
        Date.now(),
      );
      // Kept a day ago: forgotten, its day walked as any other.
      await store.saveRangePages(
        sub,
        [
          {
            from: older,
            to: older + DAY - 1,
            askTo: older + DAY - 1,
            page: 1,
            rows: [ghost('stale-row', older + 1)],
          },
        ],
        Date.now() - 24 * 3_600_000 - 1,
      );
      const job = sync().sync(sub, 'req-kept-2');
      await job.done;
      expect(job.outcome()).toMatchObject({ ok: true });
      const ids = (await indexed(sub)).map((t) => t.id);
      expect(ids).toContain('kept-row');
      expect(ids).not.toContain('stale-row');
      expect(ids.filter((id) => rows.some((r) => r.id === id))).toEqual([]);
      expect(await store.openRanges(sub)).toEqual([]);
    }, 60_000);
  });

  it('two asks at once share one sync: every page is read once', async () => {
    const sub = upstream.sim.data.subAccounts()[0]?.id as string;
    const alone = sync();
    await alone.sync(sub, 'req-a').done;
    const once = upstream.sim.stats.count('GET /transaction');
    await engine.query(
      'TRUNCATE index_transaction, index_sync_day, index_hour_tally, index_day_key_tally, index_month_key_tally',
    );
    upstream.sim.stats.reset();
    const shared = sync();
    const [a, b] = [shared.sync(sub, 'req-b'), shared.sync(sub, 'req-c')];
    expect(b).toBe(a);
    await a.done;
    expect(upstream.sim.stats.count('GET /transaction')).toBe(once);
  }, 60_000);
});
