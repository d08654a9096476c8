import type { QueryClient } from '@tanstack/react-query';
import { indexListsKey } from './get-index-transactions';
import { notesQueryOptions } from './get-notes';
import { receiptsQueryOptions } from './get-receipts';

/**
 * After a receipt is added or removed: its list, the notes (a receipt leaves them and their
 * version as they are, but someone may have reviewed them meanwhile, which locks the receipts)
 * and every index list and the month close's counts (they filter and count by receipts; the
 * attention counts live under the index's key).
 */
export function receiptsChanged(queryClient: QueryClient, transactionId: string) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: receiptsQueryOptions(transactionId).queryKey }),
    queryClient.invalidateQueries({ queryKey: notesQueryOptions(transactionId).queryKey }),
    queryClient.invalidateQueries({ queryKey: indexListsKey }),
  ]);
}
