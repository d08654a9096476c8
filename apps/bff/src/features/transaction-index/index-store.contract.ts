// One behaviour suite for the transaction index's store on every engine (PGlite in process,
// PostgreSQL as a real server): days replaced as a sync walks them, and every filter, order and
// page size checked against a brute-force pass over the same rows.
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { NotesStore } from '../notes';
import {
  BadIndexCursorError,
  INDEX_GROUPINGS,
  type IndexedTransaction,
  type IndexFilter,
  type IndexGrouping,
  type IndexOrder,
  type IndexPage,
  type IndexSummary,
  type OverviewTallies,
  searchTextOf,
  storable,
  TransactionIndexStore,
} from './index-store';

export interface IndexEngineFixture {
  engine: SqlEngine;
  close(): Promise<void>;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 9, 1);
/** The instant `hour` hours into the `day`th UTC day after T0. */
const hourOfDay = (day: number, hour: number) =>
  new Date(T0 + day * DAY + hour * HOUR).toISOString();
/** The `day`th UTC day after T0, as YYYY-MM-DD. */
const utcDayOf = (day: number) => new Date(T0 + day * DAY).toISOString().slice(0, 10);

function tx(
  over: Partial<IndexedTransaction> & Pick<IndexedTransaction, 'id'>,
): Omit<IndexedTransaction, 'subAccountId'> {
  return {
    at: new Date(T0 + 3_600_000).toISOString(),
    description: 'Card purchase',
    referenceNumber: `ref-${over.id}`,
    amountCents: -1_000,
    status: 'settled',
    ...over,
  };
}

/** UTF-8 byte order, as `COLLATE "C"` compares. */
const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The category members: any of the codes, ranges and "uncategorized" asked for. */
function inCategories(filter: IndexFilter, code: string | undefined): boolean {
  const { categoryCodes, categoryRanges, uncategorized } = filter;
  if (categoryCodes === undefined && categoryRanges === undefined && !uncategorized) return true;
  const fourDigits = code !== undefined && /^\d{4}$/.test(code);
  return (
    (code !== undefined && (categoryCodes ?? []).map(storable).includes(code)) ||
    (categoryRanges ?? []).some(([first, last]) => fourDigits && code >= first && code <= last) ||
    (uncategorized === true && (!fourDigits || code === '0000'))
  );
}

/**
 * A row as the index keeps it: an empty card id is no card (docs/money.md), kept as none; a
 * decline reason and a category code trimmed, and none when blank (as the Overview names them).
 */
function asKept(t: IndexedTransaction): IndexedTransaction {
  const { cardId, declineReason, categoryCode, ...kept } = t;
  const reason = declineReason?.trim();
  const code = categoryCode?.trim();
  return {
    ...kept,
    ...(cardId === undefined || cardId === '' ? {} : { cardId }),
    ...(reason ? { declineReason: reason } : {}),
    ...(code ? { categoryCode: code } : {}),
  };
}

/** The brute-force answer: `filter` as its documentation reads, over plain rows. */
function expected(rows: IndexedTransaction[], filter: IndexFilter, order: IndexOrder) {
  const has = (values: readonly string[] | undefined, value: string | undefined) =>
    values === undefined || (value !== undefined && values.map(storable).includes(value));
  const term = filter.text === undefined ? '' : storable(filter.text.trim().toLowerCase());
  const kept = rows.map(asKept).filter((t) => {
    const at = Date.parse(t.at);
    const size = Math.abs(t.amountCents);
    return (
      has(filter.subAccountIds, t.subAccountId) &&
      has(filter.merchants, t.merchant) &&
      inCategories(filter, t.categoryCode) &&
      has(filter.statuses, t.status) &&
      has(filter.cardIds, t.cardId) &&
      (filter.noDeclineReason
        ? (t.declineReason ?? '').trim() === '' ||
          (filter.declineReasons ?? []).includes(t.declineReason as string)
        : has(filter.declineReasons, t.declineReason)) &&
      (filter.withCard === undefined || filter.withCard === (t.cardId !== undefined)) &&
      (term === '' || searchTextOf(t).includes(term)) &&
      (filter.minCents === undefined || size >= filter.minCents) &&
      (filter.maxCents === undefined || size <= filter.maxCents) &&
      (filter.from === undefined || at >= filter.from) &&
      (filter.to === undefined || at < filter.to)
    );
  });
  const key = (t: IndexedTransaction) =>
    order.sort === 'date' ? Date.parse(t.at) : Math.abs(t.amountCents);
  const sign = order.direction === 'asc' ? 1 : -1;
  kept.sort(
    (a, b) =>
      sign * (key(a) - key(b) || bytes(a.subAccountId, b.subAccountId) || bytes(a.id, b.id)),
  );
  return { items: kept, summary: sumsOf(kept) };
}

type Figure = IndexSummary['buckets']['card'];
const zero = (): Figure => ({ count: 0, cents: 0, pendingCount: 0, pendingCents: 0 });

/**
 * docs/money.md's table, written out again by hand (not the product's definition): a row's
 * bucket by its status, card and sign.
 */
function bucketByHand(t: Pick<IndexedTransaction, 'status' | 'amountCents' | 'cardId'>) {
  if (t.status === 'reversed') return 'released';
  if (t.status === 'declined' || t.status === 'canceled' || t.status === 'failed')
    return 'attempted';
  if (t.status === 'returned') return 'returned';
  if (t.cardId !== undefined && t.cardId !== '') return t.amountCents < 0 ? 'card' : 'refund';
  return t.amountCents < 0 ? 'payment' : 'transfer';
}

/** The brute-force figures: each row in its bucket; posted = settled, refund and dispute rows. */
function sumsOf(rows: IndexedTransaction[]): IndexSummary {
  const buckets = {
    card: zero(),
    refund: zero(),
    payment: zero(),
    transfer: zero(),
    released: zero(),
    attempted: zero(),
    returned: zero(),
  };
  const posted = { count: 0, cents: 0 };
  for (const t of rows) {
    const figure = buckets[bucketByHand(t)];
    figure.count++;
    figure.cents += t.amountCents;
    if (t.status === 'pending') {
      figure.pendingCount++;
      figure.pendingCents += t.amountCents;
    }
    if (['settled', 'refund', 'dispute'].includes(t.status)) {
      posted.count++;
      posted.cents += t.amountCents;
    }
  }
  return { count: rows.length, buckets, posted };
}

/**
 * The brute-force breakdown: every group's figures, largest spend (card charges less refunds,
 * and payments without a card, settled or pending) first, then amounts declined, count, key; the groups past
 * `limit` summed as one.
 */
function expectedBreakdown(kept: IndexedTransaction[], by: ColumnGrouping, limit: number) {
  const groupValue: Record<ColumnGrouping, (t: IndexedTransaction) => string | undefined> = {
    card: (t) => t.cardId,
    merchant: (t) => t.merchant,
    category: (t) => t.categoryCode,
    declineReason: (t) => t.declineReason,
    subAccount: (t) => t.subAccountId,
    status: (t) => t.status,
  };
  const rows = new Map<string | null, IndexedTransaction[]>();
  for (const t of kept) {
    const key = groupValue[by](t) ?? null;
    rows.set(key, [...(rows.get(key) ?? []), t]);
  }
  const spend = (g: IndexedTransaction[]) =>
    g
      .filter((t) => ['card', 'refund', 'payment'].includes(bucketByHand(t)))
      .reduce((n, t) => n - t.amountCents, 0);
  const declined = (g: IndexedTransaction[]) =>
    g
      .filter((t) => bucketByHand(t) === 'attempted')
      .reduce((n, t) => n + Math.abs(t.amountCents), 0);
  const all = [...rows].map(([key, g]) => ({ key, g }));
  all.sort(
    (a, b) =>
      spend(b.g) - spend(a.g) ||
      declined(b.g) - declined(a.g) ||
      b.g.length - a.g.length ||
      (a.key === null ? 1 : b.key === null ? -1 : bytes(a.key, b.key)),
  );
  const rest = all.slice(limit);
  return {
    groups: all.slice(0, limit).map(({ key, g }) => ({ key, ...sumsOf(g) })),
    groupCount: all.length,
    ...(rest.length > 0
      ? { other: { ...sumsOf(rest.flatMap(({ g }) => g)), groupCount: rest.length } }
      : {}),
  };
}

/** A breakdown's groups and remainder summed bucket by bucket: a summary of the same set. */
function addedUp(breakdown: { groups: IndexSummary[]; other?: IndexSummary }): IndexSummary {
  const parts = [...breakdown.groups, ...(breakdown.other ? [breakdown.other] : [])];
  const sum = sumsOf([]);
  for (const part of parts) {
    sum.count += part.count;
    sum.posted.count += part.posted.count;
    sum.posted.cents += part.posted.cents;
    for (const [bucket, figure] of Object.entries(part.buckets)) {
      const into = sum.buckets[bucket as keyof IndexSummary['buckets']];
      into.count += figure.count;
      into.cents += figure.cents;
      into.pendingCount += figure.pendingCount;
      into.pendingCents += figure.pendingCents;
    }
  }
  return sum;
}

