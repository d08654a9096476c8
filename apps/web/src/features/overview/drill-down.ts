import type { TransactionsSearch } from '../transactions';
import { addDays } from './overview-search';

/** What a chart's bar or row opens on the Transactions screen, which needs one sub account. */
export interface DrillScope {
  /** The sub account shown, or the first one when the Overview is over all of them. */
  subAccountId: string | undefined;
  /** The Overview is over every sub account: a link can show only one of them. */
  allSubAccounts: boolean;
  from: string;
  to: string;
}

/** The period's transactions, narrowed by `extra`. */
export function drillSearch(
  scope: DrillScope,
  extra: Pick<TransactionsSearch, 'status' | 'cardId'> = {},
): TransactionsSearch {
  return { subAccountId: scope.subAccountId, from: scope.from, to: scope.to, ...extra };
}

/** One bucket of the spend series: its day, or its week (Monday on) kept within the period. */
export function bucketSearch(
  scope: DrillScope,
  day: string,
  granularity: 'day' | 'week',
): TransactionsSearch {
  if (granularity === 'day') return { subAccountId: scope.subAccountId, from: day, to: day };
  // A week's bucket is named by its Monday, which may be before the period starts.
  const [from] = [day, scope.from].sort().slice(-1);
  const [to] = [addDays(day, 6), scope.to].sort();
  return { subAccountId: scope.subAccountId, from, to };
}

/** A link's tooltip when it cannot say everything the row does. */
export function scopeNote(scope: DrillScope, unfiltered?: string): string | undefined {
  const notes = [
    unfiltered
      ? `Transactions can't be filtered by ${unfiltered}: this opens all of the period's transactions.`
      : '',
    scope.allSubAccounts ? 'Transactions shows one sub account at a time: the first one.' : '',
  ].filter(Boolean);
  return notes.length ? notes.join(' ') : undefined;
}
