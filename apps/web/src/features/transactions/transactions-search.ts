import { dayRangeToBounds, isIsoDay } from '@card-console/shared/dates';
import { type TransactionStatus, transactionStatuses } from '@card-console/shared/upstream/enums';
import { type CursorStack, parseCursorStack } from '../../lib/cursor-stack';
import { ID_PATTERN, oneOf, text } from '../../lib/search-params';

/** The transactions list's URL state: days, not instants, so a link means the same days. */
export interface TransactionsSearch {
  subAccountId?: string | undefined;
  /** First day, YYYY-MM-DD, in the person's time zone. */
  from?: string | undefined;
  /** Last day (inclusive), YYYY-MM-DD. */
  to?: string | undefined;
  status?: TransactionStatus | undefined;
  cardId?: string | undefined;
  cursors?: CursorStack;
}

const day = (value: unknown) => {
  const d = text(value, 10);
  return d && isIsoDay(d) ? d : undefined;
};

export function validateTransactionsSearch(search: Record<string, unknown>): TransactionsSearch {
  return {
    subAccountId: text(search.subAccountId, 64, ID_PATTERN),
    from: day(search.from),
    to: day(search.to),
    status: oneOf(transactionStatuses, search.status),
    cardId: text(search.cardId, 64, ID_PATTERN),
    cursors: parseCursorStack(search.cursors),
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