/** Every page from the first, `pageAt` asked with each page's cursor; each but the last full. */
async function everyPage(limit: number, pageAt: (cursor?: string) => Promise<IndexPage>) {
  const items: IndexedTransaction[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1_000; pages++) {
    const page = await pageAt(cursor);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    if (page.next === undefined) return items;
    expect(page.items).toHaveLength(limit);
    cursor = page.next;
  }
  throw new Error('paging did not end');
}

function allPages(
  store: TransactionIndexStore,
  filter: IndexFilter,
  order: IndexOrder,
  limit: number,
) {
  return everyPage(limit, (cursor) => store.page(filter, order, limit, cursor));
}

/** Every page of `countedPage` (the count and a page at once), each page's count checked. */
function allCountedPages(
  store: TransactionIndexStore,
  filter: IndexFilter,
  order: IndexOrder,
  limit: number,
  cap: number,
  setSize: number,
) {
  return everyPage(limit, async (cursor) => {
    const { count, page } = await store.countedPage(filter, order, limit, cursor, cap);
    // The whole set's count up to one past the cap, on every page (not the rows after it).
    expect(count).toBe(Math.min(setSize, cap + 1));
    return page;
  });
}

/** Loads rows the way a sync does: grouped by sub account and UTC day. */
async function load(store: TransactionIndexStore, rows: IndexedTransaction[], syncedAt = T0) {
  const days = new Map<string, { subAccountId: string; day: string; rows: IndexedTransaction[] }>();
  for (const row of rows) {
    const day = row.at.slice(0, 10);
    const key = JSON.stringify([row.subAccountId, day]);
    const group = days.get(key) ?? { subAccountId: row.subAccountId, day, rows: [] };
    group.rows.push(row);
    days.set(key, group);
  }
  for (const group of days.values()) {
    await store.replaceDay(
      group.subAccountId,
      group.day,
      group.rows.map(({ subAccountId: _, ...rest }) => rest),
      syncedAt,
    );
  }
}

/** The brute-force Overview tallies: each row in the bucket its instant falls in. */
function expectedTallies(
  rows: IndexedTransaction[],
  subs: readonly string[],
  edges: readonly number[],
  breakdownFrom: number,
) {
  // docs/money.md's table, by hand (not the product's definition): a row's bucket.
  const bucketOf = (r: IndexedTransaction) => {
    if (r.status === 'reversed') return 'released';
    if (['declined', 'canceled', 'failed'].includes(r.status)) return 'attempted';
    if (r.status === 'returned') return 'returned';
    const card = r.cardId !== undefined && r.cardId !== '';
    if (card) return r.amountCents < 0 ? 'card' : 'refund';
    return r.amountCents < 0 ? 'payment' : 'transfer';
  };
  const money = new Map<
    string,
    Record<'count' | 'cents' | 'pendingCount' | 'pendingCents', number>
  >();
  const keyOf = (r: IndexedTransaction, bucket: number) => `${r.subAccountId}|${bucket}`;
  type Totals = Record<'count' | 'pendingCount' | 'cardCount' | 'declines', number>;
  const totals = new Map<string, Totals>();
  const lines = {
    declineReasons: new Map<string, number>(),
    categories: new Map<string, [number, number]>(),
    merchants: new Map<string, [number, number]>(),
    cards: new Map<string, [number, number]>(),
  };
  const add = (into: Map<string, [number, number]>, key: string, cents: number) => {
    const known = into.get(key) ?? [0, 0];
    into.set(key, [known[0] + cents, known[1] + 1]);
  };
  for (const r of rows.map(asKept)) {
    const at = Date.parse(r.at);
    if (!subs.includes(r.subAccountId)) continue;
    const bucket = edges.findIndex(
      (edge, i) => i + 1 < edges.length && at >= edge && at < (edges[i + 1] as number),
    );
    if (bucket < 0) continue;
    const k = keyOf(r, bucket);
    // The breakdowns: the period's buckets only, each line in the period's first.
    const broken = bucket >= breakdownFrom;
    const b = keyOf(r, breakdownFrom);
    const t: Totals = totals.get(k) ?? {
      count: 0,
      pendingCount: 0,
      cardCount: 0,
      declines: 0,
    };
    t.count++;
    if (r.status === 'pending') t.pendingCount++;
    // An empty card id is no card (docs/money.md), for the counts as for the money.
    const card = r.cardId !== undefined && r.cardId !== '';
    if (card) t.cardCount++;
    const declined = r.status === 'declined' && card;
    if (declined) t.declines++;
    if (declined && broken) {
      const rk = `${b}|${r.declineReason ?? '\u0000none'}`;
      lines.declineReasons.set(rk, (lines.declineReasons.get(rk) ?? 0) + 1);
    }
    const kind = bucketOf(r);
    const mk = `${k}|${kind}`;
    const m = money.get(mk) ?? { count: 0, cents: 0, pendingCount: 0, pendingCents: 0 };
    m.count++;
    m.cents += r.amountCents;
    if (r.status === 'pending') {
      m.pendingCount++;
      m.pendingCents += r.amountCents;
    }
    money.set(mk, m);
    // Card spend: card charges less refunds, settled, pending or disputed, net in the lines.
    if ((kind === 'card' || kind === 'refund') && broken) {
      add(lines.categories, `${b}|${r.categoryCode ?? '\u0000none'}`, -r.amountCents);
      if (r.merchant !== undefined) add(lines.merchants, `${b}|${r.merchant}`, -r.amountCents);
      if (card) add(lines.cards, `${b}|${r.cardId}`, -r.amountCents);
    }
    totals.set(k, t);
  }
  return { totals, money, lines };
}

/** The store's Overview tallies equal the brute force's, line by line. */
function expectTallies(got: OverviewTallies, want: ReturnType<typeof expectedTallies>) {
  const key = (l: { subAccountId: string; bucket: number }) => `${l.subAccountId}|${l.bucket}`;
  expect(
    new Map(got.totals.map(({ subAccountId, bucket, ...t }) => [key({ subAccountId, bucket }), t])),
  ).toEqual(want.totals);
  expect(
    new Map(
      got.money.map(({ subAccountId, bucket, kind, ...figure }) => [
        `${key({ subAccountId, bucket })}|${kind}`,
        figure,
      ]),
    ),
  ).toEqual(want.money);
  expect(
    new Map(got.declineReasons.map((l) => [`${key(l)}|${l.key ?? '\u0000none'}`, l.count])),
  ).toEqual(want.lines.declineReasons);
  for (const name of ['categories', 'merchants', 'cards'] as const) {
    expect(
      new Map(got[name].map((l) => [`${key(l)}|${l.key ?? '\u0000none'}`, [l.cents, l.count]])),
      name,
    ).toEqual(want.lines[name]);
  }
}

/** The groupings by a column of the row (by a card's owner or team: their own case below). */
type ColumnGrouping = Exclude<IndexGrouping, 'owner' | 'team'>;
const groupings = Object.keys(INDEX_GROUPINGS) as ColumnGrouping[];
const subAccounts = ['sa_1', 'sa/2 é', 'sa_3 😀'];
// Two merchants differ only in case: a merchant filter is exact (the index it reads is lowered).
const words = ['Figma', 'AWS', 'Uber', 'Coffee 50%_off', 'Slack', 'Delta Air', 'FIGMA', 'Café'];
// Every status of the contract: each reads into a bucket of its own (docs/money.md).
const statuses = [
  'settled',
  'pending',
  'declined',
  'refund',
  'canceled',
  'failed',
  'reversed',
  'returned',
  'dispute',
];

const rowArb = (n: number) =>
  fc
    .record({
      subAccountId: fc.constantFrom(...subAccounts),
      // Few distinct instants and sizes: ties the keyset must break by sub account and id. Some
      // inside an hour: a set's figures come from the hour tallies, its part-hours from rows.
      at: fc
        .tuple(fc.integer({ min: 0, max: 40 }), fc.constantFrom(0, 0, 0, 1_800_000, 3_599_999))
        .map(([k, within]) => new Date(T0 + k * 7_200_000 + within).toISOString()),
      amountCents: fc.constantFrom(-120_000, -5_000, -500, 0, 500, 5_000, 99),
      status: fc.constantFrom(...statuses),
      description: fc.constantFrom(...words).map((w) => `POS ${w}`),
      merchant: fc.option(fc.constantFrom(...words), { nil: undefined }),
      categoryCode: fc.option(
        fc.constantFrom('5734', '5817', '4121', '5812', '0000', '57', '3500', ' 5812', '  '),
        {
          nil: undefined,
        },
      ),
      // '  ': no reason given, as the Overview reads it.
      declineReason: fc.option(fc.constantFrom('insufficient_funds', 'limit', ' limit ', '  '), {
        nil: undefined,
      }),
      // '': the contract allows any string, and an empty one is no card (docs/money.md).
      cardId: fc.option(fc.constantFrom('card_a', 'card_b', 'card c', ''), { nil: undefined }),
    })
    .map((r): IndexedTransaction => {
      const t: IndexedTransaction = {
        subAccountId: r.subAccountId,
        id: `tx_${n}`,
        at: r.at,
        description: r.description,
        referenceNumber: `R${1000 + n}`,
        amountCents: r.amountCents,
        status: r.status,
      };
      if (r.merchant !== undefined) t.merchant = r.merchant;
      if (r.categoryCode !== undefined) t.categoryCode = r.categoryCode;
      if (r.declineReason !== undefined) t.declineReason = r.declineReason;
      if (r.cardId !== undefined) t.cardId = r.cardId;
      return t;
    });

