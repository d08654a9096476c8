import type { Transaction } from '@card-console/shared/api/transactions';
import { queryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

export function fetchTransaction(transactionId: string, signal?: AbortSignal) {
  return apiJson<Transaction>(`/api/transactions/${encodeURIComponent(transactionId)}`, {
    signal,
  });
}

export function transactionQueryOptions(transactionId: string) {
  return queryOptions({
    queryKey: ['transactions', 'detail', transactionId] as const,
    queryFn: ({ signal }) => fetchTransaction(transactionId, signal),
  });
}
