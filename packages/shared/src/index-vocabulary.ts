// The transaction index's plain vocabulary, free of zod so the SPA's bundle can import it: the
// groupings a list can total by, what counts as spend, how many cards one money read names, and
// the cards list's orders and search that the index's money joins.

import { statusesOf } from './money-definition';
import { cardSortFields, type TransactionStatus } from './upstream/enums';

/** What the transactions list can total by (`?by=`). */
export const indexGroupings = [
  'card',
  'merchant',
  'category',
  'declineReason',
  'subAccount',
  'status',
  /** The card's owner and team (Card Console's, `api/card-owners.ts`); cards without: none. */
  'owner',
  'team',
] as const;
export type IndexGroupingName = (typeof indexGroupings)[number];

/**
 * The statuses of money that moved or is about to (posted or pending, docs/money.md): what a
 * list of spend filters by. From the one definition, never a list of its own.
 */
export const SPEND_STATUSES: readonly TransactionStatus[] = statusesOf(['posted', 'pending']);

/** The most owners or teams one filter names (`api/card-owners.ts`). */
export const OWNER_FILTER_MAX = 20;
/** The longest owner's or team's name: a card's name's length. */
export const OWNERSHIP_NAME_MAX = 100;
/** How an owner's or a team's name is matched: trimmed, spaces folded, in lower case. */
export const ownershipKeyOf = (name: string): string =>
  name.trim().replace(/\s+/gu, ' ').toLowerCase();

/** The most cards one GET /api/index/card-money asks about (a page of the cards list). */
export const CARD_MONEY_MAX = 100;

/**
 * What the cards list sorts by: the card service's own orders, and two from the index: each
 * card's spend in the current window of its utilisation limit (what its row's bar shows), and
 * that spend as a share of the limit.
 */
export const cardListSorts = [...cardSortFields, 'spend', 'utilization'] as const;
export type CardListSort = (typeof cardListSorts)[number];

/** The longest search of the cards list: a card's name is at most 100 characters. */
export const CARD_SEARCH_MAX = 100;

/**
 * The most rows an importer takes in one file, as it documents (the BFF's accounting-files.ts): QuickBooks
 * Online's bank upload about 1,000 lines (350 KB), Xero's statement 1,000 lines. A longer
 * export comes as parts of this many rows. Journal entries have no documented limit.
 */
export const ACCOUNTING_ROWS_PER_FILE: Readonly<Partial<Record<string, number>>> = {
  quickbooks: 999,
  xero: 1_000,
};
