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
