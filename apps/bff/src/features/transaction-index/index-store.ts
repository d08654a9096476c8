// The transaction index's store: one implementation in SQL that runs on both engines
// (`sql-engine.ts`). A sync replaces a sub account's UTC day at a time; the screens ask for a
// filtered, sorted page (keyset paging) and for the count and sums of the whole filtered set.

import { merchantsOf } from '@card-console/shared/merchants';
import {
  cardSpendSql,
  emptyFigure,
  hasCard,
  type MoneyBucket,
  type MoneySummary,
  moneyBucketOfPartsSql,
  moneyBucketSql,
  moneyBuckets,
  moneyPartsSql,
  pendingSql,
  postedCents,
  postedCount,
  postedSql,
} from '@card-console/shared/money-definition';
import type { SqlEngine, SqlQueryable } from '../../platform/sql/sql-engine';
import { storable } from '../../platform/sql/storable';

/** A transaction as the index keeps it (times at millisecond precision, ISO 8601 UTC). */
export interface IndexedTransaction {
  subAccountId: string;
  id: string;
  at: string;
  description: string;
  merchant?: string;
  categoryCode?: string;
  referenceNumber: string;
  /** Negative: a debit; positive: a credit (the card service's sign). */
  amountCents: number;
  status: string;
  declineReason?: string;
  cardId?: string;
  authorizedAt?: string;
  originalCurrency?: { code?: string; amountCents?: number; conversionRate?: number };
}

/** One page a running sync read of a date range (inclusive Unix ms) it has not finished. */
export interface SyncRangePage {
  from: number;
  to: number;
  /** The dates asked for end here (one millisecond past `to` for a range below another). */
  askTo: number;
  /** The page's place in its range, from 1. */
  page: number;
  /** The cursor of the page after it; absent: it was the range's last. */
  next?: string;
  rows: readonly Omit<IndexedTransaction, 'subAccountId'>[];
}

/** A range a sync read part or all of, as its kept pages say (`openRanges`). */
export interface OpenSyncRange {
  from: number;
  to: number;
  askTo: number;
  /** Pages kept, in order from the range's first. */
  pages: number;
  /** Where the range goes on; absent: its last page is among those kept. */
  next?: string;
  rows: Omit<IndexedTransaction, 'subAccountId'>[];
  /** When its latest page was kept (Unix ms). */
  writtenAt: number;
}

/**
 * Which transactions: every given member narrows the set, a list means "any of these", an
 * absent member does not filter. Amounts are sizes (the absolute value, either sign), both
 * bounds included; times are Unix milliseconds, `from` included, `to` excluded.
 */
export interface IndexFilter {
  subAccountIds?: readonly string[];
  /** Words in the description, the merchant's text or the reference number, any case. */
  text?: string;
  merchants?: readonly string[];
  /**
   * The categories asked for, any of them: these codes, the codes within these inclusive
   * four-digit bounds, and (`uncategorized`) rows with no code or none within `0001`–`9999`.
   */
  categoryCodes?: readonly string[];
  categoryRanges?: readonly (readonly [string, string])[];
  uncategorized?: boolean;
  statuses?: readonly string[];
  cardIds?: readonly string[];
  /**
   * The cards of any of these owners, and of any of these teams, by key (`ownershipKeyOf`):
   * Card Console's own (`card_owner`, the same database), read in the same statement.
   */
  ownerKeys?: readonly string[];
  teamKeys?: readonly string[];
  declineReasons?: readonly string[];
  /**
   * Declines (or any row) the card service gave no reason for: none, or only spaces, as the
   * Overview's "No reason given" counts them. With `declineReasons`, rows of any of them or none.
   */
  noDeclineReason?: boolean;
  /** Rows with a card, or (false) without one: an absent or empty card id is none (docs/money.md). */
  withCard?: boolean;
  minCents?: number;
  maxCents?: number;
  from?: number;
  to?: number;
  /**
   * Transaction notes (`features/notes`, the same store): reviewed or not; booked to any
   * of these accounting categories and/or (`noAccount`) to none; carrying any of these tags,
   * whatever their case.
   */
  reviewed?: boolean;
  accountIds?: readonly string[];
  noAccount?: boolean;
  tags?: readonly string[];
  /** With a receipt attached (true) or none (false). */
  hasReceipt?: boolean;
  /** With a memo written, or none (a transaction without notes has none). */
  memo?: 'missing' | 'written';
}

export interface IndexOrder {
  /** `amount` orders by size, as "largest first" means to a person. */
  sort: 'date' | 'amount';
  direction: 'asc' | 'desc';
}

export interface IndexPage {
  items: IndexedTransaction[];
  /** Where the next page starts; absent on the last page. Opaque to callers. */
  next?: string;
}

const neighbour = (pair: [string, string] | null) =>
  pair ? { subAccountId: pair[0], id: pair[1] } : undefined;

/** Where one row stands in a filtered set (`TransactionIndexStore.around`). */
export interface IndexNeighbours {
  /** The sub account the index holds the row under. */
  subAccountId: string;
  count: number;
  /** 1-based; absent when the row does not match the filter. */
  position?: number;
  previous?: { subAccountId: string; id: string };
  next?: { subAccountId: string; id: string };
}

/**
 * A set's (or a group's) figures as docs/money.md reads them: every row in exactly one bucket
 * (card spend, refunds, other payments, transfers in, released, declined, returned; their
 * counts add up to `count`), and the posted rows, what an accounting file of the set nets to.
 */
export interface IndexSummary {
  count: number;
  buckets: MoneySummary;
  /** Posted rows (`postsToBooks`): their count and signed sum, as an accounting file holds. */
  posted: { count: number; cents: number };
}

/**
 * A set's lines by status, card and sign (`moneyPartsSql`), before they are named by bucket:
 * grouped by the bucket's CASE expression itself, the planner took its groups for a tenth of
 * the rows and sorted them on disk (the count and sums of 930,000 rows 470 ms; 240 ms so).
 * Two sums a row, count and amount: a line's status is one, so its pending part is all of it or
 * none, and its rows share a sign, so the sum of their sizes is the size of their sum (five
 * sums a row took 3–9 % longer over 1,000,000 rows by merchant, category, card or sub account).
 */
const PART_LINES = `${moneyPartsSql}, count(*) AS n, coalesce(sum(amount_cents), 0) AS cents,
  CASE WHEN ${pendingSql} THEN count(*) ELSE 0 END AS pending_n,
  CASE WHEN ${pendingSql} THEN coalesce(sum(amount_cents), 0) ELSE 0 END AS pending_cents`;
/** `PART_LINES`' lines summed by bucket, as `summaryOf` reads them (the definition's SQL). */
const BUCKET_OF_PARTS = `${moneyBucketOfPartsSql} AS bucket, sum(n)::text AS n,
  sum(cents)::text AS cents, sum(pending_n)::text AS pending_n,
  sum(pending_cents)::text AS pending_cents`;
/** The lines by bucket of the rows `source` names (`FROM` and `WHERE`). */
const bucketLines = (source: string) =>
  `SELECT ${BUCKET_OF_PARTS} FROM (SELECT ${PART_LINES} ${source} GROUP BY 1, 2, 3) AS parts GROUP BY 1`;
interface BucketLine {
  bucket: MoneyBucket;
  n: string;
  cents: string;
  pending_n: string;
  pending_cents: string;
}

/** One set's figures from its bucket lines (absent buckets: zero). */
function summaryOf(lines: readonly BucketLine[]): IndexSummary {
  const buckets = Object.fromEntries(moneyBuckets.map((b) => [b, emptyFigure()])) as MoneySummary;
  let count = 0;
  for (const line of lines) {
    const figure = buckets[line.bucket];
    figure.count += Number(line.n);
    figure.cents += Number(line.cents);
    figure.pendingCount += Number(line.pending_n);
    figure.pendingCents += Number(line.pending_cents);
    count += Number(line.n);
  }
  return { count, buckets, posted: { count: postedCount(buckets), cents: postedCents(buckets) } };
}

/** What a set's totals can be broken down by. */
export const INDEX_GROUPINGS = {
  card: 'card_id',
  merchant: 'merchant',
  category: 'category_code',
  declineReason: 'decline_reason',
  subAccount: 'sub_account_id',
  status: 'status',
} as const;
/**
 * Groupings by what Card Console keeps of a card (`card_owner`): its owner's and its team's
 * names, as every card of one shows them; a card without is in the group without a key.
 */
const OWNERSHIP_GROUPINGS = { owner: 'card_owner', team: 'card_team' } as const;
export type IndexGrouping = keyof typeof INDEX_GROUPINGS | keyof typeof OWNERSHIP_GROUPINGS;
/** The rows with their card's owner's and team's names (`OWNERSHIP_GROUPINGS`' columns). */
const WITH_OWNERSHIP = `index_transaction LEFT JOIN (
    SELECT card_id AS owned_card, owner_name AS card_owner, team_name AS card_team FROM card_owner
  ) AS ownership ON ownership.owned_card = index_transaction.card_id`;

/** One group of a breakdown; `key` null: the rows without that value (no card, no merchant…). */
export interface IndexGroupTotal extends IndexSummary {
  key: string | null;
}

/** A tally's line: one sub account's bucket (`overviewTallies`). */
interface TallyKey {
  subAccountId: string;
  bucket: number;
}

/** What the Overview adds up, per sub account and bucket (a person's calendar day). */
export interface OverviewTallies {
  totals: (TallyKey & {
    count: number;
    pendingCount: number;
    cardCount: number;
    declines: number;
  })[];
  /**
   * The rows by the definition's bucket (`moneyBucketSql`): count, signed cents and their
   * pending part, one line per sub account, bucket and kind of money with any row.
   */
  money: (TallyKey & {
    kind: MoneyBucket;
    count: number;
    cents: number;
    pendingCount: number;
    pendingCents: number;
  })[];
  /** Declined card transactions by their reason as stored (absent: null). */
  declineReasons: (TallyKey & { key: string | null; count: number })[];
  /**
   * Card spend (`cardSpendSql`: card charges less refunds, settled, pending and disputed), in
   * positive cents net of refunds, by merchant category code, merchant and card.
   */
  categories: (TallyKey & { key: string | null; cents: number; count: number })[];
  merchants: (TallyKey & { key: string | null; cents: number; count: number })[];
  cards: (TallyKey & { key: string | null; cents: number; count: number })[];
}

