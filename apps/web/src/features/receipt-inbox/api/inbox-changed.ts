import type { QueryClient } from '@tanstack/react-query';
import { indexListsKey } from '../../transactions/api/get-index-transactions';
import { receiptsQueryOptions } from '../../transactions/api/get-receipts';
import { inboxListKey } from './get-inbox';

/**
 * After an upload, an attach or a discard: the inbox, and every index list with its figures and
 * attention counts ("Missing receipt" falls once a receipt is attached; they all live under the
 * index's key); after an attach, that transaction's receipts too.
 */
export function inboxChanged(queryClient: QueryClient, attachedTo?: string) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: inboxListKey }),
    queryClient.invalidateQueries({ queryKey: indexListsKey }),
    attachedTo === undefined
      ? undefined
      : queryClient.invalidateQueries({ queryKey: receiptsQueryOptions(attachedTo).queryKey }),
  ]);
}
