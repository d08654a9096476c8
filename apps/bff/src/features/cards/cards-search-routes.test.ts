// GET /api/cards with a search (`q`) or a sort by spend or utilisation, over HTTP against the
// simulator: the list is every card the BFF's card directory keeps, matched, ordered and paged by
// the BFF, and each answer equals what the test works out from the simulator's own cards and
// transactions (spend summed by hand from docs/money.md, not by the product's definition).
import { type Card, cardPageSchema } from '@card-console/shared/api/cards';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { cardsMoneySchema, indexCardListSchema } from '@card-console/shared/api/transaction-index';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledAnswer } from '../../test/settled-index';
import { currentUtilizationWindow } from '../transaction-index';

let t: TestApp;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 4_000, subAccounts: 3 } });
  finance = await t.signIn('finance');
}, 60_000);
afterAll(async () => t?.close());
afterEach(() => {
  t.sim.faults.clear();
  t.sim.stats.reset();
});

const PAN_LIKE = /\d{13,19}/;
const collator = new Intl.Collator('en');
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const ids = (cards: readonly { id: string }[]) => cards.map((c) => c.id);

/** Every card of a list, page after page, checking each page's size. */
async function wholeList(path: string, query: Record<string, string>): Promise<Card[]> {
  const cards: Card[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10; pages++) {
    const res = await t.request
      .get(path)
      .query({ ...query, ...(cursor === undefined ? {} : { cursor }) })
      .set(finance.headers());
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const page = cardPageSchema.parse(res.body);
    expect(page.items.length).toBeLessThanOrEqual(25);
    cards.push(...page.items);
    cursor = page.nextCursor;
    if (cursor === undefined) return cards;
    expect(page.items).toHaveLength(25);
  }
  throw new Error('the list never ended');
}

/** The simulator's cards, newest first (the list's order when only searched), ties by id. */
const newestFirst = () =>
  [...t.sim.data.cards()].sort(
    (a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0) || byId(a, b),
  );

describe('GET /api/cards?q=', () => {
  it('finds the card by its last four, typed or copied as it is shown, and never sends its number', async () => {
    const cards = t.sim.data.cards();
    // A last four no other card has, and no name holds.
    const card = cards.find(
      (c) =>
        cards.filter((o) => o.last4.includes(c.last4)).length === 1 &&
        !cards.some((o) => o.name.includes(c.last4)),
    );
    if (!card) throw new Error('no card with a last four of its own');
    const pan = t.sim.data.card(card.id)?.pan ?? '';
    expect(pan).toMatch(/\d{13,19}/);
    for (const q of [card.last4, `•••• ${card.last4}`, ` ${card.last4} `]) {
      const res = await t.request.get('/api/cards').query({ q }).set(finance.headers());
      expect(res.status, q).toBe(200);
      const page = cardPageSchema.parse(res.body);
      expect(ids(page.items), q).toEqual([card.id]);
      expect(page.nextCursor).toBeUndefined();
      expect(page.items[0]).toMatchObject({ last4: card.last4, name: card.name });
      expect(res.text).not.toContain(pan);
      expect(res.text).not.toMatch(PAN_LIKE);
      expect(res.body.items[0]).not.toHaveProperty('pan');
      expect(res.body.items[0]).not.toHaveProperty('cvv');
    }
  });

  it('finds cards by part of a name, in any case, newest first, with the status filter', async () => {
    const cards = t.sim.data.cards();
    const lastName = cards[7]?.name.split(' ')[1] ?? '';
    const part = lastName.slice(1, 4);
    expect(part).toHaveLength(3);
    const q = part.toUpperCase();
    const want = newestFirst().filter((c) => c.name.toLowerCase().includes(part.toLowerCase()));
    expect(want.map((c) => c.id)).toContain(cards[7]?.id);
    expect(ids(await wholeList('/api/cards', { q }))).toEqual(ids(want));
    const active = await wholeList('/api/cards', { q: q.toLowerCase(), status: 'active' });
    expect(ids(active)).toEqual(ids(want.filter((c) => c.status === 'active')));
    const none = await t.request
      .get('/api/cards')
      .query({ q: 'zz no such card zz' })
      .set(finance.headers());
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ items: [] });
  });

  it("pages a long result 25 at a time with the BFF's own cursors, sorted as asked", async () => {
    const q = 'e';
    const want = [...t.sim.data.cards()]
      .filter((c) => c.name.toLowerCase().includes(q))
      .sort((a, b) => collator.compare(a.name, b.name) || byId(a, b));
    expect(want.length).toBeGreaterThan(25);
    const first = await t.request
      .get('/api/cards')
      .query({ q, sort: 'name', direction: 'asc' })
      .set(finance.headers());
    expect(first.body.nextCursor).toEqual(expect.any(String));
    expect(ids(await wholeList('/api/cards', { q, sort: 'name', direction: 'asc' }))).toEqual(
      ids(want),
    );
    expect(ids(await wholeList('/api/cards', { q, sort: 'name', direction: 'desc' }))).toEqual(
      ids(
        [...t.sim.data.cards()]
          .filter((c) => c.name.toLowerCase().includes(q))
          .sort((a, b) => collator.compare(b.name, a.name) || byId(a, b)),
      ),
    );
  });

  it('searching asks the card service nothing once the directory is filled', async () => {
    await wholeList('/api/cards', { q: 'a' });
    t.sim.stats.reset();
    for (const q of ['6', '67', '670', 'an', 'ann']) {
      const res = await t.request.get('/api/cards').query({ q }).set(finance.headers());
      expect(res.status).toBe(200);
    }
    expect(t.sim.stats.count('GET /card')).toBe(0);
  });
});

