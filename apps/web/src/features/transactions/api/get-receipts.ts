import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function fetchReceipts(transactionId: string, signal?: AbortSignal) {
  return api('receipts.list', { params: { id: transactionId }, signal });
}

/** A transaction's receipts: name, type, size, who attached each and when. */
export function receiptsQueryOptions(transactionId: string) {
  return queryOptions({
    queryKey: ['transactions', 'receipts', transactionId] as const,
    queryFn: ({ signal }) => fetchReceipts(transactionId, signal),
  });
}
