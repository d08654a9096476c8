import { dayRangeToBounds, isIsoDay } from '@card-console/shared/dates';
import { type TransactionStatus, transactionStatuses } from '@card-console/shared/upstream/enums';
import { oneOf, pageCount, resourceId, text } from '../../lib/search-params';

/** The transactions list's URL state: days, not instants, so a link means the same days. */
export interface TransactionsSearch {
  subAccountId?: string | undefined;
  /** First day, YYYY-MM-DD, in the person's time zone. */
  from?: string | undefined;
  /** Last day (inclusive), YYYY-MM-DD. */
  to?: string | undefined;
  status?: TransactionStatus | undefined;
  cardId?: string | undefined;
  /** Pages shown, from the first ("Load more" adds one); none for one. */
  pages?: number | undefined;
}

const day = (value: unknown) => {
  const d = text(value, 10);
  return d && isIsoDay(d) ? d : undefined;
};

/** A bad value falls back to no filter instead of failing: a mangled link still opens. */
export function validateTransactionsSearch(search: Record<string, unknown>): TransactionsSearch {
  let from = day(search.from);
  let to = day(search.to);
  // Days in the wrong order select nothing the person meant: drop both.
  if (from && to && from > to) from = to = undefined;
  return {
    subAccountId: resourceId(search.subAccountId),
    from,
    to,
    status: oneOf(transactionStatuses, search.status),
    cardId: resourceId(search.cardId),
    pages: pageCount(search.pages),
  };
}

export interface TransactionFilter {
  subAccountId: string;
  from?: number | undefined;
  to?: number | undefined;
  status?: TransactionsSearch['status'];
  cardId?: string | undefined;
}

/**
 * The chosen calendar days, in the person's zone, as inclusive Unix-ms bounds. The zone is
 * asked for only when a day is chosen: the browser's first time-zone lookup can take a few
 * hundred ms, which would otherwise hold up the first page's request.
 */
export function toTransactionFilter(
  search: Pick<TransactionsSearch, 'from' | 'to' | 'status' | 'cardId'> & { subAccountId: string },
  timeZone: () => string,
): TransactionFilter {
  const bounds =
    search.from || search.to ? dayRangeToBounds(search.from, search.to, timeZone()) : {};
  return {
    subAccountId: search.subAccountId,
    from: bounds.from,
    to: bounds.to,
    status: search.status,
    cardId: search.cardId,
  };
}
