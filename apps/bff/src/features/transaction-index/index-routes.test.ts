// GET /api/index/transactions and its totals over HTTP, against the simulator: the first read
// starts the sync and says so; once synced, every answer (filters in the URL, search, paging,
// and the totals' count and sums) equals a brute-force pass over the simulator's own rows.
import {
  CARD_MONEY_MAX,
  cardSubAccountsSchema,
  cardsMoneySchema,
  categoryCatalogSchema,
  indexCardListSchema,
  indexCardSchema,
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import { transactionStatuses } from '@card-console/shared/upstream/enums';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadWhole, parseCsv } from '../../test/csv';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { INDEX_HISTORY_DAYS, INDEX_SETTLING_DAYS, utcDay } from './index-sync';
import { currentUtilizationWindow } from './utilization-window';

let t: TestApp;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 4_000, subAccounts: 3 } });
  finance = await t.signIn('finance');
}, 60_000);
afterAll(async () => t?.close());

const ask = (query: string) =>
  t.request.get(`/api/index/transactions${query}`).set(finance.headers());
/** The totals of the set `query` gives (the list's filter, no order or page). */
const askTotals = (query: string) =>
  t.request.get(`/api/index/transactions/totals${query}`).set(finance.headers());
const totalsOf = async (query: string) => {
  const res = await askTotals(query);
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  return indexTotalsAnswerSchema.parse(res.body);
};

/** The list `query` asks for once no sync runs (asking again without it while one does). */
async function settle(query: string) {
  let body = indexPageSchema.parse((await ask(query)).body);
  for (let tries = 0; body.freshness.syncing && tries < 300; tries++) {
    await new Promise((r) => setTimeout(r, 50));
    body = indexPageSchema.parse((await ask('')).body);
  }
  expect(body.freshness.syncing).toBe(false);
  return body;
}

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

type SimRow = { amountCents: number; status: string; cardId?: string | undefined };
/** docs/money.md's table by hand (not the product's definition): a row's bucket. */
const bucketOf = (x: SimRow) => {
  if (x.status === 'reversed') return 'released';
  if (['declined', 'canceled', 'failed'].includes(x.status)) return 'attempted';
  if (x.status === 'returned') return 'returned';
  if (x.cardId) return x.amountCents < 0 ? 'card' : 'refund';
  return x.amountCents < 0 ? 'payment' : 'transfer';
};
/** The figures of rows: each in its bucket; posted = settled, refund and dispute rows. */
const sums = (rows: SimRow[]) => {
  const bucket = (name: string) => {
    const of = rows.filter((x) => bucketOf(x) === name);
    const pending = of.filter((x) => x.status === 'pending');
    const cents = (list: SimRow[]) => list.reduce((n, x) => n + x.amountCents, 0);
    return {
      count: of.length,
      cents: cents(of),
      pendingCount: pending.length,
      pendingCents: cents(pending),
    };
  };
  const posted = rows.filter((x) => ['settled', 'refund', 'dispute'].includes(x.status));
  return {
    count: rows.length,
    buckets: Object.fromEntries(
      ['card', 'refund', 'payment', 'transfer', 'released', 'attempted', 'returned'].map((b) => [
        b,
        bucket(b),
      ]),
    ),
    posted: { count: posted.length, cents: posted.reduce((n, x) => n + x.amountCents, 0) },
  };
};

