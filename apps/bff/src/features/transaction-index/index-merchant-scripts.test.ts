// Merchants written in other scripts, or with no letter or digit at all, over HTTP against rows
// the test wrote: each Overview line opens a list (and totals) of exactly its rows, and the list's
// totals by merchant keep them apart. A merchant with no ASCII letter or digit had no key, so
// every such merchant was one: a line of 北京饭店 opened the rows of Москва Ресторан and ☕☕☕ too.
import { overviewSchema } from '@card-console/shared/api/overview';
import { indexTotalsAnswerSchema } from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledIndexList } from '../../test/settled-index';

/** Each text and its amount; the two Cyrillic texts are one merchant written two ways. */
const ROWS: [string, number][] = [
  ['МОСКВА РЕСТОРАН', -1_000],
  ['Москва  Ресторан', -2_000],
  ['北京饭店', -3_000],
  ['東京カフェ', -4_000],
  ['☕☕☕', -500],
  ['★★★', -700],
];
/** The merchants by hand: name → [rows, card spend]. */
const MERCHANTS = new Map<string, [number, number]>([
  ['Москва Ресторан', [2, 3_000]],
  ['北京饭店', [1, 3_000]],
  ['東京カフェ', [1, 4_000]],
  ['☕☕☕', [1, 500]],
  ['★★★', [1, 700]],
]);

let t: TestApp;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp({
    sim: { subAccounts: 1, cards: 1, transactions: 0, months: 1, rateLimit: false },
  });
  finance = await t.signIn('finance');
  const subAccountId = t.sim.data.subAccounts()[0]?.id ?? '';
  const cardId = t.sim.data.cards()[0]?.id ?? '';
  for (const [merchantDescription, amountCents] of ROWS) {
    t.sim.testing.addTransaction({
      subAccountId,
      cardId,
      amountCents,
      status: 'settled',
      description: merchantDescription,
      merchantDescription,
    });
  }
  t.clock.set(Math.max(t.clock.now(), Date.now() + 1_000));
  await settledIndexList(t, finance, `?subAccountId=${subAccountId}`);
}, 120_000);
afterAll(async () => t?.close());

const totalsOf = async (query: string) => {
  const res = await t.request.get(`/api/index/transactions/totals?${query}`).set(finance.headers());
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  return indexTotalsAnswerSchema.parse(res.body);
};

describe('merchants in other scripts, or of no letter', () => {
  it("each Overview line opens exactly its merchant's rows and money", async () => {
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    const res = await t.request
      .get(`/api/overview?from=${day}&to=${day}&tz=UTC`)
      .set(finance.headers());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const lines = overviewSchema.parse(res.body).merchants;
    expect(new Map(lines.map((m) => [m.key, [m.count, m.spentCents]]))).toEqual(MERCHANTS);
    for (const line of lines) {
      // What the line opens (drill-down.ts): the spend statuses and the merchant by name.
      const { summary } = await totalsOf(`merchantName=${encodeURIComponent(line.key)}`);
      expect([summary.count, -summary.buckets.card.cents], line.key).toEqual(
        MERCHANTS.get(line.key),
      );
    }
  });

  it('the totals by merchant keep them apart, each line naming its own rows', async () => {
    const { breakdown } = await totalsOf('by=merchant');
    const groups = breakdown?.groups ?? [];
    expect(new Map(groups.map((g) => [g.key, [g.count, -g.buckets.card.cents]]))).toEqual(
      MERCHANTS,
    );
  });
});