export interface IndexBreakdown {
  /**
   * The largest groups by spend (card spend, net of refunds, and other payments), then by
   * amounts declined, by count, by key (bytes; no value last).
   */
  groups: IndexGroupTotal[];
  /** How many groups there are in all. */
  groupCount: number;
  /** The groups past `groups`, summed as one ("Other 36 cards"); absent when none are left. */
  other?: IndexSummary & { groupCount: number };
}

/** A page position that is not one this store issued (or not for this order). */
export class BadIndexCursorError extends Error {
  override name = 'BadIndexCursorError';
}

export const MAX_INDEX_PAGE = 2_000;

const HOUR_MS = 3_600_000;
/** Each money bucket's four columns in `index_hour_tally` (and `overviewTallies`' lines). */
const MONEY_COLUMNS = moneyBuckets.map((kind) => ({
  kind,
  n: `m_${kind}_n`,
  cents: `m_${kind}_cents`,
  pendingN: `m_${kind}_pending_n`,
  pendingCents: `m_${kind}_pending_cents`,
}));
/** Memory for the Overview's per-day sums of hour tallies (`overviewTallies`), its statement alone. */
const TALLY_WORK_MEM = '32MB';
const DAY_MS = 86_400_000;

/** The first instant of the UTC month that `ms` is in, or of the next one when `ms` is past it. */
function monthStartAtOrAfter(ms: number): number {
  const d = new Date(ms);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return start === ms ? ms : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** The first instant of the UTC month that `ms` is in. */
function monthStartAtOrBefore(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The text search compares: lower-cased here, on the way in and for the term alike. */
export function searchTextOf(
  t: Pick<IndexedTransaction, 'description' | 'merchant' | 'referenceNumber'>,
): string {
  return storable([t.description, t.merchant ?? '', t.referenceNumber].join('\n').toLowerCase());
}

/** A row's columns; its times as Unix ms (a number decodes faster than a time's text). */
const COLUMNS = `sub_account_id, id, (extract(epoch FROM at) * 1000)::bigint AS at, description,
  merchant, category_code, reference_number, amount_cents::text AS amount_cents, status,
  decline_reason, card_id, (extract(epoch FROM authorized_at) * 1000)::bigint AS authorized_at,
  original_currency`;

interface Row {
  sub_account_id: string;
  id: string;
  /** Unix ms. */
  at: number;
  description: string;
  merchant: string | null;
  category_code: string | null;
  reference_number: string;
  amount_cents: string;
  status: string;
  decline_reason: string | null;
  card_id: string | null;
  authorized_at: number | null;
  original_currency: IndexedTransaction['originalCurrency'] | null;
}

function fromRow(row: Row): IndexedTransaction {
  const t: IndexedTransaction = {
    subAccountId: row.sub_account_id,
    id: row.id,
    at: new Date(row.at).toISOString(),
    description: row.description,
    referenceNumber: row.reference_number,
    amountCents: Number(row.amount_cents),
    status: row.status,
  };
  if (row.merchant !== null) t.merchant = row.merchant;
  if (row.category_code !== null) t.categoryCode = row.category_code;
  if (row.decline_reason !== null) t.declineReason = row.decline_reason;
  if (row.card_id !== null) t.cardId = row.card_id;
  if (row.authorized_at !== null) t.authorizedAt = new Date(row.authorized_at).toISOString();
  if (row.original_currency !== null) t.originalCurrency = row.original_currency;
  return t;
}

export { storable };

/** `%`, `_` and the escape itself, taken literally in a LIKE pattern. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A category range's four-digit bound as a number (the bounds are checked where they are asked). */
function fourDigitBound(bound: string): number {
  if (!/^[0-9]{4}$/.test(bound)) throw new RangeError('a category range has four-digit bounds');
  return Number(bound);
}

/** The WHERE clause of a filter, its values bound as parameters. */
function whereOf(filter: IndexFilter, params: unknown[], engine: SqlEngine['kind']): string {
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const conditions: string[] = [];
  const anyOf = (column: string, values: readonly string[] | undefined) => {
    if (values?.length === 1) {
      // One value as `=`, not `= ANY`: the planner then knows the column is constant and walks
      // an index in the list's order (one sub account's newest first) instead of sorting the
      // whole sub account for each page.
      conditions.push(`${column} = ${bind(storable(values[0] as string))}::text`);
    } else if (values !== undefined) {
      conditions.push(`${column} = ANY(${bind(values.map(storable))}::text[])`);
    }
  };
  anyOf('sub_account_id', filter.subAccountIds);
  if (filter.merchants !== undefined) {
    // The exact merchant, found through the index on `lower(merchant)` (the review queue's):
    // the same rows, read by the index rather than the table.
    // (The engine lowers the asked names too, as it lowered the index's.)
    const merchants = filter.merchants.map(storable);
    conditions.push(
      merchants.length === 1
        ? `lower(merchant) = lower(${bind(merchants[0])}::text)`
        : `lower(merchant) = ANY(ARRAY(SELECT lower(m) FROM unnest(${bind(merchants)}::text[]) AS m))`,
    );
    anyOf('merchant', filter.merchants);
  }
  const categories: string[] = [];
  if (filter.categoryCodes !== undefined) {
    // A four-digit code is its `category_number` (indexed); any other code is matched as text.
    const codes = filter.categoryCodes.map(storable);
    const fourDigit = codes.filter((code) => /^[0-9]{4}$/.test(code));
    const others = codes.filter((code) => !/^[0-9]{4}$/.test(code));
    if (fourDigit.length > 0) {
      categories.push(`category_number = ANY(${bind(fourDigit.map(Number))}::int[])`);
    }
    if (others.length > 0) categories.push(`category_code = ANY(${bind(others)}::text[])`);
  }
  // `category_number`: a four-digit code as a number, else null (migration
  // 20261127125000000_category-number.sql); four-digit bounds compare as their numbers do.
  for (const [first, last] of filter.categoryRanges ?? []) {
    categories.push(
      `category_number BETWEEN ${bind(fourDigitBound(first))} AND ${bind(fourDigitBound(last))}`,
    );
  }
  if (filter.uncategorized) categories.push('(category_number IS NULL OR category_number = 0)');
  // Asked for (even as an empty list, which matches nothing, as every list member's).
  if (filter.categoryCodes || filter.categoryRanges || filter.uncategorized) {
    conditions.push(categories.length > 0 ? `(${categories.join(' OR ')})` : 'FALSE');
  }
  anyOf('status', filter.statuses);
  anyOf('card_id', filter.cardIds);
  for (const [column, keys] of [
    ['owner_key', filter.ownerKeys],
    ['team_key', filter.teamKeys],
  ] as const) {
    if (keys === undefined) continue;
    conditions.push(
      `card_id IN (SELECT co.card_id FROM card_owner co WHERE co.${column} = ANY(${bind(keys)}::text[]))`,
    );
  }
  if (filter.noDeclineReason) {
    const reasons = filter.declineReasons;
    // The index keeps a blank reason as none (`replaceDays`).
    const none = 'decline_reason IS NULL';
    conditions.push(
      reasons === undefined
        ? none
        : `(decline_reason = ANY(${bind(reasons.map(storable))}::text[]) OR ${none})`,
    );
  } else {
    anyOf('decline_reason', filter.declineReasons);
  }
  // The index keeps an empty card id as none (`replaceDays`), so none is NULL.
  if (filter.withCard !== undefined) {
    conditions.push(filter.withCard ? 'card_id IS NOT NULL' : 'card_id IS NULL');
  }
  const text = filter.text === undefined ? undefined : storable(filter.text.trim().toLowerCase());
  if (text) conditions.push(`search_text LIKE ${bind(`%${likeLiteral(text)}%`)}`);
  if (filter.minCents !== undefined)
    conditions.push(`abs(amount_cents) >= ${bind(filter.minCents)}`);
  if (filter.maxCents !== undefined)
    conditions.push(`abs(amount_cents) <= ${bind(filter.maxCents)}`);
  if (filter.from !== undefined) {
    conditions.push(`at >= ${bind(new Date(filter.from).toISOString())}::timestamptz`);
  }
  if (filter.to !== undefined) {
    conditions.push(`at < ${bind(new Date(filter.to).toISOString())}::timestamptz`);
  }
  notesConditions(filter, conditions, bind, engine);
  return conditions.length === 0 ? 'TRUE' : conditions.join(' AND ');
}

/**
 * The filter's members on transaction notes, as conditions on the row's notes (a transaction
 * without notes is unreviewed, booked to no category and has no tags). On PostgreSQL each is a
 * correlated `EXISTS`, which its planner turns into an anti- or semi-join on the statistics
 * autovacuum keeps. The embedded engine has no autovacuum: with its notes' and receipts'
 * statistics stale or empty it probed them row by row ("no receipt" over 100,000 rows: 590 ms),
 * so there each is the row's id `IN` the matching notes (or receipts), read once into a hash
 * (82 ms; `pnpm bench review-queue`). Their ids are never null (primary and foreign keys), so
 * `NOT IN` means "none of them".
 */
function notesConditions(
  filter: IndexFilter,
  conditions: string[],
  bind: (value: unknown) => string,
  engine: SqlEngine['kind'],
): void {
  const hashed = engine === 'embedded';
  const notes = (condition: string) =>
    hashed
      ? `(index_transaction.id IN (SELECT n.transaction_id FROM transaction_notes n WHERE ${condition}))`
      : `EXISTS (SELECT 1 FROM transaction_notes n
                  WHERE n.transaction_id = index_transaction.id AND ${condition})`;
  if (filter.reviewed !== undefined) {
    const reviewed = notes('n.reviewed_by IS NOT NULL');
    conditions.push(filter.reviewed ? reviewed : `NOT ${reviewed}`);
  }
  if (filter.accountIds !== undefined || filter.noAccount) {
    const accounts: string[] = [];
    if (filter.accountIds !== undefined)
      accounts.push(notes(`n.category_id = ANY(${bind(filter.accountIds.map(storable))}::text[])`));
    if (filter.noAccount) accounts.push(`NOT ${notes('n.category_id IS NOT NULL')}`);
    conditions.push(`(${accounts.join(' OR ')})`);
  }
  if (filter.memo !== undefined) {
    const written = notes("n.memo <> ''");
    conditions.push(filter.memo === 'written' ? written : `NOT ${written}`);
  }
  if (filter.hasReceipt !== undefined) {
    const receipt = hashed
      ? '(index_transaction.id IN (SELECT r.transaction_id FROM transaction_receipt r))'
      : 'EXISTS (SELECT 1 FROM transaction_receipt r WHERE r.transaction_id = index_transaction.id)';
    conditions.push(filter.hasReceipt ? receipt : `NOT ${receipt}`);
  }
  if (filter.tags !== undefined) {
    // Both sides lower-cased by the engine, so they compare alike.
    const tags = bind(filter.tags.map(storable));
    conditions.push(
      notes(
        `EXISTS (SELECT 1 FROM unnest(n.tags) tag, unnest(${tags}::text[]) asked
                 WHERE lower(tag) = lower(asked))`,
      ),
    );
  }
}

/**
 * The whole UTC hours of a filter that narrows by sub account and time alone (`from`, `to`:
 * the first whole hour at or after `from`, and the end of the last one before `to`; either
 * open when the filter's is), whose figures the hour tallies hold; none for any other filter,
 * or when no whole hour lies between its bounds.
 */
export function talliedHours(filter: IndexFilter): { from?: number; to?: number } | undefined {
  const narrowed = Object.entries(filter).filter(([, value]) => value !== undefined);
  if (!narrowed.every(([key]) => key === 'subAccountIds' || key === 'from' || key === 'to')) {
    return undefined;
  }
  const from = filter.from === undefined ? undefined : Math.ceil(filter.from / HOUR_MS) * HOUR_MS;
  const to = filter.to === undefined ? undefined : Math.floor(filter.to / HOUR_MS) * HOUR_MS;
  if (from !== undefined && to !== undefined && from >= to) return undefined;
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

const SORT_KEYS = { date: 'at', amount: 'abs(amount_cents)' } as const;
/**
 * The same order, as expressions no index holds (`countedPage`: a small set's page sorted after
 * its match; `page` with a bound: the rows within it sorted): walking the date or amount index
 * in order would visit rows the filter drops until a page of matches is found, which for a
 * sparse set is most of the table (1.2 s at 1,000,000 rows); the key as an expression the index
 * does not hold keeps the planner from it.
 */
const SORT_EXPRESSIONS = {
  date: "(at + interval '0 s')",
  amount: '(abs(amount_cents) + 0)',
} as const;
/** At most this many matching rows, a page is sorted after the match (`countedPage`). */
export const SORT_AFTER_MATCH_ROWS = 20_000;

/**
 * Whether a page of `filter` is asked with its count (`countedPage`), to know how to find it:
 * when it narrows by more than sub account, status and dates (words, merchants, categories,
 * cards, decline reasons, amounts), its matches may be sparse in the date or amount order, and
 * walking that order to find a page can read most of the table. A set of sub accounts,
 * statuses and days alone is dense in both orders: its page is asked at once.
 */
export function pageAfterCount(filter: IndexFilter): boolean {
  return (
    (filter.text !== undefined && filter.text.trim() !== '') ||
    filter.merchants !== undefined ||
    filter.categoryCodes !== undefined ||
    filter.categoryRanges !== undefined ||
    filter.uncategorized === true ||
    filter.cardIds !== undefined ||
    filter.declineReasons !== undefined ||
    filter.noDeclineReason === true ||
    filter.minCents !== undefined ||
    filter.maxCents !== undefined
  );
}

/** A page position: the last row's sort key, sub account and id, in the order it was issued for. */
interface Position {
  order: `${IndexOrder['sort']}.${IndexOrder['direction']}`;
  key: string;
  subAccountId: string;
  id: string;
}

function encodePosition(p: Position): string {
  return Buffer.from(JSON.stringify([p.order, p.key, p.subAccountId, p.id])).toString('base64url');
}

function decodePosition(cursor: string, order: IndexOrder): Position {
  const expected = `${order.sort}.${order.direction}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new BadIndexCursorError('not a page position of this list');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    !parsed.every((part) => typeof part === 'string') ||
    parsed[0] !== expected
  ) {
    throw new BadIndexCursorError('not a page position of this list, or of another order');
  }
  const [, key, subAccountId, id] = parsed as [string, string, string, string];
  // Only what `page` writes: an instant since 1970 as `toISOString` spells it in a four-digit
  // year (Date.parse also takes "1", "Jan 1" or "+275760-09-13", which the engine refuses), an
  // amount in cents, ids the engine can hold.
  const at = Date.parse(key);
  const valid =
    (order.sort === 'date'
      ? at >= 0 && key.length === 24 && new Date(at).toISOString() === key
      : /^\d{1,16}$/.test(key)) &&
    storable(subAccountId) === subAccountId &&
    storable(id) === id;
  if (!valid) throw new BadIndexCursorError('not a page position of this list');
  return { order: expected as Position['order'], key, subAccountId, id };
}

/**
 * SQL: the rows after `cursor` (a `next` this store issued) in `order`, `columns` naming the
 * sort key, sub account and id as the statement has them; its values bound in `params`.
 */
function afterPosition(
  cursor: string,
  order: IndexOrder,
  params: unknown[],
  columns: readonly [key: string, subAccountId: string, id: string],
): string {
  const p = decodePosition(cursor, order);
  params.push(p.key, p.subAccountId, p.id);
  const n = params.length;
  const keyParam = order.sort === 'date' ? `$${n - 2}::timestamptz` : `$${n - 2}::bigint`;
  return `(${columns.join(', ')}) ${order.direction === 'desc' ? '<' : '>'} (${keyParam}, $${n - 1}, $${n})`;
}

/** A page holds 1 to `MAX_INDEX_PAGE` rows. */
function checkPageLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_INDEX_PAGE) {
    throw new RangeError(`a page holds 1 to ${MAX_INDEX_PAGE} rows`);
  }
}

/**
 * Merchant rules (`features/notes`): rows just written whose merchant is a rule's and that have
 * no notes get notes booking them to the rule's category, unless it is archived. The merchant,
 * however written: a rule made on "ACME FUEL #12" books "SQ *ACME FUEL" too, as `merchants.ts`
 * groups the rule's and the rows' texts and an admin's names (`index_merchant_name`) join them,
 * read in the write's transaction; the same text in any case always. Two rules of one merchant:
 * the rule of the row's own text, else the first by id. A row with notes, a person's choice,
 * is left as it is.
 */
async function applyMerchantRules(
  tx: SqlQueryable,
  subAccountId: string,
  ids: readonly string[],
  at: number,
): Promise<void> {
  const rules = await tx.query<{ id: string; merchant: string; category_id: string }>(
    `SELECT r.id, r.merchant, r.category_id FROM merchant_rule r
       JOIN accounting_category c ON c.id = r.category_id AND NOT c.archived
      ORDER BY r.id COLLATE "C"`,
  );
  if (rules.length === 0) return;
  const [rows, named] = await Promise.all([
    tx.query<{ id: string; merchant: string }>(
      `SELECT t.id, t.merchant FROM index_transaction t
        WHERE t.sub_account_id = $1 AND t.id = ANY($2::text[]) AND t.merchant IS NOT NULL`,
      [subAccountId, ids],
    ),
    tx.query<{ merchant_key: string; name_key: string }>(
      'SELECT merchant_key, name_key FROM index_merchant_name',
    ),
  ]);
  const renamed = new Map(named.map((n) => [n.merchant_key, n.name_key]));
  const grouped = merchantsOf([...rules.map((r) => r.merchant), ...rows.map((r) => r.merchant)]);
  const keyOf = (text: string) => {
    const key = grouped.get(text)?.key ?? text.toLowerCase();
    return renamed.get(key) ?? key;
  };
  const byText = new Map<string, string>();
  const byKey = new Map<string, string>();
  for (const rule of rules) {
    const text = rule.merchant.toLowerCase();
    if (!byText.has(text)) byText.set(text, rule.category_id);
    const key = keyOf(rule.merchant);
    if (!byKey.has(key)) byKey.set(key, rule.category_id);
  }
  const booked = rows.flatMap((row) => {
    const category = byText.get(row.merchant.toLowerCase()) ?? byKey.get(keyOf(row.merchant));
    return category === undefined ? [] : [[row.id, category] as const];
  });
  if (booked.length === 0) return;
  await tx.query(
    `INSERT INTO transaction_notes
       (transaction_id, memo, category_id, tags, version, updated_by, updated_at)
     SELECT b.id, '', b.category_id, '{}', 1, 'merchant rule', $3::timestamptz
       FROM unnest($1::text[], $2::text[]) AS b(id, category_id)
     ON CONFLICT (transaction_id) DO NOTHING`,
    [booked.map(([id]) => id), booked.map(([, c]) => c), new Date(at).toISOString()],
  );
}

/** Rows written before the first refresh of the planner's statistics (then at each doubling). */
export const STATISTICS_AFTER_ROWS = 1_000;

/**
 * The tables a sync's writes grow (`replaceDays`): the rows, their tallies, the days walked, and
 * the notes merchant rules book. Their statistics are the ones refreshed as a sync writes; the
 * kept pages are read by key alone, and the other tables change as people work, not by
 * thousands of rows.
 */
export const SYNC_WRITTEN_TABLES = [
  'index_transaction',
  'index_hour_tally',
  'index_day_key_tally',
  'index_month_key_tally',
  'index_sync_day',
  'transaction_notes',
] as const;

export class TransactionIndexStore {
  /** Rows this process wrote, and the count at which the statistics are refreshed next. */
  private written = 0;
  private statisticsAt = STATISTICS_AFTER_ROWS;
  private refreshing: Promise<void> | undefined;

  constructor(private readonly engine: SqlEngine) {}

  /** The engine it writes to: the embedded one runs on this process's thread. */
  get kind(): SqlEngine['kind'] {
    return this.engine.kind;
  }

  /** Whether its engine runs on the thread that reads the card service's answers. */
  get sharesThread(): boolean {
    return this.engine.sharesThread;
  }

  /**
   * Counts rows written; each time the count doubles (from `STATISTICS_AFTER_ROWS`) the
   * engine's statistics are refreshed, so a sub account's first sync (tens of thousands of
   * rows) is planned as the large table it became while it is still being read.
   */
  private async wrote(rows: number): Promise<void> {
    this.written += rows;
    if (this.written < this.statisticsAt || this.refreshing) return;
    this.statisticsAt = this.written * 2;
    this.refreshing = this.engine
      .background(() => this.engine.refreshStatistics(SYNC_WRITTEN_TABLES))
      .finally(() => {
        this.refreshing = undefined;
      });
    await this.refreshing;
  }

  /**
   * The rows of one sub account's UTC day (`YYYY-MM-DD`) become exactly `rows`: the day's
   * other rows go, each row is written (moved here if it was on another day), and the day is
   * marked walked at `syncedAt`. All in one transaction: a reader sees the day before or after.
   */
  replaceDay(
    subAccountId: string,
    day: string,
    rows: readonly Omit<IndexedTransaction, 'subAccountId'>[],
    syncedAt: number,
  ): Promise<void> {
    return this.replaceDays(subAccountId, [{ day, rows }], syncedAt);
  }

  /**
   * `replaceDay` for several days at once (a walked range's), in one transaction: the embedded
   * engine's cost is mostly per statement and per transaction, not per row. The pages kept of
   * `rangesDone` (ranges by their start, `saveRangePages`) go in the same transaction: a range's
   * days are in the index or its pages are kept, never neither.
   */
  async replaceDays(
    subAccountId: string,
    days: readonly { day: string; rows: readonly Omit<IndexedTransaction, 'subAccountId'>[] }[],
    syncedAt: number,
    options: { rangesDone?: readonly number[] } = {},
  ): Promise<void> {
    if (days.length === 0) return;
    const starts = days.map(({ day }) => {
      const start = Date.parse(`${day}T00:00:00.000Z`);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(start)) {
        throw new RangeError(`not a day: ${day}`);
      }
      return start;
    });
    // The last of two rows with one id wins, as the later page said.
    const byId = new Map(days.flatMap(({ rows }) => rows.map((row) => [row.id, row] as const)));
    const optional = (text: string | undefined) => (text === undefined ? null : storable(text));
    const records = [...byId.values()].map((t) => ({
      id: storable(t.id),
      at: new Date(t.at).toISOString(),
      description: storable(t.description),
      merchant: optional(t.merchant),
      // Trimmed, and none when blank: ' 5812' is 5812 (its group, its filter), '' no code.
      category_code: t.categoryCode?.trim() ? storable(t.categoryCode.trim()) : null,
      reference_number: storable(t.referenceNumber),
      amount_cents: t.amountCents,
      status: t.status,
      // Trimmed, and none when only spaces: as the Overview names a reason (a line it opens
      // asks for the name it shows), and a reason of spaces alone as "No reason given".
      decline_reason: t.declineReason?.trim() ? storable(t.declineReason.trim()) : null,
      // An empty card id is no card (`hasCard`, the money definition): kept as none, so every
      // `card_id IS NOT NULL` (the tallies' card rows and declines, the cards' lists) reads it so.
      card_id: hasCard(t) ? storable(t.cardId as string) : null,
      authorized_at: t.authorizedAt ? new Date(t.authorizedAt).toISOString() : null,
      original_currency: t.originalCurrency
        ? {
            ...t.originalCurrency,
            ...(t.originalCurrency.code === undefined
              ? {}
              : { code: storable(t.originalCurrency.code) }),
          }
        : null,
      search_text: searchTextOf(t),
    }));
    const sub = storable(subAccountId);
    const dayList = days.map(({ day }) => day);
    const counts = days.map(({ rows }) => new Set(rows.map((row) => row.id)).size);
    // A sync's write: people's calls come first (`background`).
    const written = await this.engine.background(() =>
      this.engine.transaction(async (tx) => {
        // What changed is written, what did not is left alone: a walk of days already in the index
        // (the open days, walked again every few minutes) brings mostly the rows it holds, and
        // deleting and inserting them again rewrote every index entry of every row, the word
        // index's included, and their tallies. The days whose rows changed are tallied again.
        const ids = records.map((r) => r.id);
        // The days' span bounds the scan (the index on sub account and time); the list picks the
        // days; the rows the walk brought stay.
        const deleted = await tx.query<DayRows>(
          `WITH gone AS (
           DELETE FROM index_transaction
            WHERE sub_account_id = $1 AND at >= $2::timestamptz AND at < $3::timestamptz
              AND (at AT TIME ZONE 'UTC')::date = ANY($4::date[])
              AND id <> ALL($5::text[])
            RETURNING at)
         ${daysOf('gone')}`,
          [
            sub,
            new Date(Math.min(...starts)).toISOString(),
            new Date(Math.max(...starts) + 86_400_000).toISOString(),
            dayList,
            ids,
          ],
        );
        // Days never walked (a first sync's) bring rows the index does not hold: they are
        // inserted first, and nothing else is looked up unless some were held after all. Looking
        // each row up for a day it might leave cost a sixth of a first sync's statements' time
        // (decision 0122). Days walked before (the open days' refresh) bring rows the index holds:
        // each is looked up once for that, then written if it changed.
        let upserted: DayRows[] = [];
        let movedFrom: DayRows[] = [];
        if (records.length > 0) {
          const [walked] = await tx.query<{ before: boolean }>(
            `SELECT EXISTS (SELECT 1 FROM index_sync_day
                             WHERE sub_account_id = $1 AND day = ANY($2::date[])) AS before`,
            [sub, dayList],
          );
          upserted = walked?.before ? [] : await writeRows(tx, sub, records, 'new');
          if (upserted.reduce((rows, day) => rows + day.n, 0) < records.length) {
            // A row that moves from the day it is on (walked now or not) leaves that day: tallied
            // too. Read before the rows it held are written.
            movedFrom = await tx.query<DayRows>(
              `SELECT DISTINCT ${utcDayText('t.at')} AS day, 0 AS n
                 FROM index_transaction t
                 JOIN unnest($2::text[], $3::timestamptz[]) AS r(id, at) ON t.id = r.id
                WHERE t.sub_account_id = $1
                  AND (t.at AT TIME ZONE 'UTC')::date <> (r.at AT TIME ZONE 'UTC')::date`,
              [sub, ids, records.map((r) => r.at)],
            );
            upserted = [...upserted, ...(await writeRows(tx, sub, records, 'changed'))];
          }
        }
        if (records.length > 0) {
          await applyMerchantRules(tx, sub, ids, syncedAt);
        }
        const changedDays = new Set([...deleted, ...upserted, ...movedFrom].map((r) => r.day));
        if (changedDays.size > 0) {
          await tx.query('SELECT index_tally_days($1, $2::date[])', [sub, [...changedDays]]);
        }
        await tx.query(
          `INSERT INTO index_sync_day (sub_account_id, day, synced_at, row_count)
         SELECT $1, d.day, $2::timestamptz, d.n FROM unnest($3::date[], $4::int[]) AS d(day, n)
         ON CONFLICT (sub_account_id, day)
         DO UPDATE SET synced_at = EXCLUDED.synced_at, row_count = EXCLUDED.row_count`,
          [sub, new Date(syncedAt).toISOString(), dayList, counts],
        );
        if (options.rangesDone && options.rangesDone.length > 0) {
          await dropRangePages(tx, sub, options.rangesDone);
        }
        return [...deleted, ...upserted].reduce((rows, day) => rows + day.n, 0);
      }),
    );
    await this.wrote(written);
  }

  /** Which of these (sub account, id) pairs the index holds. */
  async existing(items: readonly { subAccountId: string; id: string }[]): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const rows = await this.engine.query<{ id: string }>(
      `SELECT t.id FROM index_transaction t
         JOIN unnest($1::text[], $2::text[]) AS asked(sub_account_id, id)
           ON t.sub_account_id = asked.sub_account_id AND t.id = asked.id`,
      [items.map((i) => storable(i.subAccountId)), items.map((i) => storable(i.id))],
    );
    return new Set(rows.map((r) => r.id));
  }

  /**
   * One page of the filtered set, in `order`, after `cursor` (a `next` this store issued). An
   * amount order may take a `bound`: an amount no row of the page lies beyond (below it in
   * descending order, above it in ascending), as `countedPage` learns it.
   */
  async page(
    filter: IndexFilter,
    order: IndexOrder,
    limit: number,
    cursor?: string,
    bound?: string,
  ): Promise<IndexPage> {
    checkPageLimit(limit);
    const params: unknown[] = [];
    const conditions = [whereOf(filter, params, this.engine.kind)];
    const dir = order.direction === 'desc' ? 'DESC' : 'ASC';
    // Bounded (`countedPage`): the rows within the amount the page cannot pass, found through
    // the amount index beside the filter's own and sorted after, never by walking that index.
    const key = bound === undefined ? SORT_KEYS[order.sort] : SORT_EXPRESSIONS[order.sort];
    if (bound !== undefined) {
      if (order.sort !== 'amount') throw new RangeError('only an amount order takes a bound');
      params.push(bound);
      conditions.push(
        `${SORT_KEYS.amount} ${order.direction === 'desc' ? '>=' : '<='} $${params.length}::bigint`,
      );
    }
    if (cursor !== undefined) {
      conditions.push(afterPosition(cursor, order, params, [key, 'sub_account_id', 'id']));
    }
    params.push(limit + 1);
    // The page as one JSON value: the engine's driver then decodes one field, not 14 per row
    // (the embedded engine's per-field cost was most of an export's time).
    const [result] = await this.engine.query<{ rows: (Row & { sort_key: string })[] }>(
      `SELECT coalesce(json_agg(p ORDER BY p.k ${dir}, p.sub_account_id ${dir}, p.id ${dir}), '[]') AS rows
         FROM (SELECT ${COLUMNS}, ${key} AS k,
                      ${order.sort === 'amount' ? 'abs(amount_cents)::text' : 'NULL'} AS sort_key
                 FROM index_transaction
                WHERE ${conditions.join(' AND ')}
                ORDER BY k ${dir}, sub_account_id ${dir}, id ${dir}
                LIMIT $${params.length}) p`,
      params,
    );
    return this.pageOf(result?.rows ?? [], order, limit);
  }

  /** A page of `limit` rows from up to `limit` + 1 read in order; the next page's cursor. */
  private pageOf(
    rows: readonly (Row & { sort_key: string })[],
    order: IndexOrder,
    limit: number,
  ): IndexPage {
    const items = rows.slice(0, limit).map(fromRow);
    const page: IndexPage = { items };
    const last = rows[limit - 1];
    if (rows.length > limit && last) {
      page.next = encodePosition({
        order: `${order.sort}.${order.direction}`,
        key: order.sort === 'date' ? new Date(last.at).toISOString() : String(last.sort_key),
        subAccountId: last.sub_account_id,
        id: last.id,
      });
    }
    return page;
  }

  /**
   * Where the row `transactionId` stands in the filtered set in `order` (the review queue):
   * the set's size, how many of its rows come before it, whether it matches itself, and the
   * nearest matching rows before and after it. Its place is its sort key, so a row that no
   * longer matches (just reviewed, under "Unreviewed") still has neighbours: the rows that do.
   * Undefined when the index does not hold it. An id held under two sub accounts is read as
   * the first's (ids are the card service's and name one transaction).
   */
  async around(
    filter: IndexFilter,
    order: IndexOrder,
    transactionId: string,
  ): Promise<IndexNeighbours | undefined> {
    const q = await this.queueOf(filter, order, transactionId);
    if (!q) return undefined;
    const [answer] = await this.engine.query<{
      counted: [number | string, number | string, boolean];
      previous: [string, string] | null;
      next: [string, string] | null;
    }>(
      // The set read once: its size, the rows before the anchor, and whether it is one of them.
      `SELECT (SELECT json_build_array(count(*),
                        count(*) FILTER (WHERE ${q.row} ${q.before} ${q.place}),
                        coalesce(bool_or(sub_account_id = ${q.bind(q.anchor.sub_account_id)}::text
                                         AND id = ${q.bind(q.anchor.id)}::text), false))
                 FROM index_transaction WHERE ${q.where()}) AS counted,
              ${q.nearest('previous')} AS previous,
              ${q.nearest('next')} AS next`,
      q.params,
    );
    if (!answer) return undefined;
    const previous = neighbour(answer.previous);
    const next = neighbour(answer.next);
    const [n, ahead, here] = answer.counted;
    return {
      subAccountId: q.anchor.sub_account_id,
      count: Number(n),
      ...(here ? { position: Number(ahead) + 1 } : {}),
      ...(previous ? { previous } : {}),
      ...(next ? { next } : {}),
    };
  }

  /**
   * Only the nearest matching row after `transactionId` in the set's order (what Save and next
   * opens): one walk of the order from the row's place, no count. Undefined when the index does
   * not hold the row; `next` absent when nothing matching follows it.
   */
  async nextAfter(
    filter: IndexFilter,
    order: IndexOrder,
    transactionId: string,
  ): Promise<{ next?: { subAccountId: string; id: string } } | undefined> {
    const q = await this.queueOf(filter, order, transactionId);
    if (!q) return undefined;
    const [answer] = await this.engine.query<{ next: [string, string] | null }>(
      `SELECT ${q.nearest('next')} AS next`,
      q.params,
    );
    const next = neighbour(answer?.next ?? null);
    return next ? { next } : {};
  }

  /** The queries of a row's place in a filtered set (`around`, `nextAfter`), its key bound. */
  private async queueOf(filter: IndexFilter, order: IndexOrder, transactionId: string) {
    const [anchor] = await this.engine.query<{ k: string; sub_account_id: string; id: string }>(
      `SELECT ${order.sort === 'date' ? 'at::text' : 'abs(amount_cents)::text'} AS k,
              sub_account_id, id
         FROM index_transaction WHERE id = $1 ORDER BY sub_account_id LIMIT 1`,
      [storable(transactionId)],
    );
    if (!anchor) return undefined;
    const params: unknown[] = [];
    const bind = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const key = SORT_KEYS[order.sort];
    const cast = order.sort === 'date' ? 'timestamptz' : 'bigint';
    const place = `(${bind(anchor.k)}::${cast}, ${bind(anchor.sub_account_id)}::text, ${bind(anchor.id)}::text)`;
    const row = `(${key}, sub_account_id, id)`;
    // Before it in the list's order: larger keys when newest or largest come first.
    const [before, after] = order.direction === 'desc' ? ['>', '<'] : ['<', '>'];
    const [dir, back] = order.direction === 'desc' ? ['DESC', 'ASC'] : ['ASC', 'DESC'];
    const where = () => whereOf(filter, params, this.engine.kind);
    const nearest = (side: 'previous' | 'next') => {
      const [op, direction] = side === 'next' ? [after, dir] : [before, back];
      return `(SELECT json_build_array(sub_account_id, id) FROM index_transaction
         WHERE ${where()} AND ${row} ${op} ${place}
         ORDER BY ${key} ${direction}, sub_account_id ${direction}, id ${direction} LIMIT 1)`;
    };
    return { anchor, params, bind, where, row, before, place, nearest };
  }

  /** Every merchant text the index holds, and how many rows carry it: the descriptors. */
  async merchantTexts(): Promise<{ text: string; rows: number }[]> {
    const rows = await this.engine.query<{ merchant: string; n: number }>(
      `SELECT merchant, count(*)::int AS n FROM index_transaction
        WHERE merchant IS NOT NULL GROUP BY merchant`,
    );
    return rows.map((r) => ({ text: r.merchant, rows: Number(r.n) }));
  }

  /**
   * The accounting category the merchant of `transactionId` was last booked to, on another of
   * its transactions (the notes changed last), whatever the merchant text's case.
   */
  async merchantsLastCategory(transactionId: string): Promise<string | undefined> {
    const [row] = await this.engine.query<{ category_id: string }>(
      `SELECT n.category_id FROM index_transaction anchor
         JOIN index_transaction t ON lower(t.merchant) = lower(anchor.merchant) AND t.id <> anchor.id
         JOIN transaction_notes n ON n.transaction_id = t.id AND n.category_id IS NOT NULL
        WHERE anchor.id = $1 AND anchor.merchant IS NOT NULL
        ORDER BY n.updated_at DESC, n.transaction_id LIMIT 1`,
      [storable(transactionId)],
    );
    return row?.category_id;
  }

  /**
   * The rows of the filtered set, newest first, at most `max` of them: what a change of every
   * matching row changes (its caller counts the set first, and refuses one too large).
   */
  async matching(
    filter: IndexFilter,
    max: number,
  ): Promise<{ subAccountId: string; id: string }[]> {
    const params: unknown[] = [];
    const where = whereOf(filter, params, this.engine.kind);
    params.push(max);
    const rows = await this.engine.query<{ sub_account_id: string; id: string }>(
      `SELECT sub_account_id, id FROM index_transaction WHERE ${where}
        ORDER BY at DESC, sub_account_id DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({ subAccountId: r.sub_account_id, id: r.id }));
  }

  /**
   * Which of `ids` the filter still gives, read in `q` (a change's own transaction, after it has
   * locked their notes): a change of every matching row leaves the others as someone else made
   * them since the filter was read.
   */
  async stillMatching(
    q: SqlQueryable,
    filter: IndexFilter,
    ids: readonly string[],
  ): Promise<Set<string>> {
    const params: unknown[] = [];
    const where = whereOf(filter, params, this.engine.kind);
    params.push([...ids]);
    const rows = await q.query<{ id: string }>(
      `SELECT id FROM index_transaction WHERE ${where} AND id = ANY($${params.length}::text[])`,
      params,
    );
    return new Set(rows.map((r) => r.id));
  }

  /**
   * A narrowing filter's page (`pageAfterCount`) and how many rows match, up to `cap` + 1, in
   * one statement where the set holds at most `cap` rows: its matches (up to `cap` + 1) are
   * found once, counted and sorted, and the page's rows read by key. Asked apart, a capped
   * count and a page sorted after the match read the same matching rows twice (at 1,000,000
   * rows, a word with a status, amounts and dates: 200 ms each). A larger set's page walks the
   * order (`page`), as before, except in amount order: there the matches found are a sample of
   * the set, and the amount of the sample's row just past a page (after the cursor) bounds the
   * page, since the set's own first rows come no later in the order. Walking the amount index
   * to find a page reads every larger row the filter drops, and amounts and filters go together
   * (a city's shops are not its airline's): 70,000 rows for a word at 1,000,000 rows, 160 ms,
   * where the bounded page takes 20–50.
   */
  async countedPage(
    filter: IndexFilter,
    order: IndexOrder,
    limit: number,
    cursor?: string,
    cap: number = SORT_AFTER_MATCH_ROWS,
  ): Promise<{ count: number; page: IndexPage }> {
    checkPageLimit(limit);
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError('a count is capped at 1 or more');
    const params: unknown[] = [];
    const where = whereOf(filter, params, this.engine.kind);
    const dir = order.direction === 'desc' ? 'DESC' : 'ASC';
    const bounded = order.sort === 'amount';
    params.push(cap + 1);
    const capParam = params.length;
    const after =
      cursor === undefined
        ? 'TRUE'
        : afterPosition(cursor, order, params, ['m.k', 'm.sub_account_id', 'm.id']);
    params.push(limit + 1);
    const limitParam = params.length;
    const [result] = await this.engine.query<{
      n: number;
      rows: (Row & { sort_key: string })[] | null;
      bound: string | null;
    }>(
      `WITH matched AS MATERIALIZED (
         SELECT sub_account_id, id, ${SORT_EXPRESSIONS[order.sort]} AS k
           FROM index_transaction WHERE ${where} LIMIT $${capParam}),
       counted AS (SELECT count(*)::int AS n FROM matched),
       chosen AS (
         SELECT m.sub_account_id, m.id, m.k FROM matched m, counted
          WHERE ${bounded ? 'TRUE' : `counted.n < $${capParam}`} AND ${after}
          ORDER BY m.k ${dir}, m.sub_account_id ${dir}, m.id ${dir}
          LIMIT $${limitParam})
       SELECT counted.n,
              CASE WHEN counted.n < $${capParam} THEN
                (SELECT coalesce(json_agg(p ORDER BY p.k ${dir}, p.sub_account_id ${dir}, p.id ${dir}), '[]')
                   FROM (SELECT ${COLUMNS}, k,
                                ${order.sort === 'amount' ? 'abs(amount_cents)::text' : 'NULL'} AS sort_key
                           FROM chosen JOIN index_transaction USING (sub_account_id, id)) p)
              END AS rows,
              ${
                bounded
                  ? `(SELECT ${order.direction === 'desc' ? 'min' : 'max'}(k)::text FROM chosen
                       HAVING count(*) = $${limitParam})`
                  : 'NULL'
              } AS bound
         FROM counted`,
      params,
    );
    const count = result?.n ?? 0;
    if (count > cap) {
      const bound = result?.bound ?? undefined;
      if (bound !== undefined) {
        const page = await this.page(filter, order, limit, cursor, bound);
        // The sample held a page and one more row within the bound. Fewer now, rows left the
        // set between the two statements (a sync wrote their days): the order is walked, so
        // the list never ends early.
        if (page.next !== undefined) return { count, page };
      }
      return { count, page: await this.page(filter, order, limit, cursor) };
    }
    return { count, page: this.pageOf(result?.rows ?? [], order, limit) };
  }

  /**
   * The figures of the whole filtered set, bucket by bucket (docs/money.md). A set narrowed by
   * sub account and time alone (a list with no filter, a period, a sub account: what the list
   * opens on) is summed from the hour tallies `replaceDays` keeps (a year is 8,760 lines a sub
   * account, not its rows), the rows of the part-hours at either end read as rows; one
   * statement, so both are read as of one moment.
   */
  async summary(filter: IndexFilter): Promise<IndexSummary> {
    const params: unknown[] = [];
    const hours = talliedHours(filter);
    if (!hours) {
      const lines = await this.engine.query<BucketLine>(
        bucketLines(`FROM index_transaction WHERE ${whereOf(filter, params, this.engine.kind)}`),
        params,
      );
      return summaryOf(lines);
    }
    const subs = filter.subAccountIds ? { subAccountIds: filter.subAccountIds } : {};
    // The whole hours, by the tallies' `hour` (their sub account column is the rows' name).
    const hour = (op: string, ms: number) => {
      params.push(new Date(ms).toISOString());
      return `hour ${op} $${params.length}::timestamptz`;
    };
    const tallied = [
      whereOf(subs, params, this.engine.kind),
      ...(hours.from === undefined ? [] : [hour('>=', hours.from)]),
      ...(hours.to === undefined ? [] : [hour('<', hours.to)]),
    ].join(' AND ');
    // The part-hours at either end: [from, the first whole hour) and [the last one's end, to).
    const edges = [
      filter.from !== undefined && hours.from !== undefined && filter.from < hours.from
        ? { from: filter.from, to: hours.from }
        : undefined,
      filter.to !== undefined && hours.to !== undefined && hours.to < filter.to
        ? { from: hours.to, to: filter.to }
        : undefined,
    ].filter((edge) => edge !== undefined);
    const edgeRows = edges
      .map(
        (edge) => `UNION ALL
           ${bucketLines(`FROM index_transaction WHERE ${whereOf({ ...subs, ...edge }, params, this.engine.kind)}`)}`,
      )
      .join('\n');
    const lines = await this.engine.query<BucketLine>(
      `SELECT v.bucket, v.n::text AS n, v.cents::text AS cents,
              v.pending_n::text AS pending_n, v.pending_cents::text AS pending_cents
         FROM (SELECT ${moneyBuckets
           .flatMap((b) =>
             ['n', 'cents', 'pending_n', 'pending_cents'].map(
               (f) => `coalesce(sum(m_${b}_${f}), 0) AS ${b}_${f}`,
             ),
           )
           .join(', ')}
                 FROM index_hour_tally WHERE ${tallied}) AS h,
              LATERAL (VALUES ${moneyBuckets
                .map(
                  (b) => `('${b}', h.${b}_n, h.${b}_cents, h.${b}_pending_n, h.${b}_pending_cents)`,
                )
                .join(', ')}) AS v(bucket, n, cents, pending_n, pending_cents)
       ${edgeRows}`,
      params,
    );
    return summaryOf(lines);
  }

  /**
   * The posted total of the filtered set: how many rows an accounting file of the same filter
   * holds and what it nets to (signed cents). The summary's `posted`, read alone.
   */
  async postedTotal(filter: IndexFilter): Promise<{ count: number; cents: number }> {
    // A set the hour tallies hold (`summary`): its posted figure from them.
    if (talliedHours(filter)) return (await this.summary(filter)).posted;
    const params: unknown[] = [];
    const [row] = await this.engine.query<{ n: string; cents: string }>(
      `SELECT count(*)::text AS n, coalesce(sum(amount_cents), 0)::text AS cents
         FROM index_transaction WHERE ${whereOf(filter, params, this.engine.kind)} AND ${postedSql}`,
      params,
    );
    return { count: Number(row?.n ?? 0), cents: Number(row?.cents ?? 0) };
  }

  /** How many receipts the filtered set's transactions have, and their bytes, in one statement. */
  async receiptTotals(filter: IndexFilter): Promise<{ files: number; bytes: number }> {
    const params: unknown[] = [];
    // A subquery, not a join: the filter's conditions name the transaction's `id` unqualified.
    const [row] = await this.engine.query<{ files: number; bytes: string }>(
      `SELECT count(*)::int AS files, coalesce(sum(byte_size), 0)::text AS bytes
         FROM transaction_receipt
        WHERE transaction_id IN (SELECT id FROM index_transaction WHERE ${whereOf(filter, params, this.engine.kind)})`,
      params,
    );
    return { files: row?.files ?? 0, bytes: Number(row?.bytes ?? 0) };
  }

  /**
   * The filtered set's totals by `by`: the `limit` largest groups (by spend, as `IndexBreakdown`
   * says), and the rest summed as one, so the groups and `other` add up to `summary`.
   */
  async breakdown(
    filter: IndexFilter,
    by: IndexGrouping,
    limit: number,
    /**
     * By merchant only: merchant texts grouped under one key (`merchant-groups.ts`'s merchants
     * written several ways, or named by an admin); a text not in it is its own group.
     */
    merchantGroups?: ReadonlyMap<string, string>,
  ): Promise<IndexBreakdown> {
    return (await this.breakdownAndSummary(filter, by, limit, merchantGroups)).breakdown;
  }

  /**
   * The filtered set's `summary` and, with `by`, its `breakdown`, both from the breakdown's one
   * statement (its groups and the rest are the whole set, each row in one group): the rows are
   * read once, not once for each, and the summary and the groups are of one moment.
   */
  async totals(
    filter: IndexFilter,
    by?: { grouping: IndexGrouping; limit: number; merchantGroups?: ReadonlyMap<string, string> },
  ): Promise<{ summary: IndexSummary; breakdown?: IndexBreakdown }> {
    if (by === undefined) return { summary: await this.summary(filter) };
    return this.breakdownAndSummary(filter, by.grouping, by.limit, by.merchantGroups);
  }

  private async breakdownAndSummary(
    filter: IndexFilter,
    by: IndexGrouping,
    limit: number,
    merchantGroups?: ReadonlyMap<string, string>,
  ): Promise<{ summary: IndexSummary; breakdown: IndexBreakdown }> {
    const params: unknown[] = [];
    const where = whereOf(filter, params, this.engine.kind);
    const grouped = by === 'merchant' && merchantGroups !== undefined && merchantGroups.size > 0;
    let column: string;
    let from = 'index_transaction';
    if (by === 'owner' || by === 'team') {
      column = OWNERSHIP_GROUPINGS[by];
      from = WITH_OWNERSHIP;
    } else {
      column = INDEX_GROUPINGS[by];
    }
    if (grouped) {
      params.push([...merchantGroups.keys()].map(storable), [...merchantGroups.values()]);
      column = 'coalesce(mg.merchant_group, merchant)';
      from = `index_transaction LEFT JOIN unnest($${params.length - 1}::text[], $${params.length}::text[])
                AS mg(merchant_text, merchant_group) ON mg.merchant_text = index_transaction.merchant`;
    }
    params.push(limit);
    // Each group's bucket lines, its rank among the groups, and the shown groups' lines apart
    // from the rest's (`rank` null: the lines of the groups past `limit`, summed by bucket).
    const lines = await this.engine.query<
      BucketLine & { key: string | null; rank: number | null; groups: string }
    >(
      `WITH part AS (
         SELECT ${column} AS key, ${PART_LINES},
                abs(coalesce(sum(amount_cents), 0)) AS size
           FROM ${from} WHERE ${where} GROUP BY 1, 2, 3, 4),
       line AS (SELECT key, ${BUCKET_OF_PARTS}, sum(size) AS size FROM part GROUP BY 1, 2),
       -- A group's sums over its lines by window (PARTITION BY puts the rows without a value
       -- in one partition), so no join on a key that may be null.
       summed AS (
         SELECT *,
                sum(CASE WHEN bucket IN ('card', 'refund', 'payment') THEN -cents::bigint ELSE 0 END)
                  OVER (PARTITION BY key) AS spend,
                sum(CASE WHEN bucket = 'attempted' THEN size ELSE 0 END)
                  OVER (PARTITION BY key) AS declined,
                sum(n::bigint) OVER (PARTITION BY key) AS group_rows
           FROM line),
       ranked AS (
         SELECT *, dense_rank() OVER (ORDER BY spend DESC, declined DESC, group_rows DESC,
                                               key COLLATE "C" ASC NULLS LAST) AS rank
           FROM summed)
       SELECT CASE WHEN rank <= $${params.length} THEN key END AS key,
              CASE WHEN rank <= $${params.length} THEN rank END::int AS rank, bucket,
              sum(n::bigint)::text AS n, sum(cents::bigint)::text AS cents,
              sum(pending_n::bigint)::text AS pending_n,
              sum(pending_cents::bigint)::text AS pending_cents,
              (SELECT coalesce(max(rank), 0) FROM ranked)::text AS groups
         FROM ranked
        GROUP BY 1, 2, 3`,
      params,
    );
    const shown = new Map<number, { key: string | null; lines: BucketLine[] }>();
    const rest: BucketLine[] = [];
    for (const line of lines) {
      if (line.rank === null) {
        rest.push(line);
        continue;
      }
      const group = shown.get(line.rank) ?? { key: line.key, lines: [] };
      group.lines.push(line);
      shown.set(line.rank, group);
    }
    const groupCount = Number(lines[0]?.groups ?? 0);
    const breakdown: IndexBreakdown = {
      groups: [...shown]
        .sort(([a], [b]) => a - b)
        .map(([, group]) => ({ key: group.key, ...summaryOf(group.lines) })),
      groupCount,
    };
    if (rest.length > 0) {
      breakdown.other = { ...summaryOf(rest), groupCount: groupCount - shown.size };
    }
    return { summary: summaryOf(lines), breakdown };
  }

  /**
   * The Overview's tallies of `subAccountIds` over consecutive buckets (a person's calendar
   * days): `edges` are the buckets' first instants (Unix ms, ascending) and the last one's end;
   * a row at `t` is in bucket `k` when `edges[k] <= t < edges[k + 1]`. The totals per bucket;
   * the breakdowns (decline reasons, categories, merchants, cards) only over the buckets from
   * `breakdownFrom` on, each line reported in that bucket (the Overview breaks down the period,
   * not the one before it, nor day by day). One grouped query per tally; what counts as money
   * and how is the caller's (`features/overview/day-aggregate.ts`).
   */
  async overviewTallies(
    subAccountIds: readonly string[],
    edges: readonly number[],
    breakdownFrom = 0,
  ): Promise<OverviewTallies> {
    const first = edges[0];
    const end = edges.at(-1);
    const periodStart = edges[breakdownFrom];
    if (
      first === undefined ||
      end === undefined ||
      periodStart === undefined ||
      edges.length < 2 ||
      subAccountIds.length === 0
    ) {
      return {
        totals: [],
        money: [],
        declineReasons: [],
        categories: [],
        merchants: [],
        cards: [],
      };
    }
    const iso = (ms: number) => new Date(ms).toISOString();
    const subs = subAccountIds.map(storable);
    type Keyed = { sub_account_id: string; bucket: number };
    // Each bucket's four figures (`index_hour_tally`'s m_<bucket>_… columns, or from the rows).
    const figures = MONEY_COLUMNS.flatMap(({ n, cents, pendingN, pendingCents }) => [
      n,
      cents,
      pendingN,
      pendingCents,
    ]);
    type Totals = Keyed &
      Record<'n' | 'pending_n' | 'card_n' | 'declines', string> &
      Record<string, string>;
    const summed = figures.map((c) => `sum(${c})::text AS ${c}`).join(', ');
    const fromRows = moneyBuckets
      .map(
        (b) => `count(*) FILTER (WHERE money_bucket = '${b}')::text AS m_${b}_n,
                coalesce(sum(amount_cents) FILTER (WHERE money_bucket = '${b}'), 0)::text AS m_${b}_cents,
                count(*) FILTER (WHERE money_bucket = '${b}' AND ${pendingSql})::text AS m_${b}_pending_n,
                coalesce(sum(amount_cents) FILTER (WHERE money_bucket = '${b}' AND ${pendingSql}), 0)::text AS m_${b}_pending_cents`,
      )
      .join(', ');
    // Per day: from the hour tallies where every day begins on the hour (bucket k, from 0: how
    // many day starts are at or before the hour, less one), else from the rows.
    // The hour tallies' per-day sums (32 figures a line) are hashed in memory: 5 sub accounts
    // over 731 days hash in about 7 MB, past the server's default work_mem of 4 MB, where the
    // planner sorts the hour lines on disk instead (EXPLAIN ANALYZE at 3,000,000 rows: 166 ms
    // sorted on disk, 72–89 ms hashed). 32 MB a statement at most, 128 MB over the pool of 4.
    // For this statement alone (SET LOCAL), in a transaction of its own.
    const totals = edges.every((edge) => edge % HOUR_MS === 0)
      ? this.engine.transaction(async (tx) => {
          await tx.query(`SET LOCAL work_mem = '${TALLY_WORK_MEM}'`);
          return tx.query<Totals>(
            `SELECT sub_account_id,
                  width_bucket(hour, $4::timestamptz[]) - 1 AS bucket, sum(n)::text AS n,
                  sum(pending_n)::text AS pending_n, sum(card_n)::text AS card_n,
                  sum(declines)::text AS declines, ${summed}
             FROM index_hour_tally
            WHERE sub_account_id = ANY($1::text[]) AND hour >= $2::timestamptz AND hour < $3::timestamptz
            GROUP BY 1, 2`,
            [subs, iso(first), iso(end), edges.slice(0, -1).map(iso)],
          );
        })
      : this.engine.query<Totals>(
          `SELECT sub_account_id,
                  width_bucket(at, $4::timestamptz[]) - 1 AS bucket, count(*)::text AS n,
                  count(*) FILTER (WHERE status = 'pending')::text AS pending_n,
                  count(card_id)::text AS card_n,
                  count(*) FILTER (WHERE status = 'declined' AND card_id IS NOT NULL)::text AS declines,
                  ${fromRows}
             FROM (SELECT *, ${moneyBucketSql} AS money_bucket FROM index_transaction
                    WHERE sub_account_id = ANY($1::text[])
                      AND at >= $2::timestamptz AND at < $3::timestamptz) AS t
            GROUP BY 1, 2`,
          [subs, iso(first), iso(end), edges.slice(0, -1).map(iso)],
        );
    // The period's breakdowns: its whole UTC months from the month tallies, its other whole UTC
    // days from the day tallies, the partial days at either end (a person's day is rarely a UTC
    // day) from the rows. Without a whole UTC day in it, the period is read from the rows alone:
    // [start, end); without a whole month, from days and rows.
    let wholeFrom = Math.ceil(periodStart / DAY_MS) * DAY_MS;
    let wholeTo = Math.floor(end / DAY_MS) * DAY_MS;
    if (wholeFrom >= wholeTo) wholeFrom = wholeTo = end;
    let monthsFrom = monthStartAtOrAfter(wholeFrom);
    let monthsTo = monthStartAtOrBefore(wholeTo);
    if (monthsFrom >= monthsTo) monthsFrom = monthsTo = wholeTo;
    const day = (ms: number) => iso(ms).slice(0, 10);
    const breakdown = (
      kind: 'c' | 'm' | 'k' | 'd',
      column: string,
      where: string,
      amount: { cents: string; n: string },
    ) =>
      this.engine.query<Keyed & { key: string | null; cents: string; n: string }>(
        `SELECT sub_account_id, $4::int AS bucket, key,
                sum(cents)::text AS cents, sum(n)::text AS n
           FROM (SELECT sub_account_id, key COLLATE "C" AS key, cents, n
                   FROM index_month_key_tally
                  WHERE sub_account_id = ANY($1::text[]) AND kind = '${kind}'
                    AND month >= $9::date AND month < $10::date
                 UNION ALL
                 SELECT sub_account_id, key COLLATE "C" AS key, cents, n
                   FROM index_day_key_tally
                  WHERE sub_account_id = ANY($1::text[]) AND kind = '${kind}'
                    AND ((day >= $5::date AND day < $9::date) OR (day >= $10::date AND day < $6::date))
                 UNION ALL
                 SELECT sub_account_id, ${column} COLLATE "C", ${amount.cents}, ${amount.n}
                   FROM index_transaction
                  WHERE sub_account_id = ANY($1::text[]) AND ${where}
                    AND ((at >= $2::timestamptz AND at < $7::timestamptz)
                      OR (at >= $8::timestamptz AND at < $3::timestamptz))) AS lines
          ${kind === 'm' || kind === 'k' ? 'WHERE key IS NOT NULL' : ''}
          GROUP BY 1, 3
          HAVING sum(n) <> 0`,
        [
          subs,
          iso(periodStart),
          iso(end),
          breakdownFrom,
          day(wholeFrom),
          day(wholeTo),
          iso(wholeFrom),
          iso(wholeTo),
          day(monthsFrom),
          day(monthsTo),
        ],
      );
    const spent = { cents: '-amount_cents', n: '1' };
    const [totalLines, declineReasons, categories, merchants, cards] = await Promise.all([
      totals,
      breakdown('d', 'decline_reason', "status = 'declined' AND card_id IS NOT NULL", {
        cents: '0',
        n: '1',
      }),
      breakdown('c', 'category_code', cardSpendSql, spent),
      breakdown('m', 'merchant', cardSpendSql, spent),
      breakdown('k', 'card_id', cardSpendSql, spent),
    ]);
    // Each line's object built whole, not spread from a shared key object: on Node 20 (V8 11.3;
    // 22 and 24 have no such cliff) `{ ...key, … }` took 5–10 µs a line, 50–110 ms for the
    // 12,521 money lines of a year of five sub accounts, more than the five queries took; a
    // literal takes well under a microsecond.
    const sums = (rows: (Keyed & { key: string | null; cents: string; n: string })[]) =>
      rows.map((r) => ({
        subAccountId: r.sub_account_id,
        bucket: Number(r.bucket),
        key: r.key,
        cents: Number(r.cents),
        count: Number(r.n),
      }));
    const money: OverviewTallies['money'] = [];
    for (const r of totalLines) {
      for (const { kind, n, cents, pendingN, pendingCents } of MONEY_COLUMNS) {
        const count = Number(r[n]);
        if (count === 0) continue;
        money.push({
          subAccountId: r.sub_account_id,
          bucket: Number(r.bucket),
          kind,
          count,
          cents: Number(r[cents]),
          pendingCount: Number(r[pendingN]),
          pendingCents: Number(r[pendingCents]),
        });
      }
    }
    return {
      totals: totalLines.map((r) => ({
        subAccountId: r.sub_account_id,
        bucket: Number(r.bucket),
        count: Number(r.n),
        pendingCount: Number(r.pending_n),
        cardCount: Number(r.card_n),
        declines: Number(r.declines),
      })),
      money,
      declineReasons: declineReasons.map((r) => ({
        subAccountId: r.sub_account_id,
        bucket: Number(r.bucket),
        key: r.key,
        count: Number(r.n),
      })),
      categories: sums(categories),
      merchants: sums(merchants),
      cards: sums(cards),
    };
  }

  /** The cards with a row in a sub account (ids as stored). */
  async cardsOfSubAccount(subAccountId: string): Promise<Set<string>> {
    const rows = await this.engine.query<{ card_id: string }>(
      `SELECT DISTINCT card_id FROM index_transaction
        WHERE sub_account_id = $1 AND card_id IS NOT NULL`,
      [storable(subAccountId)],
    );
    return new Set(rows.map((r) => r.card_id));
  }

  /** The sub accounts a card has spent from (any row of its), in id order. */
  async subAccountsOfCard(cardId: string): Promise<string[]> {
    const rows = await this.engine.query<{ sub_account_id: string }>(
      `SELECT DISTINCT sub_account_id FROM index_transaction WHERE card_id = $1
        ORDER BY sub_account_id`,
      [storable(cardId)],
    );
    return rows.map((r) => r.sub_account_id);
  }

  /**
   * Every card that has a row (or those of `cardIds` that have), with the sub accounts its rows
   * are in (ids in byte order).
   */
  async cardSubAccounts(cardIds?: readonly string[]): Promise<Map<string, string[]>> {
    const rows = await this.engine.query<{ card_id: string; sub_account_id: string }>(
      `SELECT card_id, sub_account_id FROM index_transaction
        WHERE ${cardIds === undefined ? 'card_id IS NOT NULL' : 'card_id = ANY($1::text[])'}
        GROUP BY card_id, sub_account_id ORDER BY card_id, sub_account_id`,
      cardIds === undefined ? [] : [cardIds.map(storable)],
    );
    const out = new Map<string, string[]>();
    for (const row of rows) {
      const subs = out.get(row.card_id) ?? [];
      subs.push(row.sub_account_id);
      out.set(row.card_id, subs);
    }
    return out;
  }

  /**
   * The merchant categories each of `cardIds` has a row of, leaving out the rows `exceptIds`
   * (those a sync just wrote: what the card had before them, for the new-category alert).
   */
  async cardCategories(
    cardIds: readonly string[],
    exceptIds: readonly string[],
  ): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>();
    if (cardIds.length === 0) return out;
    const rows = await this.engine.query<{ card_id: string; category_code: string }>(
      `SELECT DISTINCT card_id, category_code FROM index_transaction
        WHERE card_id = ANY($1::text[]) AND category_code IS NOT NULL
          AND NOT (id = ANY($2::text[]))`,
      [cardIds.map(storable), exceptIds.map(storable)],
    );
    for (const row of rows) {
      const known = out.get(row.card_id) ?? new Set<string>();
      known.add(row.category_code);
      out.set(row.card_id, known);
    }
    return out;
  }

  /**
   * Keeps pages a running sync read of ranges it has not finished, each with the cursor that
   * continues its range, so a sync stopped mid-walk goes on from there (`openRanges`).
   */
  async saveRangePages(
    subAccountId: string,
    pages: readonly SyncRangePage[],
    writtenAt: number,
  ): Promise<void> {
    if (pages.length === 0) return;
    // Kept for a restart: people's calls come first (`background`), then the pages, ahead of the
    // sync's row writes: a page that waits behind them is lost to a kill (decision 0122).
    await this.engine.background(
      () =>
        this.engine.query(
          `INSERT INTO index_sync_range_page
         (sub_account_id, from_ms, to_ms, ask_to_ms, page, next_cursor, rows, written_at)
       SELECT $1, p.from_ms, p.to_ms, p.ask_to_ms, p.page, p.next_cursor, p.rows, $8::timestamptz
         FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::int[], $6::text[], $7::text[])
           AS p(from_ms, to_ms, ask_to_ms, page, next_cursor, rows)
       ON CONFLICT (sub_account_id, from_ms, page) DO NOTHING`,
          [
            storable(subAccountId),
            pages.map((p) => p.from),
            pages.map((p) => p.to),
            pages.map((p) => p.askTo),
            pages.map((p) => p.page),
            pages.map((p) => (p.next === undefined ? null : JSON.stringify(p.next))),
            pages.map((p) => JSON.stringify(p.rows)),
            new Date(writtenAt).toISOString(),
          ],
        ),
      { ahead: true },
    );
  }

  /**
   * The ranges of a sub account a sync read part of (or all of, not yet written), oldest
   * first: each one's rows so far, its pages, and the cursor its last kept page continues with.
   */
  async openRanges(subAccountId: string): Promise<OpenSyncRange[]> {
    const rows = await this.engine.query<{
      from_ms: string;
      to_ms: string;
      ask_to_ms: string;
      page: number;
      next_cursor: string | null;
      rows: string;
      written_at: Date;
    }>(
      `SELECT from_ms::text, to_ms::text, ask_to_ms::text, page, next_cursor, rows, written_at
         FROM index_sync_range_page WHERE sub_account_id = $1 ORDER BY from_ms, page`,
      [storable(subAccountId)],
    );
    const ranges = new Map<number, OpenSyncRange>();
    for (const r of rows) {
      const from = Number(r.from_ms);
      let range = ranges.get(from);
      if (!range) {
        range = {
          from,
          to: Number(r.to_ms),
          askTo: Number(r.ask_to_ms),
          pages: 0,
          rows: [],
          writtenAt: 0,
        };
        ranges.set(from, range);
      }
      // Pages are kept in order; a gap (a later page kept, an earlier one lost) ends the range's
      // use: what follows the gap cannot be continued from.
      if (r.page !== range.pages + 1) continue;
      range.pages = r.page;
      range.rows.push(...(JSON.parse(r.rows) as OpenSyncRange['rows']));
      if (r.next_cursor === null) delete range.next;
      else range.next = JSON.parse(r.next_cursor) as string;
      range.writtenAt = Math.max(range.writtenAt, new Date(r.written_at).getTime());
    }
    return [...ranges.values()];
  }

  /** Forgets the kept pages of these ranges (by their start) of a sub account. */
  async dropRanges(subAccountId: string, froms: readonly number[]): Promise<void> {
    if (froms.length > 0) await dropRangePages(this.engine, storable(subAccountId), froms);
  }

  /** The UTC days (`YYYY-MM-DD`) of a sub account that hold a pending row. */
  pendingDays(subAccountId: string): Promise<Set<string>> {
    return this.daysHolding(subAccountId, 'pending');
  }

  /** The UTC days (`YYYY-MM-DD`) of a sub account that hold a row of `status`. */
  async daysHolding(subAccountId: string, status: string): Promise<Set<string>> {
    const rows = await this.engine.query<{ day: string }>(
      `SELECT DISTINCT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day
         FROM index_transaction WHERE sub_account_id = $1 AND status = $2`,
      [storable(subAccountId), status],
    );
    return new Set(rows.map((r) => r.day));
  }

  /**
   * The status and UTC day of each of these rows of a sub account the index holds, by the id
   * asked (a row it does not hold is not a key).
   */
  async heldRows(
    subAccountId: string,
    ids: readonly string[],
  ): Promise<Map<string, { status: string; day: string }>> {
    const out = new Map<string, { status: string; day: string }>();
    if (ids.length === 0) return out;
    const rows = await this.engine.query<{ id: string; status: string; day: string }>(
      `SELECT id, status, ${utcDayText('at')} AS day FROM index_transaction
        WHERE sub_account_id = $1 AND id = ANY($2::text[])`,
      [storable(subAccountId), [...new Set(ids.map(storable))]],
    );
    const byStored = new Map(rows.map((r) => [r.id, { status: r.status, day: r.day }]));
    for (const id of ids) {
      const held = byStored.get(storable(id));
      if (held) out.set(id, held);
    }
    return out;
  }

  /** When each walked day of a sub account was last walked (`YYYY-MM-DD` → Unix ms). */
  async walkedDays(subAccountId: string): Promise<Map<string, number>> {
    return (await this.walkedDaysOf([subAccountId])).get(subAccountId) ?? new Map();
  }

  /** `walkedDays` of each sub account asked, in one statement (every id a key, maybe empty). */
  async walkedDaysOf(subAccountIds: readonly string[]): Promise<Map<string, Map<string, number>>> {
    const out = new Map(subAccountIds.map((id) => [id, new Map<string, number>()]));
    if (subAccountIds.length === 0) return out;
    // The ids as stored (NUL made U+FFFD) back to the ids asked.
    const asked = new Map<string, string[]>();
    for (const id of subAccountIds)
      asked.set(storable(id), [...(asked.get(storable(id)) ?? []), id]);
    const rows = await this.engine.query<{ sub_account_id: string; day: string; synced_at: Date }>(
      `SELECT sub_account_id, to_char(day, 'YYYY-MM-DD') AS day, synced_at
         FROM index_sync_day WHERE sub_account_id = ANY($1::text[]) ORDER BY sub_account_id, day`,
      [[...asked.keys()]],
    );
    for (const r of rows) {
      for (const id of asked.get(r.sub_account_id) ?? []) {
        out.get(id)?.set(r.day, new Date(r.synced_at).getTime());
      }
    }
    return out;
  }
}

