// GET /api/overview over real HTTP against the simulator: shared computations, only
// days that can still change walked again, progress while a new period is walked, a failed
// walk that keeps what was known, and bad input.
import { overviewSchema } from '@card-console/shared/api/overview';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectedOverview, settledOverview } from '../../test/expected-overview';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { unreachableIndex } from '../../test/unreachable-index';
import { SETTLING_DAYS } from './day-aggregate';
import { MIN_REFRESH_MS, RETRY_AFTER_FAILURE_MS } from './overview-service';

const NOW = Date.UTC(2026, 10, 20, 15);
const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('GET /api/overview', () => {
  let t: TestApp;
  let finance: TestSession;
  let admin: TestSession;
  let sub: string;

  beforeAll(async () => {
    t = await startTestApp({
      // The Overview's own walk: as when the index cannot answer.
      stores: unreachableIndex(),
      sim: { transactions: 6_000, now: () => NOW, rateLimit: false },
      clock: new ManualClock(NOW),
      recordSimRequests: true,
    });
    finance = await t.signIn('finance');
    admin = await t.signIn('admin');
    sub = t.sim.data.subAccounts()[0]?.id ?? '';
  });
  afterAll(async () => t.close());
  afterEach(() => {
    t.sim.faults.clear();
  });

  const ask = (query: Record<string, string>, session = finance) =>
    t.request.get('/api/overview').query(query).set(session.headers());
  /** The transaction pages the simulator was asked for since `mark`, as (from, to) bounds. */
  const walkedSince = (mark: number) =>
    t.simRequests
      .slice(mark)
      .filter((r) => r.method === 'GET' && r.url.startsWith('/transaction?'))
      .map((r) => new URL(r.url, 'http://sim.invalid'));

  it('identical concurrent requests share one walk', async () => {
    // Sub account 3's quiet days well in the past: none pending, so once known, all final.
    const quiet = t.sim.data.subAccounts()[3]?.id ?? '';
    const rows = t.sim.data.transactions(quiet);
    const pendingDays = new Set(
      rows.filter((x) => x.status === 'pending').map((x) => day(Date.parse(x.date))),
    );
    let end = NOW - 30 * DAY_MS;
    const clean = (to: number) =>
      Array.from({ length: 40 }, (_, i) => day(to - i * DAY_MS)).every((d) => !pendingDays.has(d));
    while (!clean(end)) end -= DAY_MS;
    const query = { subAccountId: quiet, from: day(end - 19 * DAY_MS), to: day(end), tz: 'UTC' };
    t.sim.faults.set({ latencyMs: 5 });
    const mark = t.simRequests.length;
    const answers = await Promise.all(Array.from({ length: 8 }, () => ask(query)));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body.status).toBe('computing');
    }
    const done = await settledOverview(t, finance, query);
    expect(done.status).toBe('complete');
    const urls = walkedSince(mark).map((u) => u.search);
    expect(urls.length).toBeGreaterThan(1);
    // A second walk would ask for every page again.
    expect(new Set(urls).size).toBe(urls.length);
    // Every day known and final: asking again reads nothing.
    const again = t.simRequests.length;
    expect((await ask(query)).body.status).toBe('complete');
    expect(walkedSince(again)).toEqual([]);
  });

  it('a period never computed answers at once with progress, then complete', async () => {
    t.sim.faults.set({ latencyMs: 3 });
    const query = { from: '2026-06-01', to: '2026-08-31', tz: 'Europe/Paris' };
    const first = await ask(query);
    expect(first.status).toBe(200);
    const body = overviewSchema.parse(first.body);
    expect(body.status).toBe('computing');
    expect(body.progress?.rowsRead).toBeGreaterThanOrEqual(0);
    let last = body.progress?.rowsRead ?? 0;
    let estimated = false;
    for (;;) {
      const now = overviewSchema.parse((await ask(query)).body);
      if (now.status !== 'computing') {
        expect(now.status).toBe('complete');
        expect(now.progress).toBeUndefined();
        const { status: _s, ...rest } = now;
        expect(rest).toEqual(expectedOverview(t, query));
        break;
      }
      const read = now.progress?.rowsRead ?? -1;
      expect(read).toBeGreaterThanOrEqual(last);
      last = read;
      if (now.progress?.rowsEstimated !== undefined) {
        estimated = true;
        expect(now.progress.rowsEstimated).toBeGreaterThanOrEqual(read);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(last).toBeGreaterThan(0);
    expect(estimated).toBe(true);
  });

  it('days that can still change are read again once 30 s old, or 5 s old on refresh', async () => {
    const query = { subAccountId: sub, from: '2026-10-01', to: '2026-11-20', tz: 'UTC' };
    const first = await settledOverview(t, admin, query);
    expect(first.status).toBe('complete');
    // Read at the clock's time: the period holds today, which can still change.
    expect(first.updatedAt).toBe(new Date(t.clock.now()).toISOString());
    // Within the 30 s: nothing is read again.
    let mark = t.simRequests.length;
    t.clock.advance(29_000);
    expect(overviewSchema.parse((await ask(query, admin)).body)).toEqual(first);
    expect(walkedSince(mark)).toEqual([]);

    // Non-final: pending transactions, or within the settling window (UTC here).
    const today = day(NOW);
    const cutoff = day(Date.parse(today) - SETTLING_DAYS * DAY_MS);
    const pending = new Set(
      t.sim.data
        .transactions(sub)
        .filter((x) => x.status === 'pending')
        .map((x) => day(Date.parse(x.date))),
    );
    const open = (d: string) => d >= cutoff || pending.has(d);
    /** The days walked since `mark`: only open ones, and every open one of both periods. */
    const expectOpenDaysWalked = () => {
      const walked = walkedSince(mark);
      expect(walked.length).toBeGreaterThan(0);
      const seen = new Set<string>();
      for (const url of walked) {
        const from = Number(url.searchParams.get('from_date'));
        const to = Number(url.searchParams.get('to_date'));
        for (let d = from - (from % DAY_MS); d <= to - 1; d += DAY_MS) {
          expect(open(day(d)), `${day(d)} walked again`).toBe(true);
          seen.add(day(d));
        }
      }
      expect(seen.has(today)).toBe(true);
      for (let d = Date.parse('2026-08-11'); d <= NOW; d += DAY_MS) {
        if (open(day(d))) expect(seen.has(day(d)), day(d)).toBe(true);
      }
    };

    // 30 s after it was read: the open days are read again, and only they.
    t.clock.advance(1_000);
    mark = t.simRequests.length;
    const second = overviewSchema.parse((await ask(query, admin)).body);
    expect(second).toEqual({ ...first, updatedAt: new Date(t.clock.now()).toISOString() });
    expectOpenDaysWalked();

    // Asked to refresh: read again once 5 s old, well within the 30 s; pressed again at once,
    // nothing more is read (however often Refresh is pressed).
    t.clock.advance(MIN_REFRESH_MS - 1);
    mark = t.simRequests.length;
    const early = overviewSchema.parse((await ask({ ...query, refresh: '1' }, admin)).body);
    expect(early.updatedAt).toBe(second.updatedAt);
    expect(walkedSince(mark)).toEqual([]);
    t.clock.advance(1);
    const refreshed = overviewSchema.parse((await ask({ ...query, refresh: '1' }, admin)).body);
    expect(refreshed.updatedAt).toBe(new Date(t.clock.now()).toISOString());
    expectOpenDaysWalked();
    mark = t.simRequests.length;
    await ask({ ...query, refresh: '1' }, admin);
    expect(walkedSince(mark)).toEqual([]);
    expect((await ask({ ...query, refresh: 'yes' }, admin)).status).toBe(400);

    // A period whose days are all final says nothing of when it was read.
    const old = { subAccountId: sub, from: '2026-08-01', to: '2026-08-31', tz: 'UTC' };
    const settled = await settledOverview(t, admin, old);
    expect(settled.status).toBe('complete');
    expect(settled.updatedAt).toBeUndefined();
  });

  it('a failed walk says so, keeps the days it knew, and a later request walks again', async () => {
    const known = { subAccountId: sub, from: '2026-07-01', to: '2026-07-31', tz: 'Asia/Tokyo' };
    expect((await settledOverview(t, finance, known)).status).toBe('complete');
    // Ten days earlier: the period is known (the previous one was walked with July), the
    // period before it is not.
    const wider = { ...known, from: '2026-06-21' };
    t.sim.faults.enqueue({ kind: 'status', status: 500, route: 'GET /transaction' });
    const failed = await settledOverview(t, finance, wider);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/\w/);
    // When a read computes it again: RETRY_AFTER_FAILURE_MS after the failure, the first in a row.
    expect(failed.retryAt).toBe(new Date(t.clock.now() + RETRY_AFTER_FAILURE_MS).toISOString());
    const expected = expectedOverview(t, wider);
    expect(failed.totals).toEqual(expected.totals);
    expect(failed.series).toEqual(expected.series);
    expect(failed.previousTotals?.count).toBeLessThan(expected.previousTotals?.count ?? 0);
    // Answered failed for a while, without walking.
    const mark = t.simRequests.length;
    expect((await ask(wider)).body.status).toBe('failed');
    expect(walkedSince(mark)).toEqual([]);
    t.clock.advance(RETRY_AFTER_FAILURE_MS);
    const again = await settledOverview(t, finance, wider);
    expect(again.status).toBe('complete');
    const { status: _s, ...rest } = again;
    expect(rest).toEqual(expected);
    expect(t.logs.some((l) => l.includes('overview walk failed'))).toBe(true);
  });

  it('bad input is a 400 with an error body; an unknown sub account a 404', async () => {
    const base = { from: '2026-01-01', to: '2026-01-31', tz: 'UTC' };
    const bad = [
      { ...base, tz: 'Mars/Olympus_Mons' },
      { ...base, tz: '+02:00' },
      { ...base, from: '2026-02-01' },
      { ...base, from: '2025-01-01' },
      { ...base, to: '2026-02-30' },
      { ...base, to: '2026-1-31' },
      { ...base, extra: '1' },
      { from: base.from, to: base.to },
    ];
    for (const query of bad) {
      const res = await ask(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body).toMatchObject({ status: 400, code: 'invalid_query' });
      expect(res.body.detail).toMatch(/\w/);
    }
    const longest = await ask({ ...base, from: '2025-01-31', to: '2026-01-31', tz: 'UTC' });
    expect(longest.status).toBe(200);
    expect(longest.body.granularity).toBe('week');
    const missing = await ask({ ...base, subAccountId: 'sa_missing0000' });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 404, code: 'sub_account_not_found' });
  });
});
