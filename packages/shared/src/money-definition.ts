// What a transaction means for money: the one definition every figure, total, count and file
// of the product derives from (docs/money.md says it in a controller's words). Keyed by the
// row's status, the sign of its amount and whether it has a card, and nothing else: the
// contract gives one row per payment, whose status is its latest state (a refund is a row of
// its own; a reversed, returned or disputed payment is the same row with a new status).
//
// Free of any zod import: the SPA's first download uses it (the words under each figure).

import { type TransactionStatus, transactionStatuses } from './upstream/enums';

/**
 * Where a row's money stands:
 * - `posted`: moved (settled, refund, dispute: a disputed charge stays debited until the
 *   service resolves it); in the books.
 * - `pending`: authorised, not settled: the amount may still change or be released. Counts
 *   as spend (the limit and the service's spend count it), never in the books.
 * - `released`: approved, then released before it settled (reversed): never moved.
 * - `attempted`: declined, canceled or failed: never moved.
 * - `returned`: a payment that went out and bounced back, on its own row: nets to nothing.
 */
export type MoneyState = 'posted' | 'pending' | 'released' | 'attempted' | 'returned';

export const moneyStateOf: Readonly<Record<TransactionStatus, MoneyState>> = {
  settled: 'posted',
  refund: 'posted',
  dispute: 'posted',
  pending: 'pending',
  reversed: 'released',
  declined: 'attempted',
  canceled: 'attempted',
  failed: 'attempted',
  returned: 'returned',
};

/** The statuses of rows in any of these states, in the contract's order: a list's status filter. */
export const statusesOf = (states: readonly MoneyState[]): TransactionStatus[] =>
  transactionStatuses.filter((status) => states.includes(moneyStateOf[status]));

/**
 * Which line of the figures a row that moved (or will) falls on, by card and sign:
 * - `card`: a card charge (a debit with a card): card spend.
 * - `refund`: money back on a card (a credit with a card: a refund, a merchant's credit).
 * - `payment`: a debit without a card (an ACH payment to a supplier): spend, not card spend.
 * - `transfer`: a credit without a card (funding, a transfer in): never spend.
 */
export type MoneyLine = 'card' | 'refund' | 'payment' | 'transfer';

/** The fields the definition reads: a status, an amount (negative: a debit), a card or not. */
export interface MoneyRow {
  status: TransactionStatus;
  amountCents: number;
  cardId?: string | null | undefined;
}

export const hasCard = (row: Pick<MoneyRow, 'cardId'>): boolean =>
  row.cardId !== undefined && row.cardId !== null && row.cardId !== '';

export function moneyLineOf(row: MoneyRow): MoneyLine {
  const debit = row.amountCents < 0;
  if (hasCard(row)) return debit ? 'card' : 'refund';
  return debit ? 'payment' : 'transfer';
}

/**
 * The summary's buckets, one per row, each row in exactly one (so they add up to the rows):
 * the four lines for money that moved or will (pending included, shown apart inside its line),
 * then what never moved, each counted apart.
 */
export type MoneyBucket = MoneyLine | 'released' | 'attempted' | 'returned';

export const moneyBuckets: readonly MoneyBucket[] = [
  'card',
  'refund',
  'payment',
  'transfer',
  'released',
  'attempted',
  'returned',
];

export function moneyBucketOf(row: MoneyRow): MoneyBucket {
  const state = moneyStateOf[row.status];
  return state === 'posted' || state === 'pending' ? moneyLineOf(row) : state;
}

/** Whether a row belongs in an accounting file: posted rows only. */
export const postsToBooks = (row: Pick<MoneyRow, 'status'>): boolean =>
  moneyStateOf[row.status] === 'posted';

/** Whether a row is part of card spend (charges less refunds, settled and pending). */
export function isCardSpend(row: MoneyRow): boolean {
  const bucket = moneyBucketOf(row);
  return bucket === 'card' || bucket === 'refund';
}

/** Whether a row moved no money and never will (what "to review" and the books leave out). */
export const movedNoMoney = (row: Pick<MoneyRow, 'status'>): boolean => {
  const state = moneyStateOf[row.status];
  return state === 'released' || state === 'attempted' || state === 'returned';
};

/** The words the product uses for each bucket, and what each includes (shown under figures). */
export const moneyWords: Readonly<Record<MoneyBucket, { label: string; includes: string }>> = {
  card: {
    label: 'Card spend',
    includes: 'Settled, pending and disputed card charges.',
  },
  refund: {
    label: 'Refunds',
    includes: 'Money back on a card (refunds and merchant credits), settled or pending.',
  },
  payment: {
    label: 'Other payments',
    includes: 'Payments without a card, such as ACH to a supplier: spend, not card spend.',
  },
  transfer: {
    label: 'Transfers in',
    includes: 'Funding and transfers into the account: never spend.',
  },
  released: {
    label: 'Released',
    includes: 'Approved, then released before settling (reversed): no money moved.',
  },
  attempted: {
    label: 'Declined (attempted)',
    includes: 'Declined, canceled and failed: no money moved.',
  },
  returned: {
    label: 'Returned',
    includes: 'Payments that went out and came back: nets to nothing.',
  },
};

