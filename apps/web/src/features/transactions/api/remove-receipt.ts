import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { annotationQueryOptions } from './get-annotation';
import { receiptsChanged } from './receipts-changed';
import { annotationNow } from './update-annotation';

export async function removeReceipt(transactionId: string, receiptId: string) {
  await api('receipts.remove', { params: { id: transactionId, receiptId } });
}

/**
 * Removes a receipt. Refused once the transaction is reviewed (409 `transaction_reviewed`,
 * carrying the notes as they are now, which then show it reviewed).
 */
export function useRemoveReceipt(transactionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (receiptId: string) => removeReceipt(transactionId, receiptId),
    onSuccess: () => receiptsChanged(queryClient, transactionId),
    onError: (error) => {
      const current = annotationNow(error);
      if (current)
        queryClient.setQueryData(annotationQueryOptions(transactionId).queryKey, current);
    },
  });
}