const rowsArb = fc
  .integer({ min: 0, max: 80 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, n) => rowArb(n))));

const filterMembers = {
  subAccountIds: fc.subarray(subAccounts),
  text: fc.constantFrom('figma', 'AWS', ' uber ', '50%_', '%', '_', 'r10', 'pos', 'nothing'),
  merchants: fc.subarray(words),
  // Four-digit codes (read by number) and one that is not (read as text).
  categoryCodes: fc.subarray(['5734', '5817', '4121', '5812', '0000', '57']),
  categoryRanges: fc.subarray([
    ['5700', '7299'],
    ['3351', '3500'],
    ['0001', '1499'],
  ] as const),
  uncategorized: fc.boolean(),
  statuses: fc.subarray(statuses),
  cardIds: fc.subarray(['card_a', 'card_b', 'card c']),
  declineReasons: fc.subarray(['insufficient_funds', 'limit']),
  noDeclineReason: fc.constant(true),
  withCard: fc.boolean(),
  minCents: fc.constantFrom(0, 99, 500, 5_000),
  maxCents: fc.constantFrom(500, 5_000, 200_000),
  // On the hour, a millisecond past it, or half-way through (the figures' part-hours).
  from: fc
    .tuple(fc.integer({ min: 0, max: 40 }), fc.constantFrom(0, 1, 1_800_000))
    .map(([k, within]) => T0 + k * 3_600_000 + within),
  to: fc
    .tuple(fc.integer({ min: 0, max: 90 }), fc.constantFrom(0, 1, 1_800_000))
    .map(([k, within]) => T0 + k * 3_600_000 + within),
};
type Member = keyof typeof filterMembers;
const memberNames = Object.keys(filterMembers) as Member[];

/** One member alone (so each narrows a set worth looking at), or a few together. */
const filterArb: fc.Arbitrary<IndexFilter> = fc.oneof(
  fc
    .constantFrom(...memberNames)
    .chain((name) =>
      (filterMembers[name] as fc.Arbitrary<unknown>).map((value) => ({ [name]: value })),
    ),
  fc
    .subarray(memberNames, { maxLength: 3 })
    .chain((names) =>
      fc.record(Object.fromEntries(names.map((name) => [name, filterMembers[name]]))),
    ) as unknown as fc.Arbitrary<IndexFilter>,
);

const orderArb: fc.Arbitrary<IndexOrder> = fc.record({
  sort: fc.constantFrom('date' as const, 'amount' as const),
  direction: fc.constantFrom('asc' as const, 'desc' as const),
});

