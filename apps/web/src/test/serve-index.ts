// A BFF transaction index for the web tests: the screen's requests are checked against the
// BFF's own query schema, then answered over the given rows as the index documents it (every
// member narrows, a list means any of them, amounts are sizes, `to` included, notes filters by
// review, accounting category or none, tag in any case, receipt attached or missing, and memo
// written or missing; a card's owner or team by name in any case, from the cards given), paged by
// an offset cursor, with the whole set's count and sums as a second answer (`/totals`).
import { ownershipKeyOf } from '@card-console/shared/api/card-owners';
import type { Card } from '@card-console/shared/api/cards';
import {
  type CategoryCatalog,
  INDEX_BREAKDOWN_GROUPS,
  type IndexFreshness,
  type IndexPage,
  type IndexTotals,
  type IndexTotalsAnswer,
  type IndexTransaction,
  indexExportQuerySchema,
  indexQuerySchema,
  indexTotalsQuerySchema,
} from '@card-console/shared/api/transaction-index';
import type { Transaction } from '@card-console/shared/api/transactions';
import { merchantKeyOf, merchantOf } from '@card-console/shared/merchants';
import { HttpResponse } from 'msw';
import { transaction } from './fixtures';
import { serve, server } from './server';

/** A transaction of the index: the card service's row, the sub account it belongs to, its notes. */
export function indexRow(
  overrides: Partial<Transaction> & Pick<Partial<IndexTransaction>, 'subAccountId' | 'notes'> = {},
): IndexTransaction {
  const { subAccountId = 'sa_ops', notes, ...rest } = overrides;
  return { ...transaction(rest), subAccountId, ...(notes ? { notes } : {}) };
}

type ListNotes = NonNullable<IndexTransaction['notes']>;

/** A row's notes as the list carries them: none written, unless overridden. */
export function listNotes(overrides: Partial<ListNotes> = {}): ListNotes {
  return {
    memo: '',
    categoryId: null,
    tags: [],
    reviewed: false,
    receipts: 0,
    ...overrides,
  };
}

/** The query string as the BFF reads it: a repeated key is a list. */
export function queryOf(url: string): Record<string, string | string[]> {
  const params = new URL(url).searchParams;
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    out[key] = values.length > 1 ? values : (values[0] as string);
  }
  return out;
}

export const testCatalog: CategoryCatalog = {
  groups: [
    { key: 'misc-stores', label: 'Miscellaneous stores', first: '5700', last: '7299' },
    { key: 'business', label: 'Business services', first: '7300', last: '7999' },
    { key: 'uncategorized', label: 'No merchant category' },
  ],
  categories: [
    { code: '5734', name: 'Computer Software Stores', group: 'misc-stores', themes: ['software'] },
    {
      code: '5817',
      name: 'Digital Goods: Applications (Excludes Games)',
      group: 'misc-stores',
      themes: ['software'],
    },
    { code: '5814', name: 'Fast Food Restaurants', group: 'misc-stores', themes: ['restaurants'] },
    {
      code: '7372',
      name: 'Computer Programming, Integrated Systems Design and Data Processing Services',
      group: 'business',
      themes: ['software'],
    },
  ],
};

type Filter = ReturnType<typeof indexQuerySchema.parse>;

/** The cards the index knows, by id: their owners and teams (`ServeIndexOptions.cards`). */
type CardsById = ReadonlyMap<string, Pick<Card, 'owner' | 'team'>>;

/** The row's card's owner's or team's key; none without a card, or a card without one. */
function ownershipOf(t: IndexTransaction, cards: CardsById, by: 'owner' | 'team') {
  const card = t.cardId === undefined ? undefined : cards.get(t.cardId);
  const name = by === 'owner' ? card?.owner?.name : card?.team;
  return name === undefined ? undefined : { key: ownershipKeyOf(name), name };
}

