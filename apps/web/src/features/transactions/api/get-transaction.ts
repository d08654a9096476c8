import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function fetchTransaction(transactionId: string, signal?: AbortSignal) {
  return api('transactions.get', { params: { id: transactionId }, signal });
}

export function transactionQueryOptions(transactionId: string) {
  return queryOptions({
    queryKey: ['transactions', 'detail', transactionId] as const,
    queryFn: ({ signal }) => fetchTransaction(transactionId, signal),
  });
}
