import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { notesQueryOptions } from './get-notes';
import { receiptsChanged } from './receipts-changed';
import { notesNow } from './update-notes';

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
      const current = notesNow(error);
      if (current) queryClient.setQueryData(notesQueryOptions(transactionId).queryKey, current);
    },
  });
}