export function matches(t: IndexTransaction, q: Filter, cards: CardsById = new Map()): boolean {
  const any = <T>(list: T[] | undefined, value: T | undefined) =>
    list === undefined || (value !== undefined && list.includes(value));
  const size = Math.abs(t.amountCents);
  const at = Date.parse(t.date);
  const code = t.merchant?.categoryCode;
  const categoryAsked = q.category !== undefined || q.categoryGroup !== undefined;
  const inCategory =
    (code !== undefined && (q.category ?? []).includes(code)) ||
    (q.categoryGroup ?? []).some((key) => {
      const group = testCatalog.groups.find((g) => g.key === key);
      if (key === 'uncategorized') return code === undefined;
      return (
        code !== undefined &&
        group?.first !== undefined &&
        code >= group.first &&
        code <= (group.last as string)
      );
    });
  const words = q.q?.trim().toLowerCase();
  const notes = t.notes;
  const tagKeys = new Set(notes?.tags.map((tag) => tag.toLowerCase()));
  return (
    (q.review === undefined || (q.review === 'reviewed') === Boolean(notes?.reviewed)) &&
    (q.account === undefined ||
      q.account.some((a) => (a === 'none' ? !notes?.categoryId : notes?.categoryId === a))) &&
    (q.tag === undefined || q.tag.some((tag) => tagKeys.has(tag.toLowerCase()))) &&
    (q.receipt === undefined || (q.receipt === 'attached') === (notes?.receipts ?? 0) > 0) &&
    (q.memo === undefined || (q.memo === 'written') === Boolean(notes?.memo)) &&
    any(q.subAccountId, t.subAccountId) &&
    any(q.status, t.status) &&
    any(q.cardId, t.cardId) &&
    any(q.merchant, t.merchant?.description) &&
    any(
      q.merchantName?.map(merchantKeyOf),
      t.merchant ? merchantOf(t.merchant.description).key : undefined,
    ) &&
    any(q.declineReason, t.declineReason) &&
    any(q.owner?.map(ownershipKeyOf), ownershipOf(t, cards, 'owner')?.key) &&
    any(q.team?.map(ownershipKeyOf), ownershipOf(t, cards, 'team')?.key) &&
    (!categoryAsked || inCategory) &&
    (!words ||
      [t.description, t.merchant?.description ?? '', t.referenceNumber]
        .join('\n')
        .toLowerCase()
        .includes(words)) &&
    (q.minCents === undefined || size >= q.minCents) &&
    (q.maxCents === undefined || size <= q.maxCents) &&
    (q.from === undefined || at >= q.from) &&
    (q.to === undefined || at <= q.to)
  );
}

/** docs/money.md's table by hand (not the product's definition): a row's bucket. */
function bucketOf(t: Pick<IndexTransaction, 'status' | 'amountCents' | 'cardId'>) {
  if (t.status === 'reversed') return 'released';
  if (t.status === 'declined' || t.status === 'canceled' || t.status === 'failed')
    return 'attempted';
  if (t.status === 'returned') return 'returned';
  if (t.cardId) return t.amountCents < 0 ? 'card' : 'refund';
  return t.amountCents < 0 ? 'payment' : 'transfer';
}

/** As the BFF sums, by hand from docs/money.md: each row in its bucket, and the posted rows. */
export function indexTotalsOf(
  rows: Pick<IndexTransaction, 'status' | 'amountCents' | 'cardId'>[],
): IndexTotals {
  const zero = () => ({ count: 0, cents: 0, pendingCount: 0, pendingCents: 0 });
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
    const figure = buckets[bucketOf(t)];
    figure.count++;
    figure.cents += t.amountCents;
    if (t.status === 'pending') {
      figure.pendingCount++;
      figure.pendingCents += t.amountCents;
    }
    if (t.status === 'settled' || t.status === 'refund' || t.status === 'dispute') {
      posted.count++;
      posted.cents += t.amountCents;
    }
  }
  return { count: rows.length, buckets, posted };
}

const totals = indexTotalsOf;

export interface ServeIndexOptions {
  /** Rows per page unless the request says (`limit`). */
  pageSize?: number;
  freshness?: Partial<IndexFreshness>;
  /** Totals-by's largest groups shown (the BFF's 25 unless said). */
  groups?: number;
  /** The cards with their owners and teams (the rows' `cardId`s): none has either, unless said. */
  cards?: readonly Card[];
}