describe('GET /api/cards?sort=spend|utilization', () => {
  /** docs/money.md by hand: a card's spend is its settled, pending and disputed charges less its refunds. */
  const SPEND = new Set(['pending', 'settled', 'refund', 'dispute']);

  /**
   * Each card's spend in the current window of its utilisation limit, summed from the
   * simulator's rows; none for a card whose row shows no spend (no limit, no amount, no window).
   */
  function expectedSpend(): Map<string, { spentCents: number; limitCents: number }> {
    const rows = t.sim.data.subAccounts().flatMap((s) => t.sim.data.transactions(s.id));
    const out = new Map<string, { spentCents: number; limitCents: number }>();
    for (const card of t.sim.data.cards()) {
      const limit = card.spendingConstraint?.spendingRule?.utilizationLimit;
      const limitCents = limit?.limitAmount?.amountCents;
      const window = limit && currentUtilizationWindow(limit, t.clock.now());
      if (!limitCents || !window) continue;
      const spentCents = rows
        .filter((x) => x.cardId === card.id && SPEND.has(x.status))
        .filter((x) => Date.parse(x.date) >= window.from && Date.parse(x.date) < window.to)
        .reduce((n, x) => n - x.amountCents, 0);
      out.set(card.id, { spentCents, limitCents });
    }
    return out;
  }

  /** The cards by `key` (a card without one last, either way), ties by name then id. */
  function expectedOrder(key: (id: string) => number | undefined, direction: 1 | -1) {
    return [...t.sim.data.cards()].sort((a, b) => {
      const ka = key(a.id);
      const kb = key(b.id);
      if ((ka === undefined) !== (kb === undefined)) return ka === undefined ? 1 : -1;
      const byKey = ka === undefined || kb === undefined ? 0 : direction * (ka - kb);
      return byKey || collator.compare(a.name, b.name) || byId(a, b);
    });
  }

  beforeAll(async () => {
    // The index's first read starts its sync; the sort reads the index once it is done.
    const first = t.sim.data.cards()[0]?.id ?? '';
    await settledAnswer(t, finance, `/api/index/card-money?cardId=${first}`, (body) =>
      cardsMoneySchema.parse(body),
    );
  }, 60_000);

  it('sorts by spend, most first or least first, reconciled with the sums of the rows and the rows the list shows', async () => {
    const spend = expectedSpend();
    expect([...spend.values()].filter((s) => s.spentCents > 0).length).toBeGreaterThan(5);
    const key = (id: string) => spend.get(id)?.spentCents;
    const desc = await wholeList('/api/cards', { sort: 'spend' });
    expect(ids(desc)).toEqual(ids(expectedOrder(key, -1)));
    const asc = await wholeList('/api/cards', { sort: 'spend', direction: 'asc' });
    expect(ids(asc)).toEqual(ids(expectedOrder(key, 1)));
    // The first card spent the most; the cards showing no spend come last both ways.
    const most = Math.max(...[...spend.values()].map((s) => s.spentCents));
    expect(key(desc[0]?.id ?? '')).toBe(most);
    expect(desc.slice(spend.size).every((c) => !spend.has(c.id))).toBe(true);
    expect(asc.slice(spend.size).every((c) => !spend.has(c.id))).toBe(true);

    // The figures each row shows (the index's `card-money`) are the ones summed here.
    const query = ids(desc)
      .map((id) => `cardId=${encodeURIComponent(id)}`)
      .join('&');
    const money = cardsMoneySchema.parse(
      (await t.request.get(`/api/index/card-money?${query}`).set(finance.headers())).body,
    );
    for (const card of money.cards) {
      const want = spend.get(card.cardId);
      if (want) expect(card.utilization?.spentCents, card.cardId).toBe(want.spentCents);
    }
  });

  it('sorts by utilisation (spend over the limit), with the search and the status filter', async () => {
    const spend = expectedSpend();
    const share = (id: string) => {
      const s = spend.get(id);
      return s && s.spentCents / s.limitCents;
    };
    expect(ids(await wholeList('/api/cards', { sort: 'utilization' }))).toEqual(
      ids(expectedOrder(share, -1)),
    );
    const q = 'a';
    const active = await wholeList('/api/cards', {
      q,
      status: 'active',
      sort: 'utilization',
      direction: 'asc',
    });
    expect(ids(active)).toEqual(
      ids(
        expectedOrder(share, 1).filter(
          (c) => c.status === 'active' && c.name.toLowerCase().includes(q),
        ),
      ),
    );
  });

  it("a sub account's cards are searched and sorted by spend the same way", async () => {
    const spend = expectedSpend();
    const sub = t.sim.data.subAccounts()[0]?.id ?? '';
    const inSub = new Set(
      t.sim.data.transactions(sub).flatMap((x) => (x.cardId === undefined ? [] : [x.cardId])),
    );
    const res = await t.request
      .get('/api/index/cards')
      .query({ subAccountId: sub, q: 'E', sort: 'spend' })
      .set(finance.headers());
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const body = indexCardListSchema.parse(res.body);
    const want = expectedOrder((id) => spend.get(id)?.spentCents, -1).filter(
      (c) => inSub.has(c.id) && c.name.toLowerCase().includes('e'),
    );
    expect(want.length).toBeGreaterThan(3);
    expect(ids(body.items)).toEqual(ids(want));
  });
});

