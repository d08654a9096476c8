import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { notesQueryOptions } from './get-notes';
import { receiptsChanged } from './receipts-changed';
import { notesNow } from './update-notes';

/**
 * Attaches a file as a receipt: the body is the file's own bytes (the BFF decides the type from
 * them), its name percent-encoded in `X-File-Name` since a header is Latin-1.
 */
export function uploadReceipt(transactionId: string, file: File) {
  return api('receipts.upload', {
    params: { id: transactionId },
    body: file,
    headers: { 'X-File-Name': encodeURIComponent(file.name) },
  });
}

/**
 * One upload. Refused once the transaction is reviewed (409 `transaction_reviewed`, carrying
 * the notes as they are now, which then show it reviewed and lock the receipts).
 */
export function useUploadReceipt(transactionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => uploadReceipt(transactionId, file),
    onSuccess: () => receiptsChanged(queryClient, transactionId),
    onError: (error) => {
      const current = notesNow(error);
      if (current) queryClient.setQueryData(notesQueryOptions(transactionId).queryKey, current);
    },
  });
}
