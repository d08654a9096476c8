// Every figure the product shows or writes, reconciled to the cent against an oracle written
// from docs/money.md's table (it does not import the product's definition), on both engines:
// random transaction sets (every status, with and without cards, either sign, refunds and
// zero amounts included, foreign amounts), served by a card service that follows the contract,
// read over HTTP through the BFF's index with random filters. The list's rows, its totals, every
// totals-by grouping, the CSV, the QuickBooks and Xero files, the Overview (its balance and card
// spend of the sub accounts too, each figure present or not as the contract allows) and the
// attention counts must all agree with it.
import { randomBytes } from 'node:crypto';
import {
  attentionSchema,
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import { indexGroupings } from '@card-console/shared/index-vocabulary';
import { transactionStatuses } from '@card-console/shared/upstream/enums';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX_MIGRATIONS_TABLE } from '../../platform/sql/index-migrations';
import { postgresEngine, type SqlEngine } from '../../platform/sql/sql-engine';
import { openStores } from '../../stores';
import { silentLogger } from '../../test/audit-cluster';
import type { ContractWorld } from '../../test/contract-answers';
import {
  type ContractCardService,
  startContractCardService,
} from '../../test/contract-card-service';
import { parseCsv, textBody } from '../../test/csv';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { settledOverview } from '../../test/expected-overview';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledAnswer } from '../../test/settled-index';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`money reconciliation: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

const NOW = Date.UTC(2026, 10, 20, 15);
const DAY = 86_400_000;
/** The contract's statuses (its list, not the product's reading of them). */
const STATUSES = transactionStatuses;
type Status = (typeof STATUSES)[number];

/** A row of a random set, as the oracle reads it. */
interface Row {
  id: string;
  subAccountId: string;
  at: number;
  status: Status;
  amountCents: number;
  cardId?: string;
  categoryCode?: string;
  merchant?: string;
  foreign: boolean;
}

// ---- The oracle: docs/money.md's table, by hand. -------------------------------------------
const NEVER_MOVED: Record<string, string> = {
  reversed: 'released',
  declined: 'attempted',
  canceled: 'attempted',
  failed: 'attempted',
  returned: 'returned',
};
function bucket(r: Row): string {
  const never = NEVER_MOVED[r.status];
  if (never) return never;
  if (r.cardId) return r.amountCents < 0 ? 'card' : 'refund';
  return r.amountCents < 0 ? 'payment' : 'transfer';
}
const posted = (r: Row) =>
  r.status === 'settled' || r.status === 'refund' || r.status === 'dispute';
const cardSpend = (rows: Row[]) =>
  rows
    .filter((r) => r.cardId && (posted(r) || r.status === 'pending'))
    .reduce((n, r) => n - r.amountCents, 0);
const sum = (rows: Row[]) => rows.reduce((n, r) => n + r.amountCents, 0);
/**
 * A total of the sub accounts' figures as docs/money.md says it: their sum, or no figure at all
 * when one of them has none (never a sum counting a missing figure as $0).
 */
const totalOf = (figures: (number | undefined)[]) =>
  figures.includes(undefined) ? undefined : figures.reduce((n: number, c) => n + (c ?? 0), 0);

/** A bucket's figures as every summary gives them, by hand. */
function figures(rows: Row[], name: string) {
  const inBucket = rows.filter((r) => bucket(r) === name);
  const pending = inBucket.filter((r) => r.status === 'pending');
  return {
    count: inBucket.length,
    cents: sum(inBucket),
    pendingCount: pending.length,
    pendingCents: sum(pending),
  };
}
const BUCKETS = ['card', 'refund', 'payment', 'transfer', 'released', 'attempted', 'returned'];
/** The summary of a set of rows, by hand, in the API's shape. */
function totals(rows: Row[]) {
  const inBooks = rows.filter(posted);
  return {
    count: rows.length,
    buckets: Object.fromEntries(BUCKETS.map((b) => [b, figures(rows, b)])),
    posted: { count: inBooks.length, cents: sum(inBooks) },
  };
}
type Totals = ReturnType<typeof totals>;
/** Totals added up, as groups must add up to their summary. */
function added(parts: Totals[]): Totals {
  const out = totals([]);
  for (const part of parts) {
    out.count += part.count;
    out.posted.count += part.posted.count;
    out.posted.cents += part.posted.cents;
    for (const b of BUCKETS) {
      const into = out.buckets[b] as ReturnType<typeof figures>;
      const from = part.buckets[b] as ReturnType<typeof figures>;
      into.count += from.count;
      into.cents += from.cents;
      into.pendingCount += from.pendingCount;
      into.pendingCents += from.pendingCents;
    }
  }
  return out;
}
const pick = (t: Totals): Totals => ({ count: t.count, buckets: t.buckets, posted: t.posted });

// ---- Random sets. --------------------------------------------------------------------------
const SUBS = ['sub A', 'sub-b'];
const CARDS = [
  { id: 'card 1', sub: 'sub A', last4: '1111' },
  { id: 'card-2', sub: 'sub A', last4: '2222' },
  { id: 'card_3', sub: 'sub-b', last4: '3333' },
];
const CATEGORIES = ['5812', '4121', '5734', '7372'];

const rowArb = (i: number) =>
  fc
    .record({
      sub: fc.constantFrom(...SUBS),
      daysAgo: fc.integer({ min: 0, max: 70 }),
      minute: fc.integer({ min: 0, max: 24 * 60 - 1 }),
      status: fc.constantFrom(...STATUSES),
      cents: fc.oneof(
        { weight: 19, arbitrary: fc.integer({ min: 1, max: 2_500_000 }) },
        { weight: 1, arbitrary: fc.constant(0) },
      ),
      credit: fc.boolean(),
      card: fc.option(fc.constantFrom(...CARDS), { nil: undefined }),
      // Without a card, now and then an empty card id (a string in the contract): no card.
      blankCard: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      category: fc.constantFrom(...CATEGORIES),
      foreign: fc.boolean(),
    })
    .map(
      (r): Row => ({
        id: `tx ${i}`,
        subAccountId: r.card?.sub ?? r.sub,
        at: NOW - r.daysAgo * DAY - r.minute * 60_000,
        status: r.status,
        // Any status either way: the contract ties no sign to a status (the service writes a
        // refund as a credit; one written as a debit is card spend, docs/money.md's table).
        amountCents: r.credit || r.cents === 0 ? r.cents : -r.cents,
        ...(r.card
          ? { cardId: r.card.id, categoryCode: r.category, merchant: `Shop ${r.category}` }
          : r.blankCard
            ? { cardId: '' }
            : {}),
        foreign: r.foreign,
      }),
    );

const rowsArb = fc
  .integer({ min: 0, max: 40 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => rowArb(i))));

/** A sub account's figures as the service reports them: each optional in the contract. */
interface SubFigures {
  balance?: number;
  spend?: number;
}
const figureArb = fc.option(fc.integer({ min: -50_000_000, max: 50_000_000 }), {
  nil: undefined,
  freq: 4,
});
const subFiguresArb = fc.tuple(
  ...SUBS.map(() =>
    fc.record({ balance: figureArb, spend: figureArb }, { requiredKeys: [] }).map(
      (f): SubFigures => ({
        ...(f.balance === undefined ? {} : { balance: f.balance }),
        ...(f.spend === undefined ? {} : { spend: f.spend }),
      }),
    ),
  ),
);

function worldOf(rows: readonly Row[], figures: readonly SubFigures[] = []): ContractWorld {
  return {
    subAccounts: SUBS.map((id, k) => ({
      id,
      name: `Account ${id}`,
      ...(figures[k]?.balance === undefined
        ? {}
        : { balance: { amountCents: figures[k].balance } }),
      ...(figures[k]?.spend === undefined ? {} : { spend: { amountCents: figures[k].spend } }),
    })),
    cards: CARDS.map((c) => ({
      id: c.id,
      last4: c.last4,
      name: `Card ${c.last4}`,
      status: 'active',
    })),
    transactions: rows.map((r) => ({
      subAccountId: r.subAccountId,
      item: {
        id: r.id,
        date: new Date(r.at).toISOString(),
        description: r.cardId ? `Purchase ${r.id}` : r.amountCents < 0 ? 'ACH payment' : 'Funding',
        amountCents: r.amountCents,
        status: r.status,
        referenceNumber: `ref ${r.id}`,
        ...(r.cardId
          ? {
              cardId: r.cardId,
              merchantData: { description: r.merchant, categoryCode: r.categoryCode },
            }
          : r.cardId === ''
            ? { cardId: '' }
            : {}),
        ...(r.foreign
          ? {
              originalCurrency: {
                code: 'EUR',
                amountCents: Math.round(r.amountCents * 0.9),
                conversionRate: 1.1,
              },
            }
          : {}),
      },
    })),
    pageSize: { subAccounts: 2, cards: 3, transactions: 7 },
    cursors: ['next page', 'p/2', 'p+3'],
    withCount: false,
  };
}

/** A random filter over the set: a period, maybe one sub account. */
const filterArb = fc.record({
  fromDaysAgo: fc.integer({ min: 0, max: 75 }),
  span: fc.integer({ min: 1, max: 75 }),
  sub: fc.option(fc.constantFrom(...SUBS), { nil: undefined }),
});
type Filter = { from: number; to: number; sub?: string };
/** Whole UTC days, so the Overview (which takes days) reads the same rows as the list. */
const filterOf = (f: { fromDaysAgo: number; span: number; sub?: string }): Filter => {
  const from = Math.floor(NOW / DAY) * DAY - f.fromDaysAgo * DAY;
  return { from, to: from + f.span * DAY, ...(f.sub ? { sub: f.sub } : {}) };
};
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const kept = (rows: readonly Row[], f: Filter) =>
  rows.filter(
    (r) => r.at >= f.from && r.at < f.to && (f.sub === undefined || r.subAccountId === f.sub),
  );
const queryOf = (f: Filter) =>
  `from=${f.from}&to=${f.to - 1}${f.sub ? `&subAccountId=${encodeURIComponent(f.sub)}` : ''}`;

// ---- The engines. --------------------------------------------------------------------------
// One engine of each kind for the whole file, emptied before each run: a fresh PGlite costs
// seconds of start-up, and a run must see only its own rows.
let service: ContractCardService;
let postgres: PostgresEngine;
const opened: Partial<Record<'embedded' | 'postgres', SqlEngine>> = {};
beforeAll(async () => {
  [service, postgres] = await Promise.all([
    startContractCardService('reconciliation-key'),
    startPostgres(),
  ]);
  const [embedded, server] = await Promise.all([
    migratedMemoryEngine(),
    postgres
      .createDatabase('reconciliation')
      .then((url) => postgresEngine(new pg.Pool({ connectionString: url, max: 4 }))),
  ]);
  opened.embedded = embedded;
  opened.postgres = server;
}, 180_000);
afterAll(async () => {
  await Promise.all(Object.values(opened).map((engine) => engine.close()));
  await service?.close();
  await postgres?.destroy();
});

/** The engine, the index's tables emptied (nobody has reviewed anything yet), with a close that leaves it open for the next run. */
async function emptied(kind: 'embedded' | 'postgres'): Promise<SqlEngine> {
  const engine = opened[kind] as SqlEngine;
  const tables = await engine.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables
      WHERE schemaname = 'public' AND tablename LIKE 'index\\_%' AND tablename <> $1`,
    [INDEX_MIGRATIONS_TABLE],
  );
  if (tables.length > 0)
    await engine.query(`TRUNCATE ${tables.map((t) => `"${t.name}"`).join(', ')}`);
  return { ...engine, close: async () => {} };
}