describe('GET /api/cards: what a search or a money sort refuses', () => {
  it('a search too long, an unknown sort, a repeated search or a card service cursor is a clear 400', async () => {
    // A cursor the card service gave means nothing to the BFF's own list.
    const first = await t.request.get('/api/cards').set(finance.headers());
    const serviceCursor = cardPageSchema.parse(first.body).nextCursor ?? '';
    expect(serviceCursor).not.toBe('');
    t.sim.stats.reset();
    for (const [query, about] of [
      [`q=${'6'.repeat(101)}`, /q/],
      ['sort=spending', /sort/],
      ['sort=utilisation', /sort/],
      ['q=6707&q=1234', /q/],
      [`sort=spend&cursor=${encodeURIComponent(serviceCursor)}`, /cursor/],
      ['q=6707&cursor=at:0', /cursor/],
      ['q=6707&cursor=at:x', /cursor/],
    ] as const) {
      const res = await t.request.get(`/api/cards?${query}`).set(finance.headers());
      expect(res.status, query).toBe(400);
      const problem = apiErrorBodySchema.parse(res.body);
      expect(problem.code, query).toBe('invalid_query');
      expect(problem.detail, query).toMatch(about);
    }
    expect(t.sim.stats.count('GET /card')).toBe(0);
  });
});
