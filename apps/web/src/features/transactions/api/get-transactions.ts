import type { TransactionPage } from '@card-console/shared/api/transactions';
import { infiniteQueryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import { STALE_MS } from '../../../lib/query-client';
import type { TransactionFilter } from '../transactions-search';

export type TransactionListParams = TransactionFilter & { cursor?: string | undefined };

export function fetchTransactions(params: TransactionListParams, signal?: AbortSignal) {
  return apiJson<TransactionPage>('/api/transactions', { query: { ...params }, signal });
}

/**
 * The list from its first page, which "Load more" extends a page at a time. A list that has
 * grown never goes stale by itself: refetching would walk every loaded page again, so only an
 * unextended list refreshes.
 */
export function transactionsQueryOptions(filter: TransactionFilter) {
  const key = {
    subAccountId: filter.subAccountId,
    from: filter.from,
    to: filter.to,
    status: filter.status,
    cardId: filter.cardId,
  };
  return infiniteQueryOptions({
    queryKey: ['transactions', 'list', key] as const,
    queryFn: ({ pageParam, signal }) => fetchTransactions({ ...key, cursor: pageParam }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: TransactionPage) => last.nextCursor,
    staleTime: (query) => ((query.state.data?.pages.length ?? 0) > 1 ? Infinity : STALE_MS),
  });
}