/** Serves the index over `rows`, and the category catalog. */
export function serveIndex(rows: IndexTransaction[], options: ServeIndexOptions = {}) {
  const freshness = (): IndexFreshness => ({
    syncing: false,
    days: 0,
    daysDone: 0,
    updatedAt: Date.parse('2026-03-06T12:00:00Z'),
    ...options.freshness,
  });
  const cards: CardsById = new Map(options.cards?.map((card) => [card.id, card]));
  server.use(
    serve('index.categories', () => HttpResponse.json(testCatalog)),
    serve('index.cardSubAccounts', () => {
      const subs = new Map<string, Set<string>>();
      for (const t of rows) {
        if (t.cardId) subs.set(t.cardId, (subs.get(t.cardId) ?? new Set()).add(t.subAccountId));
      }
      return HttpResponse.json({
        cards: [...subs].map(([cardId, ids]) => ({ cardId, subAccountIds: [...ids].sort() })),
        freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: Date.now() },
      });
    }),
    serve('index.transactions', ({ request }) => {
      // The SPA must send exactly what the BFF accepts.
      const q = indexQuerySchema.parse(queryOf(request.url));
      const kept = rows.filter((t) => matches(t, q, cards));
      const key = (t: IndexTransaction) =>
        q.sort === 'amount' ? Math.abs(t.amountCents) : Date.parse(t.date);
      const sign = q.direction === 'asc' ? 1 : -1;
      kept.sort((a, b) => sign * (key(a) - key(b)) || (a.id < b.id ? -1 : 1));
      const start = q.cursor === undefined ? 0 : Number(q.cursor);
      const size = q.limit ?? options.pageSize ?? 100;
      const answer: IndexPage = {
        items: kept.slice(start, start + size),
        freshness: freshness(),
      };
      if (start + size < kept.length) answer.nextCursor = String(start + size);
      return HttpResponse.json(answer);
    }),
    serve('index.totals', ({ request }) => {
      const q = indexTotalsQuerySchema.parse(queryOf(request.url));
      const kept = rows.filter((t) => matches(t, q, cards));
      const answer: IndexTotalsAnswer = { summary: totals(kept), freshness: freshness() };
      const by = q.by;
      if (
        by === 'card' ||
        by === 'category' ||
        by === 'declineReason' ||
        by === 'merchant' ||
        by === 'owner' ||
        by === 'team'
      ) {
        const groups = new Map<string | undefined, IndexTransaction[]>();
        // An owner's or a team's group: keyed by its name in any case, labelled as the cards
        // show it.
        const labels = new Map<string, string>();
        for (const t of kept) {
          // A merchant's group is keyed by its name, as the BFF's.
          let k: string | undefined;
          if (by === 'owner' || by === 'team') {
            const given = ownershipOf(t, cards, by);
            k = given?.key;
            if (given && !labels.has(given.key)) labels.set(given.key, given.name);
          } else {
            k =
              by === 'card'
                ? t.cardId
                : by === 'category'
                  ? t.merchant?.categoryCode
                  : by === 'merchant'
                    ? t.merchant && merchantOf(t.merchant.description).name
                    : t.declineReason;
          }
          groups.set(k, [...(groups.get(k) ?? []), t]);
        }
        // The largest by spend (card charges and payments without a card), the rest as one.
        const spend = (g: IndexTransaction[]) =>
          g
            .filter((t) => ['card', 'refund', 'payment'].includes(bucketOf(t)))
            .reduce((n, t) => n - t.amountCents, 0);
        const sorted = [...groups].sort(([, a], [, b]) => spend(b) - spend(a));
        const rest = sorted.slice(options.groups ?? INDEX_BREAKDOWN_GROUPS);
        answer.breakdown = {
          by,
          groupCount: groups.size,
          groups: sorted.slice(0, options.groups ?? INDEX_BREAKDOWN_GROUPS).map(([k, g]) => ({
            ...(k === undefined ? {} : { key: k }),
            ...(by === 'card' && g[0]?.card ? { label: g[0].card.name } : {}),
            ...(k !== undefined && labels.has(k) ? { label: labels.get(k) } : {}),
            ...totals(g),
          })),
          ...(rest.length > 0
            ? {
                other: {
                  ...totals(rest.flatMap(([, g]) => g)),
                  groupCount: rest.length,
                },
              }
            : {}),
        };
      }
      return HttpResponse.json(answer);
    }),
  );
}

/** The export's query, checked against the BFF's schema. */
export function parseExportQuery(url: string) {
  return indexExportQuerySchema.parse(queryOf(url));
}
