// Two BFF replicas sharing one PostgreSQL (the index) and the shared state beside it (sessions and the lock the
// sync takes per sub account), over real HTTP against one simulator: asked at once, each sub
// account is synced once in all, both answer the same whole set from the shared index, and
// either answers the Overview from it without reading the card service; a merchant an admin
// names on one is named on the other at its next request, and so is a card's owner (given on
// both at once, in one spelling).
import { randomBytes } from 'node:crypto';
import {
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase } from '../../test/engines/postgres';
import { expectedOverview, settledOverview } from '../../test/expected-overview';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { replicaStores } from '../../test/replica-stores';

const NOW = Date.UTC(2026, 10, 20, 15);

describe('the transaction index on two replicas sharing one PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let a: TestApp;
  let b: TestApp;
  let finance: TestSession;
  let clock: ManualClock;

  beforeAll(async () => {
    database = await testDatabase();
    clock = new ManualClock(NOW);
    const shared = { databaseUrl: database.url };
    const env = { sessionSecret: randomBytes(32).toString('hex') };
    // Each replica its own pool on the one database, as two processes would have.
    const index = () => replicaStores(database.url);
    a = await startTestApp({
      clock,
      shared,
      env,
      sim: { transactions: 5_000, subAccounts: 3, now: () => NOW, rateLimit: false },
      recordSimRequests: true,
      stores: index(),
    });
    b = await startTestApp({ clock, shared, env, upstreamOf: a, stores: index() });
    finance = await a.signIn('finance');
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.stop();
  });

  const ask = (app: TestApp, path = '/api/index/transactions') =>
    app.request.get(path).set(finance.headers());
  /** The answer at `path` on `app` once no sync runs. */
  async function settled<T extends { freshness: { syncing: boolean } }>(
    app: TestApp,
    path: string,
    parse: (body: unknown) => T,
  ): Promise<T> {
    for (let tries = 0; tries < 300; tries++) {
      const body = parse((await ask(app, path)).body);
      if (!body.freshness.syncing) return body;
      // Time passes while one replica syncs and the other waits its turn: the days the first
      // walked are seconds old, not stale, when the second gets the lock.
      clock.advance(200);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the sync did not end');
  }
  /** The list's first page, and the whole set's figures, on `app` once synced. */
  const page = (app: TestApp) =>
    settled(app, '/api/index/transactions', (body) => indexPageSchema.parse(body));
  const totals = (app: TestApp) =>
    settled(app, '/api/index/transactions/totals', (body) => indexTotalsAnswerSchema.parse(body));

  it('asked of both at once: every page of every sub account read once in all, the same answer on both', async () => {
    const first = await Promise.all([ask(a), ask(b), ask(a), ask(b)]);
    for (const res of first) expect(res.status).toBe(200);
    const [onA, onB] = [await page(a), await page(b)];
    expect(onB).toEqual(onA);
    const [totalsOnA, totalsOnB] = [await totals(a), await totals(b)];
    expect(totalsOnB).toEqual(totalsOnA);
    expect(totalsOnA.summary.count).toBeGreaterThan(1_000);

    // Each sync reads the card service under the request id of the read that started it:
    // one sync per sub account in all means one request id per sub account among the four
    // asked at once. (The waits above move the test's clock while they poll: on a slow machine
    // far enough that today's rows are due again, and a later read refreshes them under its own
    // id, as it should; a clean-clone run under load saw that.)
    const asked = new Set(first.map((res) => String(res.headers['x-request-id'])));
    const syncsOf = new Map<string, Set<string>>();
    for (const r of a.simRequests) {
      if (r.method !== 'GET' || !r.url.startsWith('/transaction?')) continue;
      if (!asked.has(String(r.headers['x-request-id']))) continue;
      const sub = new URL(r.url, 'http://x').searchParams.get('subAccountId') as string;
      const ids = syncsOf.get(sub) ?? new Set<string>();
      ids.add(String(r.headers['x-request-id']));
      syncsOf.set(sub, ids);
    }
    const subs = a.sim.data.subAccounts().map((s) => s.id);
    expect([...syncsOf.keys()].sort()).toEqual([...subs].sort());
    for (const ids of syncsOf.values()) expect(ids.size).toBe(1);
  }, 60_000);

  it('the Overview from the shared index on either replica: no upstream page, the brute force’s figures', async () => {
    await page(a);
    const pages = () => a.simRequests.filter((r) => r.url.startsWith('/transaction')).length;
    for (const [app, tz] of [
      [b, 'Asia/Kolkata'],
      [a, 'America/Los_Angeles'],
    ] as const) {
      const q = { from: '2026-10-01', to: '2026-10-31', tz };
      const before = pages();
      const got = await settledOverview(app, finance, q);
      expect(pages(), 'no upstream page: the index holds the period').toBe(before);
      expect(got.status).toBe('complete');
      const { status: _s, progress: _p, updatedAt: _u, ...rest } = got;
      expect(rest).toEqual(expectedOverview(a, q, { categoryCodes: true }));
      expect(rest.totals.count).toBeGreaterThan(100);
    }
  }, 60_000);

  it('a merchant named on one replica goes by that name on the other at its next request', async () => {
    await page(a);
    const admin = await a.signIn('admin');
    const sub = a.sim.data.subAccounts()[0];
    const text = (sub ? a.sim.data.transactions(sub.id) : []).find((t) => t.merchantData)
      ?.merchantData?.description as string;
    const merchantOn = async (app: TestApp) => {
      const res = await app.request
        .get(`/api/index/merchant?descriptor=${encodeURIComponent(text)}`)
        .set(finance.headers());
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { name: string; descriptors: string[] };
    };
    const listedOn = async (app: TestApp, name: string) => {
      const res = await app.request
        .get(`/api/index/transactions/totals?merchantName=${encodeURIComponent(name)}`)
        .set(finance.headers());
      return indexTotalsAnswerSchema.parse(res.body).summary.count;
    };
    // Both replicas have grouped the index's texts (once a minute each) before the change.
    const before = await merchantOn(b);
    expect((await merchantOn(a)).name).toBe(before.name);
    const count = await listedOn(b, before.name);
    expect(count).toBeGreaterThan(0);
    const named = await a.request
      .put('/api/index/merchants/name')
      .set(admin.headers())
      .send({ merchant: before.name, name: 'Named On Replica A' });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    expect((await merchantOn(b)).name).toBe('Named On Replica A');
    expect(await listedOn(b, 'Named On Replica A')).toBe(count);
    expect(await listedOn(b, before.name)).toBe(0);
    const undone = await b.request
      .delete('/api/index/merchants/name?merchant=Named%20On%20Replica%20A')
      .set(admin.headers());
    expect(undone.status).toBe(200);
    expect((await merchantOn(a)).name).toBe(before.name);
  }, 60_000);

  it("a card's owner set on one replica is the card's on the other at its next request; set on both at once, one spelling", async () => {
    await page(a);
    const admin = await a.signIn('admin');
    const [first, second, third] = a.sim.data.cards().map((c) => c.id);
    const cardOn = async (app: TestApp, cardId: string) => {
      const res = await app.request.get(`/api/cards/${cardId}`).set(finance.headers());
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { owner?: { name: string }; team?: string };
    };
    const set = (app: TestApp, cardId: string, name: string, team: string | null) =>
      app.request
        .put(`/api/cards/${cardId}/owner`)
        .set(admin.headers())
        .send({ owner: { name }, team });
    expect((await set(a, first as string, 'Rhea Lind', 'Field')).status).toBe(200);
    expect(await cardOn(b, first as string)).toMatchObject({
      owner: { name: 'Rhea Lind' },
      team: 'Field',
    });
    const totalsOn = async (app: TestApp, query: string) => {
      const res = await app.request
        .get(`/api/index/transactions/totals?${query}`)
        .set(finance.headers());
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return indexTotalsAnswerSchema.parse(res.body);
    };
    const rhea = (await totalsOn(b, 'by=owner')).breakdown?.groups.find(
      (g) => g.key === 'Rhea Lind',
    );
    const firstCard = (await totalsOn(a, `cardId=${first}`)).summary;
    expect(rhea?.count).toBe(firstCard.count);
    expect(rhea?.buckets).toEqual(firstCard.buckets);
    // A new owner given to two cards at once, one on each replica, typed two ways: both land,
    // shown the one way on either replica.
    const [onA, onB] = await Promise.all([
      set(a, second as string, 'Tom Okafor', null),
      set(b, third as string, 'TOM  okafor', null),
    ]);
    expect([onA.status, onB.status]).toEqual([200, 200]);
    const names = [
      (await cardOn(a, third as string)).owner?.name,
      (await cardOn(b, second as string)).owner?.name,
    ];
    expect(names[0]).toBe(names[1]);
    expect(['Tom Okafor', 'TOM  okafor']).toContain(names[0]);
    const both = await totalsOn(a, 'owner=tom%20okafor');
    const cardsOf = await totalsOn(b, `cardId=${second}&cardId=${third}`);
    expect(both.summary).toEqual(cardsOf.summary);
  }, 60_000);
});
