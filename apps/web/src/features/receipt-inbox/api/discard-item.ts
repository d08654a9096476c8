import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { inboxChanged } from './inbox-changed';

export async function discardItem(itemId: string) {
  await api('inbox.discard', { params: { id: itemId } });
}

/** Deletes an item from the inbox (never one already attached: that is a transaction's now). */
export function useDiscardItem(itemId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => discardItem(itemId),
    onSettled: () => inboxChanged(queryClient),
  });
}
