// The Overview's card spend is card spend (docs/money.md): the simulator's ACH payments (rows
// without a card) and funding credits are shown apart as Other payments and Transfers in, never
// inside card spend nor as a "No merchant category" bar of the spend by category. Walked from the
// card service and read from the index alike.
import { categoryGroupLabel } from '@card-console/shared/category-groups';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketByTheTable, settledOverview } from '../../test/expected-overview';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { unreachableIndex } from '../../test/unreachable-index';

const NOW = Date.UTC(2026, 10, 20, 12);
const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe.each([
  ['walked from the card service', true],
  ['read from the index', false],
] as const)('the Overview with ACH payments and funding credits, %s', (_, walked) => {
  let t: TestApp;
  let finance: TestSession;

  beforeAll(async () => {
    t = await startTestApp({
      sim: { transactions: 3_000, now: () => NOW, rateLimit: false },
      clock: new ManualClock(NOW),
      ...(walked ? { stores: unreachableIndex() } : {}),
    });
    finance = await t.signIn('finance');
    if (!walked) {
      for (let i = 0; ; i++) {
        const res = await t.request.get('/api/index/transactions').set(finance.headers());
        if (res.body.freshness?.syncing === false && res.body.freshness?.updatedAt) break;
        if (i > 300) throw new Error('the index did not sync');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }, 120_000);
  afterAll(async () => t.close());

  it('card spend leaves them out, they stand apart, and no category bar holds a row without a card', async () => {
    const from = day(NOW - 89 * DAY_MS);
    const to = day(NOW);
    const rows = t.sim.data
      .subAccounts()
      .flatMap((s) => t.sim.data.transactions(s.id))
      .filter((x) => x.date.slice(0, 10) >= from && x.date.slice(0, 10) <= to);
    // By docs/money.md, by hand: what the period holds.
    const sum = (line: string) =>
      rows.filter((x) => bucketByTheTable(x) === line).reduce((n, x) => n + x.amountCents, 0);
    const achPayments = rows.filter((x) => !x.cardId && x.amountCents < 0);
    const funding = rows.filter((x) => !x.cardId && x.amountCents > 0);
    expect(achPayments.length, 'the data set holds ACH payments').toBeGreaterThan(0);
    expect(funding.length, 'the data set holds funding credits').toBeGreaterThan(0);
    expect(sum('payment'), 'some ACH payments moved money').toBeLessThan(0);
    expect(sum('transfer'), 'some funding moved money').toBeGreaterThan(0);

    const got = await settledOverview(t, finance, { from, to, tz: 'UTC' });
    expect(got.status).toBe('complete');

    // No "No merchant category" bar: the only rows without a category are ACH and funding.
    expect(rows.every((x) => !x.cardId || x.merchantData?.categoryCode)).toBe(true);
    expect(got.categories.map((c) => c.label)).not.toContain(categoryGroupLabel('uncategorized'));

    // Card spend: card charges less refunds, nothing without a card.
    const cardSpend = -(sum('card') + sum('refund'));
    expect(got.totals.cardSpendCents).toBe(cardSpend);
    // The category bars add up to card spend, ACH payments nowhere in them.
    expect(got.categories.reduce((n, c) => n + c.spentCents, 0)).toBe(cardSpend);
    // Other payments and Transfers in, apart.
    expect(got.totals.money.payment.cents).toBe(sum('payment'));
    expect(got.totals.money.transfer.cents).toBe(sum('transfer'));
    // What never moved, apart as Declined (attempted).
    expect(got.totals.money.attempted.count).toBe(
      rows.filter((x) => ['declined', 'canceled', 'failed'].includes(x.status)).length,
    );
    // Every row in exactly one bucket.
    expect(Object.values(got.totals.money).reduce((n, f) => n + f.count, 0)).toBe(rows.length);
    expect(got.totals.count).toBe(rows.length);
  }, 60_000);
});
