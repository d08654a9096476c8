// GET /api/index/transactions over HTTP, against the simulator: the first read starts the
// sync and says so; once synced, every answer (filters in the URL, search, paging, count and
// sums) equals a brute-force pass over the simulator's own rows.
import { indexAnswerSchema } from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { INDEX_HISTORY_DAYS, INDEX_SETTLING_DAYS, utcDay } from './index-sync';

let t: TestApp;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 4_000, subAccounts: 3 } });
  finance = await t.signIn('finance');
}, 60_000);
afterAll(async () => t?.close());

const ask = (query: string) =>
  t.request.get(`/api/index/transactions${query}`).set(finance.headers());

/** Every row of the simulator the index holds: every sub account's, within the history window. */
function simRows() {
  const from = Date.parse(
    `${utcDay(t.clock.now() - (INDEX_HISTORY_DAYS - 1) * 86_400_000)}T00:00:00Z`,
  );
  return t.sim.data
    .subAccounts()
    .flatMap((s) => t.sim.data.transactions(s.id).map((x) => ({ ...x, subAccountId: s.id })))
    .filter((x) => Date.parse(x.date) >= from);
}

const sums = (rows: { amountCents: number }[]) => ({
  count: rows.length,
  debitCents: rows.reduce((n, x) => n + Math.max(-x.amountCents, 0), 0),
  creditCents: rows.reduce((n, x) => n + Math.max(x.amountCents, 0), 0),
});

describe('GET /api/index/transactions', () => {
  it('the first read starts the sync and says so; then the whole set is there, with its sums', async () => {
    const first = await ask('');
    expect(first.status).toBe(200);
    expect(indexAnswerSchema.parse(first.body).freshness.syncing).toBe(true);
    let body = indexAnswerSchema.parse(first.body);
    for (let tries = 0; body.freshness.syncing && tries < 300; tries++) {
      await new Promise((r) => setTimeout(r, 100));
      body = indexAnswerSchema.parse((await ask('')).body);
    }
    expect(body.freshness).toMatchObject({ syncing: false, updatedAt: expect.any(Number) });
    const rows = simRows();
    expect(rows.length).toBeGreaterThan(1_000);
    expect(body.summary).toEqual(sums(rows));
    expect(body.items).toHaveLength(100);
    const dates = body.items.map((x) => Date.parse(x.date));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    expect(new Set(body.items.map((x) => x.subAccountId)).size).toBeGreaterThan(1);
  }, 60_000);

  it('Refresh reads the open days again (at most once in 5 s); a plain read within the refresh age does not', async () => {
    const settle = async (query: string) => {
      let body = indexAnswerSchema.parse((await ask(query)).body);
      for (let tries = 0; body.freshness.syncing && tries < 300; tries++) {
        await new Promise((r) => setTimeout(r, 50));
        body = indexAnswerSchema.parse((await ask('')).body);
      }
      return body;
    };
    const before = await settle('');
    const sub = t.sim.data.subAccounts()[0]?.id as string;
    // A row of an open day (the settling window), which Refresh reads again.
    const openFrom = `${utcDay(t.clock.now() - INDEX_SETTLING_DAYS * 86_400_000)}T00:00:00Z`;
    const newest = t.sim.data
      .transactions(sub)
      .find((x) => Date.parse(x.date) >= Date.parse(openFrom));
    if (!newest) throw new Error('no transaction in the open days');
    t.sim.testing.setTransactionText(newest.id, { description: 'Renamed after the sync' });
    const pages = () => t.sim.stats.count('GET /transaction');

    t.clock.advance(10_000);
    const start = pages();
    const plain = await settle('?q=renamed after');
    expect(pages()).toBe(start);
    expect(plain.summary.count).toBe(0);
    expect(plain.freshness.updatedAt).toBe(before.freshness.updatedAt);

    const refreshed = await settle('?refresh=1');
    expect(pages()).toBeGreaterThan(start);
    expect(refreshed.freshness.updatedAt).toBeGreaterThan(before.freshness.updatedAt as number);
    expect(indexAnswerSchema.parse((await ask('?q=renamed after')).body).summary.count).toBe(1);

    t.clock.advance(2_000);
    const again = pages();
    await settle('?refresh=1');
    expect(pages()).toBe(again);
  }, 60_000);

  it('several statuses, an amount range and sub accounts in the URL: exactly the matching rows, page by page', async () => {
    const subs = t.sim.data.subAccounts().map((s) => s.id);
    const want = simRows()
      .filter((x) => ['declined', 'failed'].includes(x.status))
      .filter((x) => Math.abs(x.amountCents) >= 1_000 && Math.abs(x.amountCents) <= 500_000)
      .filter((x) => x.subAccountId === subs[0] || x.subAccountId === subs[2]);
    expect(want.length).toBeGreaterThan(10);
    const query = new URLSearchParams([
      ['status', 'declined'],
      ['status', 'failed'],
      ['minCents', '1000'],
      ['maxCents', '500000'],
      ['subAccountId', subs[0] as string],
      ['subAccountId', subs[2] as string],
      ['sort', 'amount'],
      ['limit', '7'],
    ]);
    const seen: string[] = [];
    let cursor: string | undefined;
    let summary: unknown;
    do {
      const res = await ask(`?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      const body = indexAnswerSchema.parse(res.body);
      summary = body.summary;
      seen.push(...body.items.map((x) => x.id));
      cursor = body.nextCursor;
    } while (cursor);
    expect(summary).toEqual(sums(want));
    expect(seen.sort()).toEqual(want.map((x) => x.id).sort());
  }, 30_000);

  it('searches the description, the merchant and the reference number, in any case', async () => {
    const sample = simRows().find((x) => x.merchantData)?.merchantData?.description as string;
    const word = sample.split(/\s+/)[0] as string;
    const want = simRows().filter((x) =>
      [x.description, x.merchantData?.description ?? '', x.referenceNumber]
        .join('\n')
        .toLowerCase()
        .includes(word.toLowerCase()),
    );
    const res = await ask(`?q=${encodeURIComponent(word.toUpperCase())}`);
    expect(res.status).toBe(200);
    expect(indexAnswerSchema.parse(res.body).summary.count).toBe(want.length);
    expect(want.length).toBeGreaterThan(0);
  });

  it.each([
    ['?status=nope', /status/],
    ['?status[x]=declined', /status/],
    ['?q=a&q=b', /"q" must appear once/],
    ['?minCents=5&maxCents=1', /minCents/],
    ['?minCents=-5', /minCents/],
    ['?limit=500', /limit/],
    ['?from=10&to=5', /from/],
    [`?q=${'x'.repeat(201)}`, /q/],
    ['?cursor=not-one-of-ours', /cursor/],
    [
      '?sort=amount&cursor=WyJkYXRlLmRlc2MiLCIyMDI2LTAxLTAxVDAwOjAwOjAwLjAwMFoiLCJhIiwiYiJd',
      /cursor/,
    ],
    ['?unknown=1', /unknown/i],
    ['?refresh=yes', /refresh/],
  ])('%s is a 400 that says what is wrong', async (query, why) => {
    const res = await ask(query);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.detail).toMatch(why);
  });
});