export function indexStoreContract(name: string, open: () => Promise<IndexEngineFixture>): void {
  describe(`${name}: the transaction index's store`, () => {
    let fixture: IndexEngineFixture;
    let store: TransactionIndexStore;
    beforeAll(async () => {
      fixture = await open();
      store = new TransactionIndexStore(fixture.engine);
    }, 60_000);
    afterAll(() => fixture?.close());
    beforeEach(async () => {
      await fixture.engine.query(
        'TRUNCATE index_transaction, index_sync_day, index_hour_tally, index_day_key_tally, index_month_key_tally',
      );
    });

    it('keeps the pages of an open range as written, uncompressed, and reads them back whole', async () => {
      await fixture.engine.query('DELETE FROM index_sync_range_page');
      const rows = Array.from({ length: 200 }, (_, i) =>
        tx({ id: `kept ${i}`, description: `Card purchase ${i} at a merchant` }),
      );
      const range = { from: T0, to: T0 + 86_399_999, askTo: T0 + 86_399_999 };
      await store.saveRangePages('sa kept', [{ ...range, page: 1, next: 'c\u00002', rows }], T0);
      const [kept] = await fixture.engine.query<{ bytes: number; compression: string | null }>(
        `SELECT length(rows) AS bytes, pg_column_compression(rows) AS compression
           FROM index_sync_range_page WHERE sub_account_id = 'sa kept'`,
      );
      // Past the size at which the engine would compress it (2 kB), and not compressed.
      expect(kept?.bytes).toBeGreaterThan(2_048);
      expect(kept?.compression).toBeNull();
      expect(await store.openRanges('sa kept')).toEqual([
        { ...range, pages: 1, next: 'c\u00002', rows, writtenAt: T0 },
      ]);
      await fixture.engine.query('DELETE FROM index_sync_range_page');
    });

    it('keeps every field as it came, and leaves absent ones absent', async () => {
      const full = tx({
        id: 'tx full',
        merchant: 'Figma',
        categoryCode: '5734',
        declineReason: 'limit',
        cardId: 'card/1',
        authorizedAt: new Date(T0 + 60_000).toISOString(),
        originalCurrency: { code: 'EUR', amountCents: -900, conversionRate: 1.11 },
        status: 'declined',
      });
      const bare = tx({ id: 'tx bare', at: new Date(T0 + 7_200_000).toISOString() });
      await store.replaceDay('sa 1', '2026-10-01', [full, bare], T0);
      const page = await store.page({}, { sort: 'date', direction: 'asc' }, 10);
      expect(page).toEqual({
        items: [
          { subAccountId: 'sa 1', ...full },
          { subAccountId: 'sa 1', ...bare },
        ],
      });
    });

    it('a day walked again holds exactly what the walk found; other days and sub accounts stay', async () => {
      const day1 = new Date(T0 + 3_600_000).toISOString();
      const day2 = new Date(T0 + DAY + 3_600_000).toISOString();
      await store.replaceDay('sa', '2026-10-01', [tx({ id: 'a' }), tx({ id: 'b' })], T0);
      await store.replaceDay('sa', '2026-10-02', [tx({ id: 'c', at: day2 })], T0);
      await store.replaceDay('other', '2026-10-01', [tx({ id: 'a' })], T0);
      // `a` changed, `b` vanished, `c` moved here from the next day (its date changed).
      await store.replaceDay(
        'sa',
        '2026-10-01',
        [tx({ id: 'a', amountCents: -2_000, status: 'pending' }), tx({ id: 'c', at: day1 })],
        T0 + 60_000,
      );
      const all = await store.page({}, { sort: 'date', direction: 'asc' }, 10);
      expect(
        all.items.map((t) => [t.subAccountId, t.id, t.amountCents, t.at.slice(0, 10)]),
      ).toEqual([
        ['other', 'a', -1_000, '2026-10-01'],
        ['sa', 'a', -2_000, '2026-10-01'],
        ['sa', 'c', -1_000, '2026-10-01'],
      ]);
      expect(await store.walkedDays('sa')).toEqual(
        new Map([
          ['2026-10-01', T0 + 60_000],
          ['2026-10-02', T0],
        ]),
      );
    });

    it("tells the days holding a status, and each held row's status and day by the id asked", async () => {
      const on = (day: number) => new Date(T0 + day * DAY + 3_600_000).toISOString();
      await store.replaceDay('sa', utcDayOf(0), [tx({ id: 'a\u0000b', status: 'dispute' })], T0);
      await store.replaceDay(
        'sa',
        utcDayOf(2),
        [
          tx({ id: 'c', at: on(2), status: 'pending' }),
          tx({ id: 'd', at: on(2), status: 'dispute' }),
        ],
        T0,
      );
      await store.replaceDay(
        'other',
        utcDayOf(1),
        [tx({ id: 'e', at: on(1), status: 'dispute' })],
        T0,
      );
      expect(await store.daysHolding('sa', 'dispute')).toEqual(new Set([utcDayOf(0), utcDayOf(2)]));
      expect(await store.pendingDays('sa')).toEqual(new Set([utcDayOf(2)]));
      expect(await store.heldRows('sa', ['a\u0000b', 'c', 'e', 'missing'])).toEqual(
        new Map([
          ['a\u0000b', { status: 'dispute', day: utcDayOf(0) }],
          ['c', { status: 'pending', day: utcDayOf(2) }],
        ]),
      );
      expect(await store.heldRows('sa', [])).toEqual(new Map());
    });

    it('several days replaced at once: only those days, in one go; a day between them stays', async () => {
      const on = (day: number) => new Date(T0 + day * DAY + 3_600_000).toISOString();
      await load(store, [
        { subAccountId: 'sa', ...tx({ id: 'd0', at: on(0) }) },
        { subAccountId: 'sa', ...tx({ id: 'd1', at: on(1) }) },
        { subAccountId: 'sa', ...tx({ id: 'd2', at: on(2) }) },
      ]);
      // Days 0 and 2 walked again: d0 vanished, d2 moved to day 0, a new row on day 2.
      await store.replaceDays(
        'sa',
        [
          { day: '2026-10-01', rows: [tx({ id: 'd2', at: on(0) })] },
          { day: '2026-10-03', rows: [tx({ id: 'n2', at: on(2) })] },
        ],
        T0 + 5_000,
      );
      const all = await store.page({}, { sort: 'date', direction: 'asc' }, 10);
      expect(all.items.map((t) => [t.id, t.at.slice(0, 10)])).toEqual([
        ['d2', '2026-10-01'],
        ['d1', '2026-10-02'],
        ['n2', '2026-10-03'],
      ]);
      expect(await store.walkedDays('sa')).toEqual(
        new Map([
          ['2026-10-01', T0 + 5_000],
          ['2026-10-02', T0],
          ['2026-10-03', T0 + 5_000],
        ]),
      );
      await store.replaceDays('sb\u0000', [{ day: '2026-10-02', rows: [] }], T0 + 9_000);
      expect(await store.walkedDaysOf(['sb\u0000', 'sa', 'nobody'])).toEqual(
        new Map([
          ['sb\u0000', new Map([['2026-10-02', T0 + 9_000]])],
          [
            'sa',
            new Map([
              ['2026-10-01', T0 + 5_000],
              ['2026-10-02', T0],
              ['2026-10-03', T0 + 5_000],
            ]),
          ],
          ['nobody', new Map()],
        ]),
      );
      expect(await store.walkedDaysOf([])).toEqual(new Map());
      await expect(store.replaceDays('sa', [{ day: '2026-13-01', rows: [] }], T0)).rejects.toThrow(
        RangeError,
      );
    });

    it('a day walked again as it was is left untouched; what changed is written and tallied', async () => {
      const kept = tx({ id: 'k', at: hourOfDay(0, 1), merchant: 'Kept', categoryCode: '5734' });
      const pending = tx({ id: 'p', at: hourOfDay(0, 2), status: 'pending', merchant: 'Pend' });
      const gone = tx({ id: 'g', at: hourOfDay(0, 3), merchant: 'Gone', cardId: 'card_2' });
      const mover = tx({ id: 'm', at: hourOfDay(1, 1), merchant: 'Mover', cardId: 'card_2' });
      const lone = tx({ id: 'l', at: hourOfDay(2, 1), merchant: 'Lone', categoryCode: '4511' });
      const first = [
        { day: utcDayOf(0), rows: [kept, { ...pending, cardId: 'card_1' }, gone] },
        { day: utcDayOf(1), rows: [mover] },
        { day: utcDayOf(2), rows: [lone] },
      ];
      await store.replaceDays('sa', first, T0);
      // A row's version (`xmin`) changes with each write of it, and only then.
      const versions = async () =>
        new Map(
          (
            await fixture.engine.query<{ id: string; v: string }>(
              `SELECT id, xmin::text AS v FROM index_transaction WHERE sub_account_id = 'sa'`,
            )
          ).map((r) => [r.id, r.v]),
        );
      const before = await versions();
      expect(before.size).toBe(5);
      await store.replaceDays('sa', first, T0 + 60_000);
      expect(await versions()).toEqual(before);
      expect(await store.walkedDays('sa')).toEqual(
        new Map([
          [utcDayOf(0), T0 + 60_000],
          [utcDayOf(1), T0 + 60_000],
          [utcDayOf(2), T0 + 60_000],
        ]),
      );
      // Day 0 again: the pending row settled, one vanished, one came from day 1 (not walked);
      // day 2's one row vanished.
      const now = [
        kept,
        { ...pending, cardId: 'card_1', status: 'settled' },
        { ...mover, at: hourOfDay(0, 5) },
      ];
      await store.replaceDays(
        'sa',
        [
          { day: utcDayOf(0), rows: now },
          { day: utcDayOf(2), rows: [] },
        ],
        T0 + 120_000,
      );
      const after = await versions();
      expect([...after.keys()].sort()).toEqual(['k', 'm', 'p']);
      expect(after.get('k')).toBe(before.get('k'));
      expect(after.get('p')).not.toBe(before.get('p'));
      expect(after.get('m')).not.toBe(before.get('m'));
      // Every day's tallies are the rows' own: day 0 with its changes, days 1 and 2 left empty.
      const rows = now.map((row) => ({ ...row, subAccountId: 'sa' }));
      const edges = [T0, T0 + DAY, T0 + 2 * DAY, T0 + 3 * DAY];
      expectTallies(
        await store.overviewTallies(['sa'], edges, 0),
        expectedTallies(rows, ['sa'], edges, 0),
      );
    });

    it('days never walked are inserted first; a row among them the index held still leaves its day, tallied again', async () => {
      const stays = tx({ id: 's', at: hourOfDay(0, 1), merchant: 'Stays', categoryCode: '5734' });
      const mover = tx({ id: 'm', at: hourOfDay(0, 2), merchant: 'Mover', cardId: 'card_2' });
      await store.replaceDays('sa', [{ day: utcDayOf(0), rows: [stays, mover] }], T0);
      const version = async (id: string) =>
        (
          await fixture.engine.query<{ v: string }>(
            `SELECT xmin::text AS v FROM index_transaction WHERE sub_account_id = 'sa' AND id = $1`,
            [id],
          )
        )[0]?.v;
      const staysVersion = await version('s');
      // Days 3 and 4, never walked (a first sync's next range): a new row, and the mover, whose
      // date and amount changed between two pages of the walk.
      const moved = { ...mover, at: hourOfDay(3, 4), amountCents: -7_500 };
      const fresh = tx({ id: 'n', at: hourOfDay(4, 1), merchant: 'New', categoryCode: '4511' });
      await store.replaceDays(
        'sa',
        [
          { day: utcDayOf(3), rows: [moved] },
          { day: utcDayOf(4), rows: [fresh] },
        ],
        T0 + 60_000,
      );
      const all = await store.page({}, { sort: 'date', direction: 'asc' }, 10);
      expect(all.items.map((t) => [t.id, t.at, t.amountCents])).toEqual([
        ['s', stays.at, stays.amountCents],
        ['m', moved.at, -7_500],
        ['n', fresh.at, fresh.amountCents],
      ]);
      expect(await version('s')).toBe(staysVersion);
      // Day 0 lost the mover: its tallies are the one row left, day 3's the mover's.
      const rows = [stays, moved, fresh].map((row) => ({ ...row, subAccountId: 'sa' }));
      const edges = [0, 1, 2, 3, 4, 5].map((day) => T0 + day * DAY);
      expectTallies(
        await store.overviewTallies(['sa'], edges, 0),
        expectedTallies(rows, ['sa'], edges, 0),
      );
    });

    /** A bucket's figure, and a summary with every bucket not given at zero (by hand). */
    const fig = (count: number, cents: number, pendingCount = 0, pendingCents = 0): Figure => ({
      count,
      cents,
      pendingCount,
      pendingCents,
    });
    const totals = (
      count: number,
      given: Partial<IndexSummary['buckets']>,
      posted: [number, number],
    ): IndexSummary => ({
      count,
      buckets: {
        card: zero(),
        refund: zero(),
        payment: zero(),
        transfer: zero(),
        released: zero(),
        attempted: zero(),
        returned: zero(),
        ...given,
      },
      posted: { count: posted[0], cents: posted[1] },
    });
    // A quarter's "software" as a finance person reads it: charges that moved, one pending, one
    // disputed, refunds; and beside them rows that moved nothing (canceled, reversed, failed,
    // declined, returned), an ACH payment and funding without a card.
    const software = [
      tx({ id: '1', amountCents: -10_000, cardId: 'card_a' }),
      tx({ id: '2', amountCents: -2_500, cardId: 'card_a', status: 'pending' }),
      tx({ id: '3', amountCents: -4_000, cardId: 'card_b', status: 'dispute' }),
      tx({ id: '4', amountCents: 1_500, cardId: 'card_a', status: 'refund' }),
      tx({ id: '5', amountCents: 200, cardId: 'card_b' }),
      tx({ id: '6', amountCents: -7_000, cardId: 'card_a', status: 'canceled' }),
      tx({ id: '7', amountCents: -3_000, cardId: 'card_b', status: 'reversed' }),
      tx({ id: '8', amountCents: -900, cardId: 'card_c', status: 'declined' }),
      tx({ id: '9', amountCents: -50_000, status: 'failed' }),
      tx({ id: '10', amountCents: -20_000, status: 'returned' }),
      tx({ id: '11', amountCents: -30_000 }),
      tx({ id: '12', amountCents: 100_000 }),
      tx({ id: '13', amountCents: 5_000, status: 'pending' }),
    ];

    it('a set narrowed by sub account and time alone is summed from the hour tallies, its part-hours from the rows', async () => {
      const at = (ms: number) => new Date(T0 + ms).toISOString();
      await store.replaceDay(
        'sa',
        '2026-10-01',
        [
          tx({ id: 'early', at: at(600_000), amountCents: -1_000, cardId: 'card_a' }),
          tx({ id: 'whole', at: at(3 * HOUR + 60_000), amountCents: -2_000, cardId: 'card_a' }),
          tx({ id: 'late', at: at(5 * HOUR + 120_000), amountCents: -4_000, cardId: 'card_a' }),
        ],
        T0,
      );
      const cardSpend = (s: IndexSummary) => [s.count, s.buckets.card.cents];
      // 00:05 to 05:01: the part-hour 00:05–01:00 and 05:00–05:01 from rows, 01:00–05:00 tallied.
      const window = { from: T0 + 300_000, to: T0 + 5 * HOUR + 60_000 };
      expect(cardSpend(await store.summary(window))).toEqual([2, -3_000]);
      expect(cardSpend(await store.summary({ ...window, subAccountIds: ['sa'] }))).toEqual([
        2, -3_000,
      ]);
      expect(cardSpend(await store.summary({ from: T0 + 5 * HOUR + 120_001 }))).toEqual([0, 0]);
      // The tallies are what is read for whole hours: one changed behind the store's back shows
      // in such a set, and not in a set with another filter (read from the rows).
      await fixture.engine.query(
        `UPDATE index_hour_tally SET m_card_n = m_card_n + 1, m_card_cents = m_card_cents - 5
          WHERE hour = $1::timestamptz`,
        [at(3 * HOUR)],
      );
      expect(cardSpend(await store.summary(window))).toEqual([3, -3_005]);
      expect(cardSpend(await store.summary({ ...window, cardIds: ['card_a'] }))).toEqual([
        2, -3_000,
      ]);
    });

    it('sums the filtered set by the definition of money: card spend is the charges that moved, what moved nothing is counted apart', async () => {
      await store.replaceDay('sa', '2026-10-01', software, T0);
      // docs/money.md by hand. Card spend: 1, 2 (pending), 3 (disputed); refunds: 4, 5; other
      // payments: 11; transfers in: 12, 13 (pending); released: 7; declined (attempted): 6, 8,
      // 9; returned: 10. Posted: settled, refund and dispute rows (1, 3, 4, 5, 11, 12).
      const all = totals(
        13,
        {
          card: fig(3, -16_500, 1, -2_500),
          refund: fig(2, 1_700),
          payment: fig(1, -30_000),
          transfer: fig(2, 105_000, 1, 5_000),
          released: fig(1, -3_000),
          attempted: fig(3, -57_900),
          returned: fig(1, -20_000),
        },
        [6, 57_700],
      );
      expect(await store.summary({})).toEqual(all);
      expect(await store.postedTotal({})).toEqual({ count: 6, cents: 57_700 });
      // The card rows only: $265.00 of debits, of which $165.00 of card charges moved or will.
      expect(await store.summary({ cardIds: ['card_a', 'card_b', 'card_c'] })).toEqual(
        totals(
          8,
          {
            card: fig(3, -16_500, 1, -2_500),
            refund: fig(2, 1_700),
            released: fig(1, -3_000),
            attempted: fig(2, -7_900),
          },
          [4, -12_300],
        ),
      );
      expect(await store.summary({ statuses: ['canceled', 'reversed', 'returned'] })).toEqual(
        totals(
          3,
          { released: fig(1, -3_000), attempted: fig(1, -7_000), returned: fig(1, -20_000) },
          [0, 0],
        ),
      );
      expect(await store.summary({ subAccountIds: [] })).toEqual(totals(0, {}, [0, 0]));
      expect(await store.postedTotal({ subAccountIds: [] })).toEqual({ count: 0, cents: 0 });
    });

    it('totals by card: the largest groups by spend and the rest as one, adding up to the summary', async () => {
      await store.replaceDay('sa', '2026-10-01', software, T0);
      const noCard = totals(
        5,
        {
          payment: fig(1, -30_000),
          transfer: fig(2, 105_000, 1, 5_000),
          attempted: fig(1, -50_000),
          returned: fig(1, -20_000),
        },
        [2, 70_000],
      );
      const cardA = totals(
        4,
        { card: fig(2, -12_500, 1, -2_500), refund: fig(1, 1_500), attempted: fig(1, -7_000) },
        [2, -8_500],
      );
      const cardB = totals(
        3,
        { card: fig(1, -4_000), refund: fig(1, 200), released: fig(1, -3_000) },
        [2, -3_800],
      );
      const cardC = totals(1, { attempted: fig(1, -900) }, [0, 0]);
      // Spend: no card $300 (the ACH payment), card_a $125, card_b $40, card_c none ($9 declined).
      expect(await store.breakdown({}, 'card', 10)).toEqual({
        groups: [
          { key: null, ...noCard },
          { key: 'card_a', ...cardA },
          { key: 'card_b', ...cardB },
          { key: 'card_c', ...cardC },
        ],
        groupCount: 4,
      });
      const two = await store.breakdown({}, 'card', 2);
      expect(two).toEqual({
        groups: [
          { key: null, ...noCard },
          { key: 'card_a', ...cardA },
        ],
        groupCount: 4,
        other: {
          ...totals(
            4,
            {
              card: fig(1, -4_000),
              refund: fig(1, 200),
              released: fig(1, -3_000),
              attempted: fig(1, -900),
            },
            [2, -3_800],
          ),
          groupCount: 2,
        },
      });
      expect(addedUp(two)).toEqual(await store.summary({}));
      // By status: each status's rows in its bucket.
      const byStatus = await store.breakdown({}, 'status', 3);
      expect(byStatus.groups.map((g) => g.key)).toEqual(['settled', 'dispute', 'pending']);
      expect(byStatus.other?.groupCount).toBe(6);
      expect(addedUp(byStatus)).toEqual(await store.summary({}));
      expect(await store.breakdown({ subAccountIds: [] }, 'card', 2)).toEqual({
        groups: [],
        groupCount: 0,
      });
    });

    it('totals by merchant: the texts of a merchant written several ways summed as one group, the others each their own', async () => {
      await store.replaceDay(
        'sa',
        '2026-10-01',
        [
          tx({ id: '1', amountCents: -1_000, cardId: 'c', merchant: 'SQ *ACME FUEL' }),
          tx({ id: '2', amountCents: -2_000, cardId: 'c', merchant: 'ACME FUEL #12' }),
          tx({ id: '3', amountCents: -500, cardId: 'c', merchant: 'ACME FUEL #12' }),
          tx({ id: '4', amountCents: -2_600, cardId: 'c', merchant: 'ZETA' }),
          tx({ id: '5', amountCents: -100, cardId: 'c' }),
        ],
        T0,
      );
      const groups = new Map([
        ['SQ *ACME FUEL', 'g:acme'],
        ['ACME FUEL #12', 'g:acme'],
        ['NOT IN THE SET', 'g:other'],
      ]);
      const byMerchant = await store.breakdown({}, 'merchant', 10, groups);
      expect(byMerchant.groups.map((g) => [g.key, g.count, g.buckets.card.cents])).toEqual([
        ['g:acme', 3, -3_500],
        ['ZETA', 1, -2_600],
        [null, 1, -100],
      ]);
      expect(byMerchant.groupCount).toBe(3);
      expect(addedUp(byMerchant)).toEqual(await store.summary({}));
      const debits = { maxCents: 5_000 };
      expect(
        await store.totals(debits, { grouping: 'merchant', limit: 1, merchantGroups: groups }),
      ).toEqual({
        summary: await store.summary(debits),
        breakdown: await store.breakdown(debits, 'merchant', 1, groups),
      });
      // Narrowed by a merchant text: its group only; the groups do nothing to other dimensions.
      const narrowed = await store.breakdown(
        { merchants: ['ACME FUEL #12'] },
        'merchant',
        10,
        groups,
      );
      expect(narrowed.groups.map((g) => [g.key, g.count])).toEqual([['g:acme', 2]]);
      expect((await store.breakdown({}, 'card', 10, groups)).groups.map((g) => g.key)).toEqual([
        'c',
      ]);
      // Without groups, each text its own.
      expect((await store.breakdown({}, 'merchant', 10)).groupCount).toBe(4);
    });

    it("filters and totals by a card's owner and team (Card Console's, card_owner): by key, in any spelling; cards without in the group without a key", async () => {
      await fixture.engine.query('DELETE FROM card_owner');
      await store.replaceDay(
        'sa',
        '2026-10-01',
        [
          tx({ id: '1', amountCents: -1_000, cardId: 'c1' }),
          tx({ id: '2', amountCents: -2_000, cardId: 'c2' }),
          tx({ id: '3', amountCents: -500, cardId: 'c3' }),
          tx({ id: '4', amountCents: -2_600, cardId: 'c4' }),
          tx({ id: '5', amountCents: -100 }),
        ],
        T0,
      );
      // Elena owns c1 and c2 (in Sales), Omar c3 (no team); c4 has a team and no owner.
      await fixture.engine.query(
        `INSERT INTO card_owner (card_id, owner_name, owner_key, team_name, team_key, updated_by,
           updated_at)
         VALUES ('c1', 'Elena Walsh', 'elena walsh', 'Sales', 'sales', 'a@x.test', now()),
                ('c2', 'Elena Walsh', 'elena walsh', 'Sales', 'sales', 'a@x.test', now()),
                ('c3', 'Omar Diaz', 'omar diaz', NULL, NULL, 'a@x.test', now()),
                ('c4', NULL, NULL, 'Field Ops', 'field ops', 'a@x.test', now())`,
      );
      const byOwner = await store.breakdown({}, 'owner', 10);
      expect(byOwner.groups.map((g) => [g.key, g.count, g.buckets.card.cents])).toEqual([
        ['Elena Walsh', 2, -3_000],
        [null, 2, -2_600],
        ['Omar Diaz', 1, -500],
      ]);
      expect(addedUp(byOwner)).toEqual(await store.summary({}));
      // Asked with the summary, from the breakdown's one statement: each row once, whatever
      // its card's owner.
      const owned = { statuses: ['settled'] };
      expect(await store.totals(owned, { grouping: 'owner', limit: 2 })).toEqual({
        summary: await store.summary(owned),
        breakdown: await store.breakdown(owned, 'owner', 2),
      });
      const byTeam = await store.breakdown({}, 'team', 10);
      expect(byTeam.groups.map((g) => [g.key, g.count])).toEqual([
        ['Sales', 2],
        ['Field Ops', 1],
        [null, 2],
      ]);
      const ids = async (filter: Parameters<typeof store.summary>[0]) =>
        (await store.page(filter, { sort: 'date', direction: 'desc' }, 50)).items
          .map((t) => t.id)
          .sort();
      expect(await ids({ ownerKeys: ['elena walsh'] })).toEqual(['1', '2']);
      expect(await ids({ ownerKeys: ['elena walsh', 'omar diaz'] })).toEqual(['1', '2', '3']);
      expect(await ids({ teamKeys: ['sales', 'field ops'] })).toEqual(['1', '2', '4']);
      expect(await ids({ ownerKeys: ['omar diaz'], teamKeys: ['sales'] })).toEqual([]);
      expect(await ids({ ownerKeys: ['nobody'] })).toEqual([]);
      expect((await store.summary({ ownerKeys: ['elena walsh'] })).count).toBe(2);
      // An owner's totals by card: their cards only.
      expect(
        (await store.breakdown({ ownerKeys: ['elena walsh'] }, 'card', 10)).groups.map(
          (g) => g.key,
        ),
      ).toEqual(['c2', 'c1']);
      await fixture.engine.query('DELETE FROM card_owner');
    });

    it("filters by the transactions' notes: reviewed or not, accounting categories or none, tags in any case, receipts", async () => {
      await fixture.engine.query('DELETE FROM transaction_receipt');
      await fixture.engine.query('DELETE FROM transaction_notes');
      await fixture.engine.query('DELETE FROM accounting_category');
      await store.replaceDay(
        'sa',
        '2026-10-01',
        ['1', '2', '3', '4'].map((id) => tx({ id })),
        T0,
      );
      await store.replaceDay('sb', '2026-10-01', [tx({ id: '5' })], T0);
      const notes = new NotesStore(fixture.engine);
      const when = new Date(T0);
      const software = await notes.createCategory({ code: '6100', name: 'Software' }, when);
      const travel = await notes.createCategory({ code: '6200', name: 'Travel' }, when);
      const note = (id: string, change: Omit<Parameters<NotesStore['change']>[1], 'version'>) =>
        notes.change(id, { version: 0, ...change }, 'ana@example.test', when);
      await note('1', { categoryId: software.id, tags: ['Q4', 'Design'], reviewed: true });
      await note('2', { categoryId: travel.id, tags: ['q4'] });
      await note('3', { memo: 'no category, not reviewed' });
      await note('5', { categoryId: software.id, reviewed: true });
      const ids = async (filter: IndexFilter) =>
        (await store.page(filter, { sort: 'date', direction: 'desc' }, 100)).items
          .map((t) => t.id)
          .sort();
      expect(await ids({ reviewed: true })).toEqual(['1', '5']);
      expect(await ids({ reviewed: false })).toEqual(['2', '3', '4']);
      expect(await ids({ accountIds: [software.id] })).toEqual(['1', '5']);
      expect(await ids({ accountIds: [software.id, travel.id], subAccountIds: ['sa'] })).toEqual([
        '1',
        '2',
      ]);
      expect(await ids({ noAccount: true })).toEqual(['3', '4']);
      expect(await ids({ accountIds: [travel.id], noAccount: true })).toEqual(['2', '3', '4']);
      expect(await ids({ accountIds: [] })).toEqual([]);
      expect(await ids({ tags: ['q4'] })).toEqual(['1', '2']);
      expect(await ids({ tags: ['DESIGN', 'nothing'] })).toEqual(['1']);
      expect(await ids({ tags: ['q4'], reviewed: false })).toEqual(['2']);
      await notes.addReceipt(
        '4',
        { fileName: 'r.pdf', mediaType: 'application/pdf', content: Buffer.from('%PDF-') },
        10,
        'ana@example.test',
        when,
      );
      expect(await ids({ hasReceipt: true })).toEqual(['4']);
      expect(await ids({ hasReceipt: false, subAccountIds: ['sa'] })).toEqual(['1', '2', '3']);
      // Two settled $10 payments without a card.
      expect(await store.summary({ noAccount: true })).toEqual(
        totals(2, { payment: fig(2, -2_000) }, [2, -2_000]),
      );
    });

    it('books rows it writes to a merchant rule’s category, never over notes a person wrote', async () => {
      await fixture.engine.query('DELETE FROM transaction_notes');
      await fixture.engine.query('DELETE FROM merchant_rule');
      await fixture.engine.query('DELETE FROM accounting_category');
      const notes = new NotesStore(fixture.engine);
      const when = new Date(T0);
      const software = await notes.createCategory({ code: '6100', name: 'Software' }, when);
      const old = await notes.createCategory({ code: '7000', name: 'Old' }, when);
      await notes.createRule({ merchant: 'Figma Inc', categoryId: software.id }, 'ad@x.test', when);
      await notes.createRule({ merchant: 'Old Vendor', categoryId: old.id }, 'ad@x.test', when);
      await notes.updateCategory(old.id, { archived: true }, when);
      // A person's choice made before the row was indexed (the detail reads the card service).
      await notes.change('2', { version: 0, memo: 'mine', categoryId: null }, 'ana@x.test', when);
      await store.replaceDay(
        'sa',
        '2026-10-01',
        [
          tx({ id: '1', merchant: 'FIGMA INC' }),
          tx({ id: '2', merchant: 'Figma Inc' }),
          tx({ id: '3', merchant: 'Figma Incorporated' }),
          tx({ id: '4', merchant: 'Old Vendor' }),
          tx({ id: '5' }),
        ],
        T0,
      );
      const { notes: booked } = await notes.notesOf(['1', '2', '3', '4', '5']);
      expect(booked.get('1')).toMatchObject({
        categoryId: software.id,
        version: 1,
        updatedBy: 'merchant rule',
      });
      expect(booked.get('2')).toMatchObject({ memo: 'mine', categoryId: null, version: 1 });
      expect([...booked.keys()].sort()).toEqual(['1', '2']);
      // Walked again: the rule's notes and the person's stay as they are.
      await notes.change('1', { version: 1, categoryId: null }, 'ana@x.test', when);
      await store.replaceDay('sa', '2026-10-01', [tx({ id: '1', merchant: 'Figma Inc' })], T0);
      expect(await notes.get('1')).toMatchObject({ categoryId: null, version: 2 });
    });

    it('a merchant rule books every way its merchant is written (and merchants an admin made one with it), never over notes a person wrote', async () => {
      await fixture.engine.query('DELETE FROM transaction_notes');
      await fixture.engine.query('DELETE FROM merchant_rule');
      await fixture.engine.query('DELETE FROM accounting_category');
      await fixture.engine.query('DELETE FROM index_merchant_name');
      const notes = new NotesStore(fixture.engine);
      const when = new Date(T0);
      const fuel = await notes.createCategory({ code: '6700', name: 'Fuel' }, when);
      const old = await notes.createCategory({ code: '7000', name: 'Old' }, when);
      await notes.createRule({ merchant: 'ACME FUEL #12', categoryId: fuel.id }, 'ad@x.test', when);
      await notes.createRule({ merchant: 'Old Vendor', categoryId: old.id }, 'ad@x.test', when);
      await notes.updateCategory(old.id, { archived: true }, when);
      await notes.change('3', { version: 0, memo: 'mine', categoryId: null }, 'ana@x.test', when);
      // An admin made "Prairie Gas" one merchant with Acme Fuel.
      await fixture.engine.query(
        `INSERT INTO index_merchant_name (merchant_key, name, name_key, updated_by, updated_at)
         VALUES ('prairie gas', 'Acme Fuel', 'acme fuel', 'ad@x.test', now())`,
      );
      await store.replaceDay(
        'sa',
        '2026-10-01',
        [
          tx({ id: '1', merchant: 'SQ *ACME FUEL' }),
          tx({ id: '2', merchant: 'acme fuel #12' }),
          tx({ id: '3', merchant: 'ACME FUEL SEATTLE WA' }),
          tx({ id: '4', merchant: 'ACME FUEL DEPOT' }),
          tx({ id: '5', merchant: 'OLD VENDOR #2' }),
          tx({ id: '6', merchant: 'PRAIRIE GAS #7' }),
          tx({ id: '7' }),
        ],
        T0,
      );
      const { notes: booked } = await notes.notesOf(['1', '2', '3', '4', '5', '6', '7']);
      for (const id of ['1', '2', '6']) {
        expect(booked.get(id), id).toMatchObject({
          categoryId: fuel.id,
          updatedBy: 'merchant rule',
        });
      }
      // A person's notes stay; another merchant, an archived category's rule: nothing.
      expect(booked.get('3')).toMatchObject({ memo: 'mine', categoryId: null });
      expect([...booked.keys()].sort()).toEqual(['1', '2', '3', '6']);
      await fixture.engine.query('DELETE FROM index_merchant_name');
    });

    it('stores text no engine can hold as the replacement character, and finds it', async () => {
      await store.replaceDay(
        'sa\u0000x',
        '2026-10-01',
        [tx({ id: 'a\ud800', description: 'nul\u0000here' })],
        T0,
      );
      const page = await store.page(
        { text: 'NUL\uFFFDHERE' },
        { sort: 'date', direction: 'desc' },
        5,
      );
      expect(page.items.map((t) => [t.subAccountId, t.id, t.description])).toEqual([
        ['sa\uFFFDx', 'a\uFFFD', 'nul\uFFFDhere'],
      ]);
    });

    it('refuses a page position it did not issue, or one issued for another order', async () => {
      await load(
        store,
        [1, 2, 3].map((n) => ({ subAccountId: 'sa', ...tx({ id: `t${n}` }) })),
      );
      const first = await store.page({}, { sort: 'date', direction: 'desc' }, 1);
      expect(first.next).toBeDefined();
      await expect(
        store.page({}, { sort: 'amount', direction: 'desc' }, 1, first.next),
      ).rejects.toThrow(BadIndexCursorError);
      const at = (key: string, id = 't1', sub = 'sa') =>
        Buffer.from(JSON.stringify(['date.desc', key, sub, id])).toString('base64url');
      for (const bad of [
        '',
        'not base64 !',
        Buffer.from('["date.desc",1,2,3]').toString('base64url'),
        // Dates Date.parse takes and the engine refuses, or not as `page` writes them.
        ...['1', 'Jan 1', '2026-02-30T00:00:00.000Z', '+275760-09-13T00:00:00.000Z'].map((k) =>
          at(k),
        ),
        ...['0000-01-01T00:00:00.000Z', '1969-12-31T23:59:59.999Z', '2026-11-26T12:00:00Z'].map(
          (k) => at(k),
        ),
        // Ids the engine cannot hold.
        at('2026-11-26T12:00:00.000Z', 'a\u0000b'),
        at('2026-11-26T12:00:00.000Z', 't1', '\uD800'),
      ]) {
        await expect(store.page({}, { sort: 'date', direction: 'desc' }, 1, bad)).rejects.toThrow(
          BadIndexCursorError,
        );
      }
      for (const key of ['12345678901234567', '-1', '1.5', '']) {
        const bad = Buffer.from(JSON.stringify(['amount.desc', key, 'sa', 't1'])).toString(
          'base64url',
        );
        await expect(store.page({}, { sort: 'amount', direction: 'desc' }, 1, bad)).rejects.toThrow(
          BadIndexCursorError,
        );
      }
      // The earliest instant and the largest amount a position may hold are read.
      for (const [sort, key] of [
        ['date', '1970-01-01T00:00:00.000Z'],
        ['amount', '9999999999999999'],
      ] as const) {
        const edge = Buffer.from(JSON.stringify([`${sort}.asc`, key, 'sa', 't1'])).toString(
          'base64url',
        );
        await expect(store.page({}, { sort, direction: 'asc' }, 1, edge)).resolves.toMatchObject({
          items: expect.any(Array),
        });
      }
      await expect(store.page({}, { sort: 'date', direction: 'desc' }, 0)).rejects.toThrow(
        RangeError,
      );
    });

    it('every filter, order and page size gives the brute-force answer, page by page', async () => {
      await fc.assert(
        fc.asyncProperty(
          rowsArb,
          fc.array(fc.tuple(filterArb, orderArb, fc.integer({ min: 1, max: 7 })), {
            minLength: 1,
            maxLength: 6,
          }),
          async (rows, asks) => {
            await fixture.engine.query(
              'TRUNCATE index_transaction, index_sync_day, index_hour_tally, index_day_key_tally, index_month_key_tally',
            );
            await load(store, rows);
            for (const [filter, order, limit] of asks) {
              const want = expected(rows, filter, order);
              expect(await allPages(store, filter, order, limit)).toEqual(want.items);
              // Counted and paged at once: the set found once when it is within the cap, the
              // order walked when it is not (a cap of 1 or the page size is below most sets):
              // the same rows either way.
              for (const cap of [1, limit, want.items.length]) {
                expect(
                  await allCountedPages(
                    store,
                    filter,
                    order,
                    limit,
                    Math.max(cap, 1),
                    want.items.length,
                  ),
                ).toEqual(want.items);
              }
              expect(await store.summary(filter)).toEqual(want.summary);
              expect(await store.postedTotal(filter)).toEqual(want.summary.posted);
              for (const by of groupings) {
                const breakdown = await store.breakdown(filter, by, limit);
                expect(breakdown).toEqual(expectedBreakdown(want.items, by, limit));
                // The groups and the remainder add up to the summary, whatever the limit.
                expect(addedUp(breakdown)).toEqual(want.summary);
                // Asked together (the screen's totals, one statement): the same summary and
                // breakdown, whatever the set (the hour tallies hold some of them).
                expect(await store.totals(filter, { grouping: by, limit })).toEqual({
                  summary: want.summary,
                  breakdown: expectedBreakdown(want.items, by, limit),
                });
              }
              expect(await store.totals(filter)).toEqual({ summary: want.summary });
            }
          },
        ),
        { numRuns: 40 },
      );
    }, 120_000);

    it('places a row in any filtered set as the brute-force order does: its place, the count, the matching rows either side', async () => {
      await fc.assert(
        fc.asyncProperty(
          rowsArb.filter((rows) => rows.length > 0),
          fc.array(fc.tuple(filterArb, orderArb, fc.nat()), { minLength: 1, maxLength: 6 }),
          async (rows, asks) => {
            await fixture.engine.query(
              'TRUNCATE index_transaction, index_sync_day, index_hour_tally, index_day_key_tally, index_month_key_tally',
            );
            await load(store, rows);
            for (const [filter, order, pick] of asks) {
              const anchor = rows[pick % rows.length] as IndexedTransaction;
              // Every row in the order, then the anchor's place among them.
              const all = expected(rows, {}, order).items;
              const at = all.findIndex((t) => t.id === anchor.id);
              const matching = new Set(expected(rows, filter, order).items.map((t) => t.id));
              const before = all.slice(0, at).filter((t) => matching.has(t.id));
              const after = all.slice(at + 1).filter((t) => matching.has(t.id));
              const side = (t: IndexedTransaction | undefined) =>
                t ? { subAccountId: t.subAccountId, id: t.id } : undefined;
              const want = {
                subAccountId: anchor.subAccountId,
                count: matching.size,
                ...(matching.has(anchor.id) ? { position: before.length + 1 } : {}),
                ...(before.length > 0 ? { previous: side(before.at(-1)) } : {}),
                ...(after.length > 0 ? { next: side(after[0]) } : {}),
              };
              expect(await store.around(filter, order, anchor.id)).toEqual(want);
              // Save and next's read alone: the same next row.
              expect(await store.nextAfter(filter, order, anchor.id)).toEqual(
                after.length > 0 ? { next: side(after[0]) } : {},
              );
            }
          },
        ),
        { numRuns: 30 },
      );
    }, 120_000);

    it("suggests the category the merchant's latest booked transaction has, whatever the merchant text's case", async () => {
      await fixture.engine.query('DELETE FROM transaction_notes');
      // A merchant rule would book the rows as they are written: none here.
      await fixture.engine.query('DELETE FROM merchant_rule');
      await fixture.engine.query('DELETE FROM accounting_category');
      await store.replaceDay(
        'sa',
        '2026-10-01',
        [
          tx({ id: 'a1', merchant: 'Figma' }),
          tx({ id: 'a2', merchant: 'FIGMA' }),
          tx({ id: 'a3', merchant: 'figma' }),
          tx({ id: 'b1', merchant: 'Uber' }),
          tx({ id: 'c1' }),
        ],
        T0,
      );
      const notes = new NotesStore(fixture.engine);
      const software = await notes.createCategory({ code: '6100', name: 'Software' }, new Date(T0));
      const design = await notes.createCategory({ code: '6150', name: 'Design' }, new Date(T0));
      expect(await store.merchantsLastCategory('a1')).toBeUndefined();
      await notes.change(
        'a2',
        { version: 0, categoryId: software.id },
        'ana@example.test',
        new Date(T0 + 1_000),
      );
      await notes.change(
        'a3',
        { version: 0, categoryId: design.id },
        'ana@example.test',
        new Date(T0 + 2_000),
      );
      // Another merchant's, a memo without a category and the row's own do not count.
      await notes.change(
        'b1',
        { version: 0, categoryId: software.id },
        'ana@example.test',
        new Date(T0 + 3_000),
      );
      expect(await store.merchantsLastCategory('a1')).toBe(design.id);
      expect(await store.merchantsLastCategory('a3')).toBe(software.id);
      expect(await store.merchantsLastCategory('b1')).toBeUndefined();
      expect(await store.merchantsLastCategory('c1')).toBeUndefined();
      expect(await store.merchantsLastCategory('missing')).toBeUndefined();
      expect(
        await store.around({}, { sort: 'date', direction: 'desc' }, 'missing'),
      ).toBeUndefined();
      expect(
        await store.nextAfter({}, { sort: 'date', direction: 'desc' }, 'missing'),
      ).toBeUndefined();
    });

    it("two writes of a sub account's days at once that meet in a month leave its tallies right", async () => {
      // The sync writes a sub account's ranges side by side: both add to the month's lines of
      // the same merchants, categories and cards. Rewritten with changed rows, round after round.
      await fixture.engine.query(
        'TRUNCATE index_transaction, index_sync_day, index_hour_tally, index_day_key_tally, index_month_key_tally',
      );
      const sub = 'sa_1';
      const rowsOf = (round: number) =>
        Array.from({ length: 28 }, (_, d) =>
          Array.from({ length: 24 }, (_, i) =>
            tx({
              id: `r${d}-${i}`,
              at: new Date(T0 + d * DAY + i * 3_600_000).toISOString(),
              // Writers' merchants overlap in sets of different sizes: each writes the month's
              // shared lines in its own order unless the write orders them.
              merchant: `M${(i * 7 + d * 13 + round) % (25 + (d % 4) * 40)}`,
              categoryCode: String(5000 + ((i + round) % 9)),
              cardId: `card_${(i + d) % 10}`,
              amountCents: -(100 + ((i * 37 + d * 11 + round) % 500)),
              status: (i + round) % 11 === 0 ? 'declined' : 'settled',
              ...((i + round) % 11 === 0 ? { declineReason: `reason ${i % 3}` } : {}),
            }),
          ),
        );
      let rows: Omit<IndexedTransaction, 'subAccountId'>[][] = [];
      for (let round = 0; round < 12; round++) {
        rows = rowsOf(round);
        const write = (days: number[]) =>
          store.replaceDays(
            sub,
            days.map((d) => ({
              day: new Date(T0 + d * DAY).toISOString().slice(0, 10),
              rows: rows[d] ?? [],
            })),
            T0,
          );
        const all = Array.from({ length: 28 }, (_, d) => d);
        // Days apart (a day is written by one sync at a time), months shared.
        await Promise.all([
          write(all.filter((d) => d % 4 === 0)),
          write(all.filter((d) => d % 4 === 1).reverse()),
          write(all.filter((d) => d % 4 === 2)),
          write(all.filter((d) => d % 4 === 3).reverse()),
        ]);
      }
      const flat = rows.flat().map((r) => ({ ...r, subAccountId: sub }));
      const edges = [T0, Date.UTC(2026, 10, 1)];
      const got = await store.overviewTallies([sub], edges, 0);
      const want = expectedTallies(flat, [sub], edges, 0);
      const key = (l: { subAccountId: string; bucket: number }) => `${l.subAccountId}|${l.bucket}`;
      for (const name of ['categories', 'merchants', 'cards'] as const) {
        expect(
          new Map(got[name].map((l) => [`${key(l)}|${l.key ?? '\u0000none'}`, [l.cents, l.count]])),
          name,
        ).toEqual(want.lines[name]);
      }
      expect(
        new Map(got.declineReasons.map((l) => [`${key(l)}|${l.key ?? '\u0000none'}`, l.count])),
      ).toEqual(want.lines.declineReasons);
    }, 120_000);

    it("the Overview's tallies over a person's days give the brute-force sums, bucket by bucket", async () => {
      // Day starts over four UTC days, all on the hour (read from the tallies the sync keeps)
      // or some a millisecond or two off it (read from the rows), and where the period starts;
      // or, with the rows spread over months, over months (whole months read from their tallies).
      const edgesArb = fc
        .tuple(
          fc.uniqueArray(fc.integer({ min: -30, max: 100 }), { minLength: 2, maxLength: 6 }),
          fc.boolean(),
          fc.boolean(),
        )
        .map(([ks, onTheHour, wide]) => ({
          wide,
          edges: [...ks]
            .sort((a, b) => a - b)
            .map((k) => T0 + k * (wide ? 86_400_000 : 3_600_000) + (onTheHour ? 0 : k % 3)),
        }))
        .chain(({ wide, edges }) =>
          fc.tuple(
            fc.constant(edges),
            fc.integer({ min: 0, max: edges.length - 2 }),
            fc.constant(wide),
          ),
        );
      // Rows anywhere within their hour, and some moved afterwards to a day not walked then.
      const offsetsArb = fc.array(fc.constantFrom(0, 1, 1_799_999, 3_599_999), { minLength: 1 });
      const movesArb = fc.array(fc.tuple(fc.nat(), fc.integer({ min: -40, max: 40 })), {
        maxLength: 4,
      });
      // Every status of the contract, so each bucket of the definition of money is read.
      const allStatusesArb = fc.array(
        fc.constantFrom(
          'pending',
          'canceled',
          'failed',
          'settled',
          'declined',
          'refund',
          'reversed',
          'returned',
          'dispute',
        ),
        { minLength: 1 },
      );
      await fc.assert(
        fc.asyncProperty(
          rowsArb,
          offsetsArb,
          movesArb,
          fc.subarray(subAccounts, { minLength: 1 }),
          edgesArb,
          allStatusesArb,
          async (generated, offsets, moves, subs, [edges, breakdownFrom, wide], statusOf) => {
            await fixture.engine.query(
              'TRUNCATE index_transaction, index_sync_day, index_hour_tally, index_day_key_tally, index_month_key_tally',
            );
            const placed = generated.map((row, i) => ({
              ...row,
              status: statusOf[i % statusOf.length] ?? row.status,
              at: new Date(
                Date.parse(row.at) +
                  (offsets[i % offsets.length] ?? 0) +
                  (wide ? ((i % 4) - 1) * 17 * 86_400_000 : 0),
              ).toISOString(),
            }));
            await load(store, placed);
            // A sync walks only the day a row moved to: the day it left is not walked again.
            const rows = [...placed];
            for (const [n, hours] of moves) {
              const i = n % Math.max(rows.length, 1);
              const row = rows[i];
              if (!row) continue;
              rows[i] = {
                ...row,
                at: new Date(Date.parse(row.at) + hours * 3_600_000).toISOString(),
              };
              const day = rows[i].at.slice(0, 10);
              await store.replaceDays(
                row.subAccountId,
                [
                  {
                    day,
                    rows: rows.filter(
                      (r) => r.subAccountId === row.subAccountId && r.at.startsWith(day),
                    ),
                  },
                ],
                T0,
              );
            }
            expectTallies(
              await store.overviewTallies(subs, edges, breakdownFrom),
              expectedTallies(rows, subs, edges, breakdownFrom),
            );
          },
        ),
        { numRuns: 40 },
      );
    }, 120_000);
  });
}
