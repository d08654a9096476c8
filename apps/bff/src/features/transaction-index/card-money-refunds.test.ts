// A card whose refunds in its utilisation limit's current window exceed its charges: its spend
// there is negative (docs/money.md: card spend is charges less refunds, what a card's limit
// counts), and its page and the cards list's money say so, as they say any other card's. Both
// answered 500 for such a card (the answer's check wanted a spend of 0 or more), and the cards
// list lost the money of every card on the page beside it.
import { cardsMoneySchema, indexCardSchema } from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledIndexList } from '../../test/settled-index';
import { currentUtilizationWindow } from './utilization-window';

let t: TestApp;
let finance: TestSession;
let refunded: string;
let other: string;

beforeAll(async () => {
  t = await startTestApp({
    sim: { subAccounts: 1, cards: 12, transactions: 0, months: 1, rateLimit: false },
  });
  finance = await t.signIn('finance');
  const subAccountId = t.sim.data.subAccounts()[0]?.id ?? '';
  // Cards whose limit's window is known and holds today (a new row is dated now).
  const now = t.clock.now();
  const windowed = t.sim.data.cards().filter((card) => {
    const limit = card.spendingConstraint?.spendingRule?.utilizationLimit;
    const window = limit ? currentUtilizationWindow(limit, now) : undefined;
    return window !== undefined && window.from <= now && now < window.to;
  });
  expect(windowed.length).toBeGreaterThanOrEqual(2);
  refunded = windowed[0]?.id ?? '';
  other = windowed[1]?.id ?? '';
  const add = (cardId: string, amountCents: number, status: 'settled' | 'refund') =>
    t.sim.testing.addTransaction({ subAccountId, cardId, amountCents, status });
  // A $10.00 charge, then a $50.00 refund of an earlier month's charge: $40.00 came back.
  add(refunded, -1_000, 'settled');
  add(refunded, 5_000, 'refund');
  add(other, -2_500, 'settled');
  t.clock.set(Math.max(t.clock.now(), Date.now() + 1_000));
  await settledIndexList(t, finance);
}, 120_000);
afterAll(async () => t?.close());

describe('a card that got more back than it spent in its window', () => {
  it('its page says its spend, negative: charges less refunds', async () => {
    const res = await t.request.get(`/api/index/cards/${refunded}`).set(finance.headers());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(indexCardSchema.parse(res.body).utilization?.spentCents).toBe(-4_000);
  });

  it("the cards list's money says it, and every other card's beside it", async () => {
    const res = await t.request
      .get(`/api/index/card-money?cardId=${refunded}&cardId=${other}`)
      .set(finance.headers());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const spent = cardsMoneySchema
      .parse(res.body)
      .cards.map((card) => [card.cardId, card.utilization?.spentCents]);
    expect(spent).toEqual([
      [refunded, -4_000],
      [other, 2_500],
    ]);
  });
});