/** What "card spend" means as a net figure, in the words shown beside it. */
export const netCardSpendWords =
  'Card spend: settled, pending and disputed card charges, less refunds. Declined, canceled, failed and reversed charges are not in it.';

/** What an accounting file holds, in the words shown beside its download. */
export const postedWords =
  'Posted: settled, refunded and disputed rows, the money that moved. Pending, declined, canceled, failed, reversed and returned rows are left out.';

// The same definition as SQL over the index's columns (status, amount_cents, card_id), for
// both engines (PostgreSQL and PGlite speak the same SQL). Written from the tables above, so
// the two never disagree; the statuses are the contract's fixed list, never input.

const statusesIn = (states: readonly MoneyState[]): string =>
  (Object.keys(moneyStateOf) as TransactionStatus[])
    .filter((status) => states.includes(moneyStateOf[status]))
    .map((status) => `'${status}'`)
    .join(', ');

/** SQL: the row is posted (in the books). */
export const postedSql = `status IN (${statusesIn(['posted'])})`;
/** SQL: the row moved money or will (posted or pending). */
export const movesSql = `status IN (${statusesIn(['posted', 'pending'])})`;
/** SQL: the row is pending. */
export const pendingSql = `status IN (${statusesIn(['pending'])})`;
/** SQL: the row's card state (has a card). */
const cardSql = `(card_id IS NOT NULL AND card_id <> '')`;

/** SQL: the bucket, given whether the row has a card and whether it is a debit (SQL booleans). */
const bucketSql = (card: string, debit: string): string => `CASE
  WHEN status IN (${statusesIn(['released'])}) THEN 'released'
  WHEN status IN (${statusesIn(['attempted'])}) THEN 'attempted'
  WHEN status IN (${statusesIn(['returned'])}) THEN 'returned'
  WHEN ${card} AND ${debit} THEN 'card'
  WHEN ${card} THEN 'refund'
  WHEN ${debit} THEN 'payment'
  ELSE 'transfer' END`;

/** SQL: the row's bucket, as `moneyBucketOf` gives it. */
export const moneyBucketSql = bucketSql(cardSql, 'amount_cents < 0');

/**
 * SQL: what decides a row's bucket, as three columns (`status`; `carded`, it has a card;
 * `debit`, its amount is negative), for a query that groups rows by them and then names each
 * line's bucket (`moneyBucketOfPartsSql`). A planner estimates those groups from the columns'
 * statistics (a few dozen); it cannot estimate the groups of the CASE expression itself, and
 * took them for a tenth of the rows: it sorted a million rows on disk to group them in 7.
 */
export const moneyPartsSql = `status, ${cardSql} AS carded, amount_cents < 0 AS debit`;

/** SQL: the bucket of a line of `moneyPartsSql`'s columns, as `moneyBucketOf` gives it. */
export const moneyBucketOfPartsSql = bucketSql('carded', 'debit');

/** SQL: the row is part of card spend (card charges and refunds, posted or pending). */
export const cardSpendSql = `(${movesSql} AND ${cardSql})`;

/**
 * A bucket's figures, as every summary returns them: how many rows, their amounts' sum
 * (signed: negative for debits), and the pending part of both.
 */
export interface MoneyFigure {
  count: number;
  cents: number;
  pendingCount: number;
  pendingCents: number;
}

export type MoneySummary = Record<MoneyBucket, MoneyFigure>;

export const emptyFigure = (): MoneyFigure => ({
  count: 0,
  cents: 0,
  pendingCount: 0,
  pendingCents: 0,
});

/** The figures of a set of rows, in JavaScript (the SPA's, tests', a page's). */
export function summarize(rows: Iterable<MoneyRow>): MoneySummary {
  const summary = Object.fromEntries(moneyBuckets.map((b) => [b, emptyFigure()])) as MoneySummary;
  for (const row of rows) {
    const figure = summary[moneyBucketOf(row)];
    figure.count++;
    figure.cents += row.amountCents;
    if (moneyStateOf[row.status] === 'pending') {
      figure.pendingCount++;
      figure.pendingCents += row.amountCents;
    }
  }
  return summary;
}

/** Net card spend in positive cents: charges less refunds (settled, pending, disputed). */
export const netCardSpendCents = (s: MoneySummary): number => 0 - (s.card.cents + s.refund.cents);

/** The pending part of net card spend, in positive cents: the charges and refunds not yet settled. */
export const netCardSpendPendingCents = (s: MoneySummary): number =>
  0 - (s.card.pendingCents + s.refund.pendingCents);

/** How many rows make up card spend (its charges and refunds): "$X in N transactions". */
export const cardSpendCount = (s: MoneySummary): number => s.card.count + s.refund.count;

/** How many rows of a summary are posted: the rows an accounting file of the same rows holds. */
export function postedCount(s: MoneySummary): number {
  let count = 0;
  for (const line of ['card', 'refund', 'payment', 'transfer'] as const) {
    count += s[line].count - s[line].pendingCount;
  }
  return count;
}

/** The posted total (signed) of a summary: what an accounting file of the same rows nets to. */
export function postedCents(s: MoneySummary): number {
  let cents = 0;
  for (const line of ['card', 'refund', 'payment', 'transfer'] as const) {
    cents += s[line].cents - s[line].pendingCents;
  }
  return cents;
}
