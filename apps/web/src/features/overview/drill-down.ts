import { addDays } from '@card-console/shared/dates';
import { statusesOf } from '@card-console/shared/money-definition';
import type { TransactionStatus } from '@card-console/shared/upstream/enums';
import type { TransactionsSearch } from '../transactions';

/** What a chart's bar or row opens on the Transactions screen: the Overview's own scope. */
export interface DrillScope {
  /** The sub account shown; none: every sub account, as the Overview. */
  subAccountId: string | undefined;
  from: string;
  to: string;
}

/**
 * The statuses whose money moved or will (posted or pending, docs/money.md): a spend row opens
 * exactly these, so the list's card spend is the amount clicked (the list shows what is not
 * card spend, such as a payment without a card, apart).
 */
export const SPEND_STATUSES: TransactionStatus[] = statusesOf(['posted', 'pending']);

/** A decline the card service gave no reason for, as the Overview names it. */
export const NO_REASON = 'No reason given';

/** The period's transactions, narrowed by `extra`. */
export function drillSearch(
  scope: DrillScope,
  extra: Omit<TransactionsSearch, 'subAccountId' | 'from' | 'to'> = {},
): TransactionsSearch {
  return { subAccountId: scope.subAccountId, from: scope.from, to: scope.to, ...extra };
}

/** The period's spend (the Overview's statuses), narrowed by `extra`. */
export function spendSearch(
  scope: DrillScope,
  extra: Pick<
    TransactionsSearch,
    'cardId' | 'merchant' | 'merchantName' | 'categoryGroup' | 'category'
  > = {},
): TransactionsSearch {
  return drillSearch(scope, { status: SPEND_STATUSES, ...extra });
}

/**
 * The period's card declines for one reason, or those the service gave none for: the rows the
 * Overview counted in that line (a card's declines only, as its title says), so the list's count
 * is the line's.
 */
export function declineSearch(scope: DrillScope, reason: string): TransactionsSearch {
  return drillSearch(scope, {
    status: ['declined'],
    card: 'with',
    ...(reason === NO_REASON ? { noDeclineReason: '1' } : { declineReason: [reason] }),
  });
}

/** One bucket of the spend series: its day, or its week (Monday on) kept within the period. */
export function bucketSearch(
  scope: DrillScope,
  day: string,
  granularity: 'day' | 'week',
): TransactionsSearch {
  if (granularity === 'day') return spendSearch({ ...scope, from: day, to: day });
  // A week's bucket is named by its Monday, which may be before the period starts.
  const [from] = [day, scope.from].sort().slice(-1);
  const [to] = [addDays(day, 6), scope.to].sort();
  return spendSearch({ ...scope, from: from as string, to: to as string });
}
