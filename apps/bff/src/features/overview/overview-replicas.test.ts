// Two BFF replicas sharing one real PostgreSQL for their per-day aggregates, over real HTTP
// against one simulator: a new period asked of both at once comes out right on both, and is
// walked once in all (the replicas share the computation through a lock in PostgreSQL: one walks, the
// other waits its turn and finds the days done), and what one replica stored the other
// answers from without walking.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase } from '../../test/engines/postgres';
import { expectedOverview, settledOverview } from '../../test/expected-overview';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { unreachableIndex } from '../../test/unreachable-index';

const NOW = Date.UTC(2026, 10, 20, 15);

describe('the Overview on two replicas sharing one PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let a: TestApp;
  let b: TestApp;
  let onA: TestSession;

  beforeAll(async () => {
    database = await testDatabase();
    const clock = new ManualClock(NOW);
    const shared = { databaseUrl: database.url };
    const env = { sessionSecret: randomBytes(32).toString('hex') };
    a = await startTestApp({
      // The Overview's own walk: as when the index cannot answer.
      stores: unreachableIndex(),
      clock,
      shared,
      env,
      sim: { transactions: 6_000, now: () => NOW, rateLimit: false },
      recordSimRequests: true,
    });
    b = await startTestApp({
      // The Overview's own walk: as when the index cannot answer.
      stores: unreachableIndex(),
      clock,
      shared,
      env,
      upstreamOf: a,
    });
    onA = await a.signIn('finance');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.stop();
  });

  const transactionPages = (since: number) =>
    a.simRequests
      .slice(since)
      .filter((r) => r.method === 'GET' && r.url.startsWith('/transaction?'))
      .map((r) => r.url);
  const ask = (app: TestApp, query: Record<string, string>) =>
    app.request.get('/api/overview').query(query).set(onA.headers());

  it('a new period asked of both at once: right on both, walked at most once by each', async () => {
    a.sim.faults.set({ latencyMs: 3 });
    const query = { from: '2026-05-01', to: '2026-06-30', tz: 'America/Chicago' };
    const mark = a.simRequests.length;
    const first = await Promise.all(Array.from({ length: 8 }, (_, i) => ask(i % 2 ? b : a, query)));
    for (const res of first) expect(res.status).toBe(200);
    const expected = expectedOverview(a, query);
    for (const app of [a, b]) {
      const done = await settledOverview(app, onA, query);
      expect(done.status).toBe('complete');
      const { status: _s, updatedAt: _u, ...rest } = done;
      expect(rest).toEqual(expected);
    }
    a.sim.faults.clear();
    // Each page was asked for by at most one walk per replica.
    const pages = transactionPages(mark);
    expect(pages.length).toBeGreaterThan(0);
    const times = new Map<string, number>();
    for (const url of pages) times.set(url, (times.get(url) ?? 0) + 1);
    expect(Math.max(...times.values())).toBeLessThanOrEqual(2);

    // Every day of it is final and shared: either replica answers without walking.
    const again = a.simRequests.length;
    for (const app of [b, a]) {
      const res = await ask(app, query);
      expect(res.body.status).toBe('complete');
      const { status: _s, updatedAt: _u, ...rest } = res.body;
      expect(rest).toEqual(expected);
    }
    expect(transactionPages(again)).toEqual([]);
  });

  it('a new period asked of both at once is walked once in all: they share the computation', async () => {
    a.sim.faults.set({ latencyMs: 3 });
    const sub = a.sim.data.subAccounts()[2]?.id ?? '';
    const query = { subAccountId: sub, from: '2026-03-01', to: '2026-04-15', tz: 'Europe/Berlin' };
    const mark = a.simRequests.length;
    const first = await Promise.all([ask(a, query), ask(b, query), ask(b, query), ask(a, query)]);
    for (const res of first) expect(res.body.status).toBe('computing');
    for (const app of [b, a]) {
      const done = await settledOverview(app, onA, query);
      expect(done.status).toBe('complete');
      const { status: _s, updatedAt: _u, ...rest } = done;
      expect(rest).toEqual(expectedOverview(a, query));
    }
    a.sim.faults.clear();
    const pages = transactionPages(mark);
    expect(pages.length).toBeGreaterThan(1);
    expect(new Set(pages).size).toBe(pages.length);
  });

  it('a period one replica computed is complete at once on the other', async () => {
    const sub = a.sim.data.subAccounts()[1]?.id ?? '';
    const query = { subAccountId: sub, from: '2026-02-01', to: '2026-03-31', tz: 'Asia/Kolkata' };
    expect((await settledOverview(a, onA, query)).status).toBe('complete');
    const mark = a.simRequests.length;
    const onB = await ask(b, query);
    expect(onB.status).toBe(200);
    expect(onB.body.status).toBe('complete');
    const { status: _s, ...rest } = onB.body;
    expect(rest).toEqual(expectedOverview(a, query));
    expect(transactionPages(mark)).toEqual([]);
  });
});
