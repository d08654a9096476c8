import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { inboxChanged } from './inbox-changed';

export interface AttachTarget {
  subAccountId: string;
  transactionId: string;
}

export function attachItem(itemId: string, target: AttachTarget) {
  return api('inbox.attach', {
    params: { id: itemId },
    body: { subAccountId: target.subAccountId, transactionId: target.transactionId },
  });
}

/** Makes an inbox item a receipt of this transaction (a suggestion confirmed, or one picked). */
export function useAttachItem(itemId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (target: AttachTarget) => attachItem(itemId, target),
    onSettled: (_answer, _error, target) => inboxChanged(queryClient, target.transactionId),
  });
}