describe('GET /api/index/transactions', () => {
  it('the first read starts the sync and says so; then the whole set is there, with its sums', async () => {
    const first = await ask('');
    expect(first.status).toBe(200);
    expect(indexPageSchema.parse(first.body).freshness.syncing).toBe(true);
    let body = indexPageSchema.parse(first.body);
    const whileSyncing = [body.freshness];
    for (let tries = 0; body.freshness.syncing && tries < 300; tries++) {
      await new Promise((r) => setTimeout(r, 100));
      body = indexPageSchema.parse((await ask('')).body);
      whileSyncing.push(body.freshness);
    }
    expect(body.freshness).toMatchObject({ syncing: false, updatedAt: expect.any(Number) });
    // The running syncs' estimated end comes once they have read pages or days, never after.
    for (const f of whileSyncing) {
      if (!f.syncing) expect(f.doneAt).toBeUndefined();
      else if (f.daysDone > 0) expect(f.doneAt).toBeGreaterThanOrEqual(t.clock.now());
    }
    expect(body.freshness.doneAt).toBeUndefined();
    const rows = simRows();
    expect(rows.length).toBeGreaterThan(1_000);
    const totals = await totalsOf('');
    expect(totals.freshness).toEqual(body.freshness);
    expect(totals.summary).toEqual(sums(rows));
    expect(body.items).toHaveLength(100);
    const dates = body.items.map((x) => Date.parse(x.date));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    expect(new Set(body.items.map((x) => x.subAccountId)).size).toBeGreaterThan(1);
  }, 60_000);

  it("each sub account's posted total is the card service's balance, its card spend the service's spend", async () => {
    // The service's own figures (the simulator's ledger, not the product's definition) agree
    // with docs/money.md's: a balance counts the posted rows (settled, refund, dispute), never
    // a returned, reversed, pending or attempted one; spend is card spend. Its whole history is
    // in the index (18 months, within the history window).
    await settle('');
    const subs = t.sim.data.subAccounts();
    expect(subs.length).toBe(3);
    let balances = 0;
    for (const s of subs) {
      const rows = simRows().filter((x) => x.subAccountId === s.id);
      expect(rows.some((x) => x.status === 'returned')).toBe(true);
      const { summary } = await totalsOf(`?subAccountId=${encodeURIComponent(s.id)}`);
      expect(summary.posted.cents, `${s.id}'s balance`).toBe(s.balance.amountCents);
      expect(
        0 - (summary.buckets.card.cents + summary.buckets.refund.cents),
        `${s.id}'s spend`,
      ).toBe(s.spend.amountCents);
      balances += s.balance.amountCents;
    }
    expect((await totalsOf('')).summary.posted.cents).toBe(balances);
  });

  it('Refresh reads the open days again (at most once in 5 s); a plain read within the refresh age does not', async () => {
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
    const plain = await totalsOf('?q=renamed after');
    expect(plain.freshness.syncing).toBe(false);
    expect(pages()).toBe(start);
    expect(plain.summary.count).toBe(0);
    expect(plain.freshness.updatedAt).toBe(before.freshness.updatedAt);

    const refreshed = await settle('?refresh=1');
    expect(pages()).toBeGreaterThan(start);
    expect(refreshed.freshness.updatedAt).toBeGreaterThan(before.freshness.updatedAt as number);
    expect((await totalsOf('?q=renamed after')).summary.count).toBe(1);

    t.clock.advance(2_000);
    const again = pages();
    await settle('?refresh=1');
    expect(pages()).toBe(again);
  }, 60_000);

  it('a sync that fails shows as failed with its reason, and is tried again on a schedule, not by every read', async () => {
    await settle('');
    const pages = () => t.sim.stats.count('GET /transaction');
    const refused =
      "The card service refused this program's key. An administrator has been alerted.";
    t.sim.faults.enqueue(
      ...Array.from({ length: 100 }, () => ({
        kind: 'status' as const,
        status: 403,
        route: 'GET /transaction',
      })),
    );
    try {
      t.clock.advance(10_000);
      const first = await settle('?refresh=1');
      expect(first.freshness.failed).toEqual({
        reason: refused,
        at: t.clock.now(),
        retryAt: t.clock.now() + 5_000,
      });
      // Reads (and Refresh) before then join the failure: nothing is asked of the card service.
      const asked = pages();
      t.clock.advance(4_999);
      for (let i = 0; i < 5; i++) {
        const again = await settle('?refresh=1');
        expect(again.freshness.failed).toEqual(first.freshness.failed);
      }
      expect(pages()).toBe(asked);
      // Then it is tried again; failing a second time in a row, it waits four times longer.
      t.clock.advance(1);
      const second = await settle('?refresh=1');
      expect(pages()).toBeGreaterThan(asked);
      expect(second.freshness.failed).toEqual({
        reason: refused,
        at: t.clock.now(),
        retryAt: t.clock.now() + 20_000,
      });
    } finally {
      t.sim.faults.clear();
    }
    t.clock.advance(20_000);
    const healed = await settle('?refresh=1');
    expect(healed.freshness.failed).toBeUndefined();
    expect(healed.freshness.updatedAt).toBe(t.clock.now());
  }, 60_000);

  it('several statuses, an amount range and sub accounts in the URL: exactly the matching rows, page by page', async () => {
    const subs = t.sim.data.subAccounts().map((s) => s.id);
    const want = simRows()
      .filter((x) => ['declined', 'failed'].includes(x.status))
      .filter((x) => Math.abs(x.amountCents) >= 1_000 && Math.abs(x.amountCents) <= 500_000)
      .filter((x) => x.subAccountId === subs[0] || x.subAccountId === subs[2]);
    expect(want.length).toBeGreaterThan(10);
    const filter = new URLSearchParams([
      ['status', 'declined'],
      ['status', 'failed'],
      ['minCents', '1000'],
      ['maxCents', '500000'],
      ['subAccountId', subs[0] as string],
      ['subAccountId', subs[2] as string],
    ]);
    const query = new URLSearchParams([...filter, ['sort', 'amount'], ['limit', '7']]);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await ask(`?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      const body = indexPageSchema.parse(res.body);
      seen.push(...body.items.map((x) => x.id));
      cursor = body.nextCursor;
    } while (cursor);
    expect((await totalsOf(`?${filter}`)).summary).toEqual(sums(want));
    expect(seen.sort()).toEqual(want.map((x) => x.id).sort());
  }, 30_000);

  it('rows with a card or without, and rows given no decline reason: exactly those, with their sums', async () => {
    const rows = simRows().filter((x) => ['settled', 'declined', 'failed'].includes(x.status));
    const reasons = [
      ...new Set(rows.map((x) => x.declineReason).filter((r): r is string => !!r?.trim())),
    ];
    const [reason] = reasons;
    if (!reason) throw new Error('the simulator gave no decline a reason');
    const given = (x: { declineReason?: string | undefined }) => !!x.declineReason?.trim();
    const cases: [string, typeof rows][] = [
      ['card=with', rows.filter((x) => x.cardId)],
      ['card=without', rows.filter((x) => !x.cardId)],
      ['noDeclineReason=1', rows.filter((x) => !given(x))],
      // Any of the reasons, or none.
      [
        `noDeclineReason=1&declineReason=${encodeURIComponent(reason)}`,
        rows.filter((x) => !given(x) || x.declineReason === reason),
      ],
      ['card=with&noDeclineReason=1', rows.filter((x) => x.cardId && !given(x))],
    ];
    for (const [narrowed, want] of cases) {
      expect(want.length, narrowed).toBeGreaterThan(0);
      expect(want.length, narrowed).toBeLessThan(rows.length);
      const filter = `status=settled&status=declined&status=failed&${narrowed}`;
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const res = await ask(
          `?${filter}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
        const body = indexPageSchema.parse(res.body);
        seen.push(...body.items.map((x) => x.id));
        cursor = body.nextCursor;
      } while (cursor);
      expect(seen.sort(), narrowed).toEqual(want.map((x) => x.id).sort());
      expect((await totalsOf(`?${filter}`)).summary, narrowed).toEqual(sums(want));
    }
  }, 60_000);

  it('searches the description, the merchant and the reference number, in any case', async () => {
    const sample = simRows().find((x) => x.merchantData)?.merchantData?.description as string;
    const word = sample.split(/\s+/)[0] as string;
    const want = simRows().filter((x) =>
      [x.description, x.merchantData?.description ?? '', x.referenceNumber]
        .join('\n')
        .toLowerCase()
        .includes(word.toLowerCase()),
    );
    const totals = await totalsOf(`?q=${encodeURIComponent(word.toUpperCase())}`);
    expect(totals.summary.count).toBe(want.length);
    expect(want.length).toBeGreaterThan(0);
  });

  it('a category group, codes and "no merchant category" together: any of them, exactly', async () => {
    const code = (x: ReturnType<typeof simRows>[number]) => x.merchantData?.categoryCode;
    const inBusiness = (c: string | undefined) =>
      c !== undefined && /^\d{4}$/.test(c) && c >= '7300' && c <= '7999';
    const want = simRows().filter(
      (x) => inBusiness(code(x)) || code(x) === '5812' || code(x) === undefined,
    );
    expect(want.some((x) => code(x) === undefined)).toBe(true);
    expect(want.some((x) => inBusiness(code(x)))).toBe(true);
    const totals = await totalsOf(
      '?categoryGroup=business&categoryGroup=uncategorized&category=5812',
    );
    expect(totals.summary).toEqual(sums(want));
    expect((await ask('?categoryGroup=software')).status).toBe(400);
    expect((await askTotals('?categoryGroup=software')).status).toBe(400);
  });

  it('totals by card and by decline reason: the groups and the rest add up to the set, the largest spend first, named', async () => {
    const declined = simRows().filter((x) => x.status === 'declined');
    const byReason = await totalsOf('?status=declined&by=declineReason');
    expect(byReason.breakdown?.by).toBe('declineReason');
    const reasons = new Map<string | undefined, number>();
    for (const x of declined) reasons.set(x.declineReason, (reasons.get(x.declineReason) ?? 0) + 1);
    expect(byReason.breakdown?.groupCount).toBe(reasons.size);
    expect(
      Object.fromEntries(byReason.breakdown?.groups.map((g) => [g.key ?? '(none)', g.count]) ?? []),
    ).toEqual(Object.fromEntries([...reasons].map(([k, n]) => [k ?? '(none)', n])));

    const byCard = await totalsOf('?by=card');
    const groups = byCard.breakdown?.groups ?? [];
    expect(groups.length).toBeGreaterThan(1);
    // Largest spend first: card spend (net of refunds) and payments without a card.
    const spend = groups.map(
      (g) => 0 - (g.buckets.card.cents + g.buckets.refund.cents + g.buckets.payment.cents),
    );
    expect(spend).toEqual([...spend].sort((a, b) => b - a));
    // Rows with no card (transfers, payments) are a group of their own, without a key.
    expect(groups.find((g) => g.key === undefined)).toMatchObject(
      sums(simRows().filter((x) => x.cardId === undefined)),
    );
    const first = groups.find((g) => g.key !== undefined);
    const want = simRows().filter((x) => x.cardId === first?.key);
    expect(first).toMatchObject(sums(want));
    expect(first?.label).toContain(t.sim.data.card(first?.key as string)?.name);
    // The groups and the rest ("Other N cards") hold every row of the set.
    const other = byCard.breakdown?.other;
    expect((other?.groupCount ?? 0) + groups.length).toBe(byCard.breakdown?.groupCount);
    expect(groups.reduce((n, g) => n + g.count, 0) + (other?.count ?? 0)).toBe(
      byCard.summary.count,
    );
    expect(groups.reduce((n, g) => n + g.posted.cents, 0) + (other?.posted.cents ?? 0)).toBe(
      byCard.summary.posted.cents,
    );
    // Without `by`, no breakdown; the list answers rows only, and refuses `by`.
    expect((await totalsOf('')).breakdown).toBeUndefined();
    const list = await ask('?by=card');
    expect(list.status).toBe(400);
    expect(list.body).toMatchObject({ status: 400, code: 'invalid_query' });
    expect(list.body.detail).toMatch(/\bby\b/);
  });

  it("a card's money: its sub accounts, its spend in its limit's current window, its latest rows", async () => {
    const SPEND = new Set(['pending', 'settled', 'refund', 'dispute']);
    const cards = t.sim.data.cards();
    const presets = new Set<string>();
    let spending = 0;
    for (const card of cards) {
      const res = await t.request.get(`/api/index/cards/${card.id}`).set(finance.headers());
      expect(res.status).toBe(200);
      const body = indexCardSchema.parse(res.body);
      const rows = simRows().filter((x) => x.cardId === card.id);
      expect(body.subAccountIds).toEqual(
        [...new Set(rows.map((x) => x.subAccountId))].sort((a, b) =>
          Buffer.compare(Buffer.from(a), Buffer.from(b)),
        ),
      );
      expect(body.recent.map((x) => x.id)).toEqual(
        [...rows]
          .sort((a, b) => Date.parse(b.date) - Date.parse(a.date) || (a.id < b.id ? 1 : -1))
          .slice(0, 10)
          .map((x) => x.id),
      );
      const limit = card.spendingConstraint?.spendingRule?.utilizationLimit;
      if (!limit) {
        expect(body.utilization).toBeUndefined();
        continue;
      }
      presets.add(limit.preset ?? '');
      expect(body.utilization?.limitCents).toBe(limit.limitAmount?.amountCents);
      const window = currentUtilizationWindow(limit, t.clock.now());
      if (!window) {
        expect(body.utilization?.window).toBeUndefined();
        expect(body.utilization?.spentCents).toBeUndefined();
        continue;
      }
      // docs/money.md: a card's spend is its settled, pending and disputed charges less its
      // refunds (a refund row, or a credit on the card): every amount of those rows, signed.
      const spent = rows
        .filter((x) => SPEND.has(x.status))
        .filter((x) => Date.parse(x.date) >= window.from && Date.parse(x.date) < window.to)
        .reduce((n, x) => n - x.amountCents, 0);
      expect(body.utilization?.spentCents, `${card.id} ${limit.preset}`).toBe(spent);
      if (spent > 0) spending++;
    }
    expect(spending).toBeGreaterThan(5);
    // Every preset the simulator gives, "collective" (unknown) included, was checked.
    expect([...presets].sort()).toEqual(['collective', 'daily', 'monthly', 'weekly', 'yearly']);
  }, 30_000);

  it("the cards list's money: each card's sub accounts and spend as its own page says, in one answer", async () => {
    const cards = t.sim.data.cards();
    const ids = cards.slice(0, CARD_MONEY_MAX).map((c) => c.id);
    const query = ids.map((id) => `cardId=${encodeURIComponent(id)}`).join('&');
    const res = await t.request.get(`/api/index/card-money?${query}`).set(finance.headers());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = cardsMoneySchema.parse(res.body);
    expect(body.cards.map((c) => c.cardId)).toEqual(ids);
    let spending = 0;
    for (const card of body.cards) {
      const one = indexCardSchema.parse(
        (await t.request.get(`/api/index/cards/${card.cardId}`).set(finance.headers())).body,
      );
      expect(card.subAccountIds, card.cardId).toEqual(one.subAccountIds);
      expect(card.utilization, card.cardId).toEqual(one.utilization);
      if ((card.utilization?.spentCents ?? 0) > 0) spending++;
    }
    expect(spending).toBeGreaterThan(5);
    // A card no one knows: no sub account, no limit; one asked twice, answered once.
    const unknown = await t.request
      .get(`/api/index/card-money?cardId=no-such-card&cardId=${ids[0]}&cardId=${ids[0]}`)
      .set(finance.headers());
    expect(unknown.status).toBe(200);
    expect(unknown.body.cards).toEqual([
      { cardId: 'no-such-card', subAccountIds: [] },
      body.cards[0],
    ]);
  });

  it('the cards list asks about 1 to 100 cards: none, or more, is a clear 400', async () => {
    const none = await t.request.get('/api/index/card-money').set(finance.headers());
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('invalid_query');
    const many = Array.from({ length: CARD_MONEY_MAX + 1 }, (_, i) => `cardId=c${i}`).join('&');
    const tooMany = await t.request.get(`/api/index/card-money?${many}`).set(finance.headers());
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.detail).toMatch(/cardId/);
    // More than 20 of a key stay a list (qs makes an object of them by default).
    const cards = t.sim.data.cards().slice(0, 30);
    expect(cards.length).toBe(30);
    const thirty = cards.map((c) => `cardId=${encodeURIComponent(c.id)}`).join('&');
    const listed = await t.request.get(`/api/index/card-money?${thirty}`).set(finance.headers());
    expect(listed.status).toBe(200);
    expect(listed.body.cards).toHaveLength(30);
    const filtered = await totalsOf(`?${thirty}`);
    const ids = new Set(cards.map((c) => c.id));
    expect(filtered.summary.count).toBe(
      simRows().filter((x) => x.cardId !== undefined && ids.has(x.cardId)).length,
    );
  });

  it("a sub account's cards: those with a row in it, filtered and sorted as the cards list is", async () => {
    const collator = new Intl.Collator('en');
    let some = 0;
    for (const sub of t.sim.data.subAccounts()) {
      const spending = new Set(
        simRows()
          .filter((x) => x.subAccountId === sub.id && x.cardId !== undefined)
          .map((x) => x.cardId as string),
      );
      const cards = t.sim.data.cards().filter((c) => spending.has(c.id));
      const byName = await t.request
        .get(`/api/index/cards?subAccountId=${encodeURIComponent(sub.id)}&sort=name&direction=asc`)
        .set(finance.headers());
      expect(byName.status).toBe(200);
      const body = indexCardListSchema.parse(byName.body);
      expect(body.items.map((c) => c.id)).toEqual(
        [...cards]
          .sort((a, b) => collator.compare(a.name, b.name) || (a.id < b.id ? -1 : 1))
          .map((c) => c.id),
      );
      const active = await t.request
        .get(`/api/index/cards?subAccountId=${encodeURIComponent(sub.id)}&status=active`)
        .set(finance.headers());
      expect(active.body.items.map((c: { id: string }) => c.id)).toEqual(
        cards
          .filter((c) => c.status === 'active')
          .sort((a, b) => ((a.createdAt ?? '') < (b.createdAt ?? '') ? 1 : -1))
          .map((c) => c.id),
      );
      some += body.items.length;
      // Each card as the cards list shows it: never its number or code.
      const first = body.items[0];
      if (first) {
        const live = await t.request.get(`/api/cards/${first.id}`).set(finance.headers());
        expect(first).toEqual(live.body);
      }
    }
    expect(some).toBeGreaterThan(10);
    const none = await t.request.get('/api/index/cards').set(finance.headers());
    expect(none.status).toBe(400);
  });

  it('every card with a transaction, and the sub accounts it spends from', async () => {
    const res = await t.request.get('/api/index/card-sub-accounts').set(finance.headers());
    expect(res.status).toBe(200);
    const body = cardSubAccountsSchema.parse(res.body);
    const want = new Map<string, Set<string>>();
    for (const x of simRows()) {
      if (x.cardId === undefined) continue;
      want.set(x.cardId, (want.get(x.cardId) ?? new Set()).add(x.subAccountId));
    }
    expect(Object.fromEntries(body.cards.map((c) => [c.cardId, c.subAccountIds]))).toEqual(
      Object.fromEntries([...want].map(([card, subs]) => [card, [...subs].sort()])),
    );
    expect(body.cards.length).toBeGreaterThan(10);
  });

  it('the category catalog names every code, its group, and finds "software" beyond the names', async () => {
    const res = await t.request.get('/api/index/categories').set(finance.headers());
    expect(res.status).toBe(200);
    const catalog = categoryCatalogSchema.parse(res.body);
    expect(catalog.categories.length).toBeGreaterThan(900);
    const byCode = new Map(catalog.categories.map((c) => [c.code, c]));
    expect(byCode.get('5812')).toMatchObject({
      name: 'Eating places and Restaurants',
      group: 'misc-stores',
    });
    const software = catalog.categories
      .filter((c) => c.themes?.includes('software'))
      .map((c) => c.code);
    expect(software).toEqual(expect.arrayContaining(['5734', '5817', '7372']));
    expect(byCode.get('7372')?.name).not.toMatch(/software/i);
    expect(catalog.groups.map((g) => g.key)).toContain('uncategorized');
  });

  it('the CSV export is exactly the filtered set, in its order, with the sub account when several', async () => {
    const csv = async (query: string) => {
      const res = await downloadWhole(
        `${t.url}/api/index/transactions/export.csv${query}`,
        finance.headers(),
      );
      expect(res.status).toBe(200);
      expect(res.complete).toBe(true);
      return { res, records: parseCsv(res.text).filter((r) => r.length > 1) };
    };
    const want = simRows()
      .filter((x) => x.status !== 'pending')
      .sort(
        (a, b) =>
          Math.abs(b.amountCents) - Math.abs(a.amountCents) ||
          // Ties: by sub account and id, in the same direction (bytes, as COLLATE "C").
          Buffer.compare(Buffer.from(b.subAccountId), Buffer.from(a.subAccountId)) ||
          Buffer.compare(Buffer.from(b.id), Buffer.from(a.id)),
      );
    expect(want.length).toBeGreaterThan(500); // more than one of the index's pages
    const asked = transactionStatuses
      .filter((x) => x !== 'pending')
      .map((x) => `status=${x}`)
      .join('&');
    expect(simRows().some((x) => x.status === 'pending')).toBe(true);
    const all = await csv(`?${asked}&sort=amount`);
    const [header, ...rows] = all.records;
    expect(header?.slice(0, 3)).toEqual(['sub account', 'sub account id', 'id']);
    expect(rows.map((r) => r[2])).toEqual(want.map((x) => x.id));
    const names = new Map(t.sim.data.subAccounts().map((s) => [s.id, s.name]));
    expect(rows.map((r) => [r[0], r[1]])).toEqual(
      want.map((x) => [names.get(x.subAccountId), x.subAccountId]),
    );
    expect(all.res.headers['content-disposition']).toMatch(/all-sub-accounts/);

    const sub = t.sim.data.subAccounts()[1];
    const one = await csv(`?subAccountId=${encodeURIComponent(sub?.id as string)}&${asked}`);
    expect(one.records[0]?.[0]).toBe('id');
    expect(one.records.length - 1).toBe(want.filter((x) => x.subAccountId === sub?.id).length);
  }, 30_000);

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
    ['?noDeclineReason=yes', /noDeclineReason/],
    ['?card=some', /card/],
  ])('%s is a 400 that says what is wrong', async (query, why) => {
    const res = await ask(query);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.detail).toMatch(why);
  });

  it.each([
    ['?by=nope', /by/],
    ['?by=card&by=merchant', /"by" must appear once/],
    ['?status=nope', /status/],
    ['?minCents=5&maxCents=1', /minCents/],
    ['?from=10&to=5', /from/],
    ['?refresh=yes', /refresh/],
    // The list's order and page are not the totals'.
    ['?sort=amount', /sort/],
    ['?direction=asc', /direction/],
    ['?limit=5', /limit/],
    ['?cursor=not-one-of-ours', /cursor/],
  ])('the totals: %s is a 400 that says what is wrong', async (query, why) => {
    const res = await askTotals(query);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code: 'invalid_query' });
    expect(res.body.detail).toMatch(why);
  });
});
