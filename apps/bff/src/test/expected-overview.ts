// A brute-force Overview over the simulator's own data, for tests: every transaction's day
// from Intl directly, sums by plain loops, and what each row means for money written by hand
// from docs/money.md's table (never the product's definition, which it checks).
import { type Overview, overviewSchema } from '@card-console/shared/api/overview';
import { categoryGroupLabel, categoryGroupOf } from '@card-console/shared/category-groups';
import { merchantsOf } from '@card-console/shared/merchants';
import { expect } from 'vitest';
import { merchantCategoryName } from '../features/transactions/merchant-categories';
import type { TestApp, TestSession } from './harness';

type Bucket = 'card' | 'refund' | 'payment' | 'transfer' | 'released' | 'attempted' | 'returned';
const BUCKETS: Bucket[] = [
  'card',
  'refund',
  'payment',
  'transfer',
  'released',
  'attempted',
  'returned',
];

/** docs/money.md, "The table": a row's line by its status, its card and its amount's sign. */
export function bucketByTheTable(x: {
  status: string;
  amountCents: number;
  cardId?: string | null | undefined;
}): Bucket {
  switch (x.status) {
    case 'reversed':
      return 'released';
    case 'declined':
    case 'canceled':
    case 'failed':
      return 'attempted';
    case 'returned':
      return 'returned';
    default: {
      // settled, dispute, refund, pending: moved (or will), by card and sign.
      const card = x.cardId !== undefined && x.cardId !== null && x.cardId !== '';
      if (card) return x.amountCents < 0 ? 'card' : 'refund';
      return x.amountCents < 0 ? 'payment' : 'transfer';
    }
  }
}

const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

