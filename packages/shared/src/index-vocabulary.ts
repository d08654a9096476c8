// The transaction index's plain vocabulary, free of zod so the SPA's bundle can import it: the
// groupings a list can total by, what counts as spend, and how many cards one money read names.

import { statusesOf } from './money-definition';
import type { TransactionStatus } from './upstream/enums';

/** What the transactions list can total by (`?by=`). */
export const indexGroupings = [
  'card',
  'merchant',
  'category',
  'declineReason',
  'subAccount',
  'status',
] as const;
export type IndexGroupingName = (typeof indexGroupings)[number];

/**
 * The statuses of money that moved or is about to (posted or pending, docs/money.md): what a
 * list of spend filters by. From the one definition, never a list of its own.
 */
export const SPEND_STATUSES: readonly TransactionStatus[] = statusesOf(['posted', 'pending']);

/** The most cards one GET /api/index/card-money asks about (a page of the cards list). */
export const CARD_MONEY_MAX = 100;

/**
 * The most rows an importer takes in one file, as it documents (the BFF's accounting-files.ts): QuickBooks
 * Online's bank upload about 1,000 lines (350 KB), Xero's statement 1,000 lines. A longer
 * export comes as parts of this many rows. Journal entries have no documented limit.
 */
export const ACCOUNTING_ROWS_PER_FILE: Readonly<Partial<Record<string, number>>> = {
  quickbooks: 999,
  xero: 1_000,
};