/** A BFF with an empty index on `engine`, in front of the service serving `rows`. */
async function appFor(
  engine: 'embedded' | 'postgres',
  rows: readonly Row[],
  figures: readonly SubFigures[],
) {
  service.setWorld(worldOf(rows, figures));
  const t = await startTestApp({
    upstream: { url: service.url, apiKey: service.apiKey },
    clock: new ManualClock(NOW),
    env: { sessionSecret: randomBytes(32).toString('hex') },
    stores: openStores({ open: () => emptied(engine), logger: silentLogger }),
  });
  const finance = await t.signIn('finance');
  return { t, finance };
}

const settledList = (t: TestApp, who: TestSession, query: string) =>
  settledAnswer(t, who, `/api/index/transactions?${query}`, (body) => indexPageSchema.parse(body));
const settledTotals = (t: TestApp, who: TestSession, query: string) =>
  settledAnswer(t, who, `/api/index/transactions/totals?${query}`, (body) =>
    indexTotalsAnswerSchema.parse(body),
  );

/** The close's counts once every sub account is synced (the list above asked for one only). */
async function settledAttention(t: TestApp, who: TestSession, filter: Filter) {
  for (let tries = 0; tries < 300; tries++) {
    const res = await t.request
      .get(`/api/index/attention?from=${filter.from}&to=${filter.to - 1}`)
      .set(who.headers());
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const body = attentionSchema.parse(res.body);
    if (!body.freshness.syncing && body.freshness.updatedAt !== undefined) return body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the close counts never settled');
}

async function file(t: TestApp, who: TestSession, query: string, format: string) {
  const res = await t.request
    .get(`/api/index/transactions/export.csv?${query}&tz=UTC&format=${format}`)
    .set(who.headers())
    .buffer(true)
    .parse(textBody);
  expect(res.status, String(res.body).slice(0, 300)).toBe(200);
  const [header = [], ...records] = parseCsv(String(res.body)).filter((r) => r.length > 1);
  return { header, records };
}

const cents = (text: string | undefined) => Math.round(Number(text) * 100);

for (const engine of ['embedded', 'postgres'] as const) {
  describe(`money reconciles on the ${engine} engine`, () => {
    it('the list, its totals and the files agree with the oracle, to the cent', async () => {
      await fc.assert(
        fc.asyncProperty(rowsArb, filterArb, subFiguresArb, async (rows, rawFilter, figures) => {
          const filter = filterOf(rawFilter);
          const expected = kept(rows, filter);
          const { t, finance } = await appFor(engine, rows, figures);
          try {
            const query = queryOf(filter);
            // The list: every row of the filter (at most 40, one page), each amount as given.
            const list = await settledList(t, finance, `${query}&limit=200`);
            expect(list.nextCursor, 'one page holds the set').toBeUndefined();
            expect(list.items.map((r) => r.id).sort(), "the list's rows").toEqual(
              expected.map((r) => r.id).sort(),
            );
            expect(list.items.reduce((n, r) => n + r.amountCents, 0)).toBe(sum(expected));

            // Its totals: the figures of the same filter.
            const want = totals(expected);
            const summary = (await settledTotals(t, finance, query)).summary;
            expect(summary, "the list's totals").toEqual(want);

            // Every grouping: its groups and the remainder add up to the summary.
            for (const by of indexGroupings) {
              const grouped = await settledTotals(t, finance, `${query}&by=${by}`);
              const breakdown = grouped.breakdown;
              expect(breakdown?.by).toBe(by);
              const parts = [
                ...(breakdown?.groups ?? []),
                ...(breakdown?.other ? [breakdown.other] : []),
              ];
              expect(added(parts.map((p) => pick(p as Totals))), by).toEqual(want);
            }

            // Card Console's own file: every row of the filter, each amount as the service gave it.
            const own = await file(t, finance, query, 'card-console');
            const id = own.header.indexOf('id');
            const amount = own.header.indexOf('amount');
            expect(own.records.map((r) => r[id]).sort()).toEqual(expected.map((r) => r.id).sort());
            expect(own.records.reduce((n, r) => n + cents(r[amount]), 0)).toBe(sum(expected));

            // The accounting files: the posted rows only, netting to the posted total.
            const books = expected.filter(posted);
            const quickbooks = await file(t, finance, query, 'quickbooks');
            const qbAmount = quickbooks.header.indexOf('Amount');
            expect(quickbooks.records).toHaveLength(books.length);
            expect(quickbooks.records.reduce((n, r) => n + cents(r[qbAmount]), 0)).toBe(sum(books));
            const xero = await file(t, finance, query, 'xero');
            const xeroAmount = xero.header.indexOf('*Amount');
            const reference = xero.header.indexOf('Reference');
            expect(xero.records.map((r) => r[reference]).sort()).toEqual(
              books.map((r) => r.id).sort(),
            );
            expect(xero.records.reduce((n, r) => n + cents(r[xeroAmount]), 0)).toBe(sum(books));
            // The journal: one balanced entry per posted row (its debits equal its credits).
            const journal = await file(t, finance, query, 'quickbooks-journal');
            const entry = journal.header.indexOf('JournalNo');
            const debits = journal.header.indexOf('Debits');
            const credits = journal.header.indexOf('Credits');
            const entries = new Map<string, number>();
            for (const r of journal.records) {
              const key = r[entry] ?? '';
              entries.set(
                key,
                (entries.get(key) ?? 0) + cents(r[debits] || '0') - cents(r[credits] || '0'),
              );
            }
            expect(entries.size).toBe(books.length);
            for (const [key, balance] of entries) expect(balance, `entry ${key}`).toBe(0);

            // The month close's counts over the same days: what moved or will, never what did
            // not; nothing is reviewed yet, so every such row is to review.
            const attention = await settledAttention(t, finance, filter);
            const everySub = kept(rows, { from: filter.from, to: filter.to });
            const moves = everySub.filter((r) => posted(r) || r.status === 'pending');
            expect(attention.unreviewed.count).toBe(moves.length);
            expect(attention.unreviewed.debitCents).toBe(
              0 - sum(moves.filter((r) => r.amountCents < 0)),
            );
            const attempted = everySub.filter((r) => bucket(r) === 'attempted');
            expect(attention.declined).toEqual({ count: attempted.length, cents: sum(attempted) });

            // The Overview of the same days: card spend, and every bucket, as the list says.
            const overview = await settledOverview(t, finance, {
              from: isoDay(filter.from),
              to: isoDay(filter.to - 1),
              tz: 'UTC',
              ...(filter.sub ? { subAccountId: filter.sub } : {}),
            });
            expect(overview.totals.cardSpendCents).toBe(cardSpend(expected));
            expect(overview.totals.money, "the Overview's buckets").toEqual(want.buckets);
            expect(overview.totals.count, "the Overview's count").toBe(expected.length);
            // Its balance and card spend: the sub accounts' of the filter as the service reports
            // them, summed, or none when one of them has none.
            const shown = figures.filter(
              (_, k) => filter.sub === undefined || SUBS[k] === filter.sub,
            );
            expect(overview.balanceCents, "the Overview's balance").toBe(
              totalOf(shown.map((f) => f.balance)),
            );
            expect(overview.spendCents, "the Overview's card spend of the sub accounts").toBe(
              totalOf(shown.map((f) => f.spend)),
            );
          } finally {
            await t.close();
          }
        }),
        { seed, numRuns: 8 },
      );
    }, 600_000);
  });
}
