// The paying card's name and last 4, and the merchant category's name, on transactions read
// through the real BFF from the simulator: joined from the card directory, whose walks of the
// card list are counted at the simulator.
import { transactionPageSchema, transactionSchema } from '@card-console/shared/api/transactions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cardValuesSeen } from '../../test/card-values';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

/** Pages of the card list one walk reads: 60 cards, 25 a page. */
const WALK_PAGES = 3;

describe('transactions name their card and merchant category', () => {
  let t: TestApp;
  let finance: TestSession;
  let admin: TestSession;
  let subId: string;

  beforeAll(async () => {
    t = await startTestApp({ sim: { transactions: 2_000 } });
    finance = await t.signIn('finance');
    admin = await t.signIn('admin');
    subId = t.sim.data.subAccounts()[0]?.id ?? '';
  });
  afterAll(async () => t.close());
  afterEach(() => {
    t.sim.faults.clear();
    t.sim.stats.reset();
  });

  const list = (query: Record<string, string> = {}) =>
    t.request
      .get('/api/transactions')
      .query({ subAccountId: subId, ...query })
      .set(finance.headers());

  it('many first reads at once share one walk of the card list, and later reads make none', async () => {
    const pages = await Promise.all(Array.from({ length: 12 }, () => list()));
    expect(pages.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(t.sim.stats.count('GET /card')).toBe(WALK_PAGES);
    for (let i = 0; i < 5; i++) expect((await list()).status).toBe(200);
    const detail = await t.request
      .get(`/api/transactions/${pages[0]?.body.items[0].id}`)
      .set(finance.headers());
    expect(detail.status).toBe(200);
    expect(t.sim.stats.count('GET /card')).toBe(WALK_PAGES);
    // No per-row card reads either.
    expect(t.sim.stats.count('GET /card/:id')).toBe(0);
  });

  it('every row of a page names its card (name and last 4) and its merchant category', async () => {
    const page = transactionPageSchema.parse((await list()).body);
    const withCard = page.items.filter((x) => x.cardId);
    expect(withCard.length).toBeGreaterThan(10);
    for (const row of withCard) {
      const card = t.sim.data.card(row.cardId ?? '');
      expect(row.card, row.id).toEqual({ name: card?.name, last4: card?.last4 });
    }
    const named = page.items.filter((x) => x.merchant);
    expect(named.length).toBeGreaterThan(10);
    for (const row of named) expect(row.merchant?.categoryName, row.id).toMatch(/\w/);
    const restaurant = page.items.find((x) => x.merchant?.categoryCode === '5812');
    if (restaurant) expect(restaurant.merchant?.categoryName).toBe('Eating places and Restaurants');
  });

  it('the detail names its card and merchant category too', async () => {
    const upstream = t.sim.data.transactions(subId).find((x) => x.cardId && x.merchantData);
    if (!upstream?.cardId || !upstream.merchantData) throw new Error('no card transaction');
    const res = await t.request.get(`/api/transactions/${upstream.id}`).set(finance.headers());
    expect(res.status).toBe(200);
    const card = t.sim.data.card(upstream.cardId);
    expect(transactionSchema.parse(res.body)).toMatchObject({
      cardId: upstream.cardId,
      card: { name: card?.name, last4: card?.last4 },
      merchant: {
        categoryCode: upstream.merchantData.categoryCode,
        categoryName: expect.any(String),
      },
    });
  });

  it('a card renamed through Card Console shows its new name at once', async () => {
    const row = (await list()).body.items.find((x: { cardId?: string }) => x.cardId);
    const cardId: string = row.cardId;
    const patch = await t.request
      .patch(`/api/cards/${cardId}`)
      .set(admin.headers())
      .send({ name: 'Travel desk', expected: cardValuesSeen(t.sim, cardId) });
    expect(patch.status).toBe(200);
    const again = await list({ cardId });
    expect(again.body.items.length).toBeGreaterThan(0);
    for (const x of again.body.items) expect(x.card.name).toBe('Travel desk');
    // From the directory, not from another walk.
    expect(t.sim.stats.count('GET /card')).toBe(0);
  });

  it('a card the directory cannot name keeps its id and no name; an unknown category has no name', async () => {
    t.sim.faults.enqueue({
      kind: 'body',
      route: 'GET /transaction',
      body: {
        items: [
          {
            id: 'txn_unknown_card',
            date: '2026-01-02T03:04:05.000Z',
            description: 'Somewhere',
            amountCents: -1_000,
            status: 'settled',
            referenceNumber: 'R1',
            cardId: 'card_not_listed',
            merchantData: { description: 'Somewhere', categoryCode: '0001' },
          },
        ],
        metadata: {},
      },
    });
    const res = await list();
    expect(res.status).toBe(200);
    const [row] = transactionPageSchema.parse(res.body).items;
    expect(row).toMatchObject({ cardId: 'card_not_listed' });
    expect(row).not.toHaveProperty('card');
    expect(row?.merchant).toEqual({ description: 'Somewhere', categoryCode: '0001' });
  });

  it('a stale directory is refreshed in the background: a rename elsewhere shows after its age', async () => {
    const row = (await list()).body.items.find((x: { cardId?: string }) => x.cardId);
    const cardId: string = row.cardId;
    // Renamed at the card service directly, as another tool (or another replica) would.
    const direct = await fetch(`${t.simUrl}/card/${cardId}`, {
      method: 'PATCH',
      headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Renamed elsewhere' }),
    });
    expect(direct.status).toBe(200);
    t.sim.stats.reset();

    const fresh = await list({ cardId });
    expect(fresh.body.items[0].card.name).not.toBe('Renamed elsewhere');
    expect(t.sim.stats.count('GET /card')).toBe(0);

    t.clock.advance(60_000);
    // This read is served the old name; it starts the walk that brings the new one.
    const stale = await list({ cardId });
    expect(stale.status).toBe(200);
    await expect.poll(() => t.sim.stats.count('GET /card')).toBe(WALK_PAGES);
    await expect
      .poll(async () => (await list({ cardId })).body.items[0].card.name)
      .toBe('Renamed elsewhere');
  });
});

describe('when the card list cannot be read', () => {
  let t: TestApp;
  let finance: TestSession;
  let subId: string;

  beforeAll(async () => {
    t = await startTestApp({ sim: { transactions: 500 } });
    finance = await t.signIn('finance');
    subId = t.sim.data.subAccounts()[0]?.id ?? '';
  });
  afterAll(async () => t.close());

  it('transactions are still served, with card ids and no names, and names come once it can', async () => {
    // 500 is not retried: the first fill fails at once.
    t.sim.faults.enqueue({ kind: 'status', status: 500, route: 'GET /card' });
    const res = await t.request
      .get('/api/transactions')
      .query({ subAccountId: subId })
      .set(finance.headers());
    expect(res.status).toBe(200);
    const withCard = res.body.items.filter((x: { cardId?: string }) => x.cardId);
    expect(withCard.length).toBeGreaterThan(0);
    for (const x of withCard) expect(x).not.toHaveProperty('card');
    expect(t.logs.some((l) => l.includes('card directory refresh failed'))).toBe(true);

    // After the retry gap the next read fills the directory.
    t.clock.advance(10_000);
    const later = await t.request
      .get('/api/transactions')
      .query({ subAccountId: subId })
      .set(finance.headers());
    const named = later.body.items.filter((x: { cardId?: string }) => x.cardId);
    for (const x of named) expect(x.card?.name).toBe(t.sim.data.card(x.cardId)?.name);
  });
});