function dropRangePages(tx: SqlQueryable, sub: string, froms: readonly number[]) {
  return tx.query(
    'DELETE FROM index_sync_range_page WHERE sub_account_id = $1 AND from_ms = ANY($2::bigint[])',
    [sub, [...froms]],
  );
}

/** SQL: the UTC day (`YYYY-MM-DD`) of the instant `column` holds. */
const utcDayText = (column: string) =>
  `to_char((${column} AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`;
/** SQL: the UTC days of the rows `source` (a statement's `RETURNING at`) names, each's rows. */
const daysOf = (source: string) =>
  `SELECT ${utcDayText('at')} AS day, count(*)::int AS n FROM ${source} GROUP BY 1`;
/** A statement's rows by UTC day (`daysOf`). */
interface DayRows {
  day: string;
  n: number;
}

/**
 * Writes `records` (each row's columns) into the sub account's rows: `new`, only those it does
 * not hold, inserted; `changed`, those too, and those it holds updated where they differ (a row
 * it holds as it is left untouched). The UTC days of the rows inserted or changed (their new
 * day), with how many.
 */
async function writeRows(
  tx: SqlQueryable,
  subAccountId: string,
  records: readonly Record<string, unknown>[],
  which: 'new' | 'changed',
): Promise<DayRows[]> {
  const onConflict =
    which === 'new'
      ? 'DO NOTHING'
      : `DO UPDATE SET
           at = EXCLUDED.at, description = EXCLUDED.description, merchant = EXCLUDED.merchant,
           category_code = EXCLUDED.category_code, reference_number = EXCLUDED.reference_number,
           amount_cents = EXCLUDED.amount_cents, status = EXCLUDED.status,
           decline_reason = EXCLUDED.decline_reason, card_id = EXCLUDED.card_id,
           authorized_at = EXCLUDED.authorized_at, original_currency = EXCLUDED.original_currency,
           search_text = EXCLUDED.search_text
         WHERE (t.at, t.description, t.merchant, t.category_code, t.reference_number,
                t.amount_cents, t.status, t.decline_reason, t.card_id, t.authorized_at,
                t.original_currency, t.search_text)
               IS DISTINCT FROM
               (EXCLUDED.at, EXCLUDED.description, EXCLUDED.merchant, EXCLUDED.category_code,
                EXCLUDED.reference_number, EXCLUDED.amount_cents, EXCLUDED.status,
                EXCLUDED.decline_reason, EXCLUDED.card_id, EXCLUDED.authorized_at,
                EXCLUDED.original_currency, EXCLUDED.search_text)`;
  const days: DayRows[] = [];
  // One statement a batch, the rows as one JSON parameter: no limit on bound parameters bites.
  // As `json`, read once as it is parsed: `jsonb` built each batch as a tree first, twice the
  // CPU (4.5 against 9 CPU s per 1,000,000 rows, decision 0122).
  for (let i = 0; i < records.length; i += 2000) {
    days.push(
      ...(await tx.query<DayRows>(
        `WITH written AS (
         INSERT INTO index_transaction AS t
           (sub_account_id, id, at, description, merchant, category_code, reference_number,
            amount_cents, status, decline_reason, card_id, authorized_at, original_currency,
            search_text)
         SELECT $1, r.id, r.at, r.description, r.merchant, r.category_code, r.reference_number,
                r.amount_cents, r.status, r.decline_reason, r.card_id, r.authorized_at,
                r.original_currency, r.search_text
           FROM json_to_recordset($2::json) AS r(
             id text, at timestamptz, description text, merchant text, category_code text,
             reference_number text, amount_cents bigint, status text, decline_reason text,
             card_id text, authorized_at timestamptz, original_currency jsonb, search_text text)
         ON CONFLICT (sub_account_id, id) ${onConflict}
         RETURNING t.at)
         ${daysOf('written')}`,
        [subAccountId, JSON.stringify(records.slice(i, i + 2000))],
      )),
    );
  }
  return days;
}