export function expectedOverview(
  t: TestApp,
  q: { subAccountId?: string; from: string; to: string; tz: string },
  /** `categoryCodes`: the codes' ranking too, as the Overview read from the index has it. */
  options: { categoryCodes?: boolean } = {},
): Omit<Overview, 'status' | 'progress' | 'error'> {
  const subs = t.sim.data.subAccounts().filter((s) => !q.subAccountId || s.id === q.subAccountId);
  const fmt = new Intl.DateTimeFormat('en-CA', {
    timeZone: q.tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  const length = Math.round((Date.parse(q.to) - Date.parse(q.from)) / 86_400_000) + 1;
  const prevFrom = addDays(q.from, -length);
  const prevTo = addDays(q.from, -1);
  const weekly = length > 92;
  const bucketOf = (day: string) => {
    if (!weekly) return day;
    const weekday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7;
    return addDays(day, -weekday);
  };
  const rows = subs.flatMap((s) => t.sim.data.transactions(s.id));
  const span = (from: string, to: string) => {
    const money = Object.fromEntries(
      BUCKETS.map((b) => [b, { count: 0, cents: 0, pendingCount: 0, pendingCents: 0 }]),
    ) as Overview['totals']['money'];
    const totals = { cardSpendCents: 0, cardSpendPendingCents: 0, money, count: 0 };
    const series = new Map<string, { day: string; cardSpendCents: number; count: number }>();
    for (let d = from; d <= to; d = addDays(d, 1)) {
      const b = bucketOf(d);
      if (!series.has(b)) series.set(b, { day: b, cardSpendCents: 0, count: 0 });
    }
    const categories = new Map<string, [number, number]>();
    const codes = new Map<string, [number, number]>();
    const merchants = new Map<string, [number, number]>();
    const cards = new Map<string, [number, number]>();
    const reasons = new Map<string, number>();
    let declines = 0;
    let cardCount = 0;
    const bump = (m: Map<string, [number, number]>, k: string, c: number) => {
      const v = m.get(k) ?? [0, 0];
      m.set(k, [v[0] + c, v[1] + 1]);
    };
    for (const x of rows) {
      const day = fmt.format(new Date(x.date));
      if (day < from || day > to) continue;
      const point = series.get(bucketOf(day));
      if (!point) throw new Error(`no bucket for ${day}`);
      totals.count += 1;
      point.count += 1;
      if (x.cardId) cardCount += 1;
      if (x.status === 'declined') {
        declines += 1;
        const r = x.declineReason?.trim() || 'No reason given';
        reasons.set(r, (reasons.get(r) ?? 0) + 1);
      }
      const line = bucketByTheTable(x);
      const figure = money[line];
      figure.count += 1;
      figure.cents += x.amountCents;
      if (x.status === 'pending') {
        figure.pendingCount += 1;
        figure.pendingCents += x.amountCents;
      }
      // Card spend: card charges less refunds (settled, pending, disputed); nothing else.
      if (line !== 'card' && line !== 'refund') continue;
      const c = -x.amountCents;
      totals.cardSpendCents += c;
      point.cardSpendCents += c;
      if (x.status === 'pending') totals.cardSpendPendingCents += c;
      bump(categories, categoryGroupOf(x.merchantData?.categoryCode), c);
      if (x.merchantData) bump(merchants, x.merchantData.description, c);
      if (x.merchantData) bump(codes, x.merchantData.categoryCode, c);
      if (x.cardId) bump(cards, x.cardId, c);
    }
    return {
      totals,
      series: [...series.values()],
      categories,
      codes,
      merchants,
      cards,
      reasons,
      declines,
      cardCount,
    };
  };
  const rank = (m: Map<string, [number, number]>, label: (k: string) => string) =>
    [...m.entries()]
      .map(([key, [spentCents, count]]) => ({ key, label: label(key), spentCents, count }))
      .sort((a, b) => b.spentCents - a.spentCents || (a.key < b.key ? -1 : 1));
  // Merchants as the index names them: its texts grouped by `merchantsOf` (tested on its own
  // set in the shared package); here only summed, by plain loops.
  const names = merchantsOf(
    t.sim.data
      .subAccounts()
      .flatMap((sub) => t.sim.data.transactions(sub.id))
      .flatMap((x) => (x.merchantData ? [x.merchantData.description] : [])),
  );
  const byMerchantName = (m: Map<string, [number, number]>) => {
    const merchants = new Map<string, { name: string; texts: [string, number, number][] }>();
    for (const [text, [cents, count]] of m) {
      const { key, name } = names.get(text) ?? { key: text, name: text };
      const merchant = merchants.get(key) ?? { name, texts: [] };
      merchant.texts.push([text, cents, count]);
      merchants.set(key, merchant);
    }
    return [...merchants.values()]
      .map(({ name, texts }) => {
        let spentCents = 0;
        let count = 0;
        for (const [, c, n] of texts) {
          spentCents += c;
          count += n;
        }
        const order = [...texts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
        return {
          key: name,
          label: name,
          spentCents,
          count,
          ways: texts.length,
          descriptors: order.slice(0, 20).map(([text]) => text),
        };
      })
      .sort((a, b) => b.spentCents - a.spentCents || (a.key < b.key ? -1 : 1));
  };
  const now = span(q.from, q.to);
  const before = span(prevFrom, prevTo);
  const sum = (pick: (s: (typeof subs)[number]) => number) => subs.reduce((a, s) => a + pick(s), 0);
  return {
    // The zone as the runtime names it (`Asia/Kolkata` is `Asia/Calcutta` on Node 20).
    period: { from: q.from, to: q.to, tz: fmt.resolvedOptions().timeZone },
    balanceCents: sum((s) => s.balance.amountCents),
    spendCents: sum((s) => s.spend.amountCents),
    totals: now.totals,
    previousTotals: before.totals,
    granularity: weekly ? 'week' : 'day',
    series: now.series,
    previousSeries: before.series,
    categories: rank(now.categories, categoryGroupLabel),
    // Only when read from the index.
    ...(options.categoryCodes
      ? {
          categoryCodes: rank(
            now.codes,
            (code) => merchantCategoryName(code) ?? `Category ${code}`,
          ).slice(0, 10),
        }
      : {}),
    merchants: byMerchantName(now.merchants).slice(0, 10),
    cards: rank(now.cards, (id) => {
      const card = t.sim.data.card(id);
      return card ? `${card.name} •••• ${card.last4}` : id;
    }).slice(0, 10),
    declines: {
      count: now.declines,
      rate: now.cardCount === 0 ? 0 : now.declines / now.cardCount,
      reasons: [...now.reasons.entries()]
        .map(([reason, count]) => ({ reason, count }))
        .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1))
        .slice(0, 10),
    },
  };
}

/** Asks until the Overview is no longer computing; its last answer. */
export async function settledOverview(
  t: TestApp,
  session: TestSession,
  query: Record<string, string>,
): Promise<Overview> {
  for (let i = 0; i < 2_000; i++) {
    const res = await t.request.get('/api/overview').query(query).set(session.headers());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = overviewSchema.parse(res.body);
    if (body.status !== 'computing') return body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the overview never finished computing');
}
