import type { TransactionPage } from '@card-console/shared/api/transactions';
import { queryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { TransactionFilter } from '../transactions-search';

export type TransactionListParams = TransactionFilter & { cursor?: string | undefined };

export function fetchTransactions(params: TransactionListParams, signal?: AbortSignal) {
  return apiJson<TransactionPage>('/api/transactions', { query: { ...params }, signal });
}

export function transactionsQueryOptions(params: TransactionListParams) {
  const key = {
    subAccountId: params.subAccountId,
    from: params.from,
    to: params.to,
    status: params.status,
    cardId: params.cardId,
    cursor: params.cursor,
  };
  return queryOptions({
    queryKey: ['transactions', 'list', key] as const,
    queryFn: ({ signal }) => fetchTransactions(key, signal),
  });
}
