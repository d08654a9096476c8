// The transaction index's plain vocabulary, free of zod so the SPA's bundle can import it: the
// groupings a list can total by, what counts as spend, and how many cards one money read names.

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

/** What the Overview and a card's limit count as spend: money moved or about to move. */
export const SPEND_STATUSES = ['pending', 'settled', 'refund', 'dispute'] as const;

/** The most cards one GET /api/index/card-money asks about (a page of the cards list). */
export const CARD_MONEY_MAX = 100;
