// The Transactions screen's money words and figures, from the one definition of money
// (docs/money.md): what the summary and the totals-by table show, and what each includes.
import type { IndexTotals } from '@card-console/shared/api/transaction-index';
import {
  type MoneyBucket,
  moneyWords,
  netCardSpendCents,
  netCardSpendPendingCents,
  netCardSpendWords,
  postedWords,
} from '@card-console/shared/money-definition';

/** Card spend, net: card charges less refunds, settled, pending and disputed (positive). */
export const cardSpendOf = (t: IndexTotals): number => netCardSpendCents(t.buckets);

/** The pending part of card spend (positive). */
export const cardSpendPendingOf = (t: IndexTotals): number => netCardSpendPendingCents(t.buckets);

/** The buckets of rows that moved no money, in the order they are told. */
export const unmovedBuckets = [
  'attempted',
  'released',
  'returned',
] as const satisfies MoneyBucket[];

/** "Card spend: settled…" → "Settled…": the definition's sentence without its name. */
const withoutName = (words: string) => {
  const rest = words.slice(words.indexOf(': ') + 2);
  return rest.charAt(0).toUpperCase() + rest.slice(1);
};

/** Each figure's name and what it includes, in the definition's words. */
export const figureWords = {
  cardSpend: { label: 'Card spend', includes: withoutName(netCardSpendWords) },
  refund: moneyWords.refund,
  payment: moneyWords.payment,
  transfer: moneyWords.transfer,
  attempted: moneyWords.attempted,
  released: moneyWords.released,
  returned: moneyWords.returned,
  posted: { label: 'Posted', includes: withoutName(postedWords) },
} as const;
