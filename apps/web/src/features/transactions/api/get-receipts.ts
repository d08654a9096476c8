import type { Receipt } from '@card-console/shared/api/annotations';
import { queryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

export function fetchReceipts(transactionId: string, signal?: AbortSignal) {
  return apiJson<{ items: Receipt[] }>(
    `/api/transactions/${encodeURIComponent(transactionId)}/receipts`,
    { signal },
  );
}

/** A transaction's receipts: name, type, size, who attached each and when. */
export function receiptsQueryOptions(transactionId: string) {
  return queryOptions({
    queryKey: ['transactions', 'receipts', transactionId] as const,
    queryFn: ({ signal }) => fetchReceipts(transactionId, signal),
  });
}
