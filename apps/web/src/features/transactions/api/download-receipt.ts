import { queryOptions } from '@tanstack/react-query';
import { apiFile } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/save-blob';

export async function fetchReceiptFile(
  transactionId: string,
  receiptId: string,
  signal?: AbortSignal,
): Promise<Blob> {
  const response = await apiFile('receipts.download', {
    params: { id: transactionId, receiptId },
    signal,
  });
  return response.blob();
}

/**
 * A receipt's bytes, for its preview. Fetched rather than linked: an `<img src>` cannot carry
 * the `X-CSRF` header. A receipt never changes (a new file is a new receipt), so it stays fresh.
 */
export function receiptFileQueryOptions(transactionId: string, receiptId: string) {
  return queryOptions({
    queryKey: ['transactions', 'receipt-file', transactionId, receiptId] as const,
    queryFn: ({ signal }) => fetchReceiptFile(transactionId, receiptId, signal),
    staleTime: Infinity,
    gcTime: 60_000,
  });
}

/** Saves a receipt under its name: fetched with the header the BFF requires, then a Blob link. */
export async function downloadReceipt(transactionId: string, receiptId: string, fileName: string) {
  const blob = await fetchReceiptFile(transactionId, receiptId);
  saveBlob(blob, fileName);
}
