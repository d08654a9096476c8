import type { MarkRead, UnreadCount } from '@card-console/shared/api/alerts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { inboxQueryOptions } from './get-inbox';
import { unreadCountQueryOptions } from './get-unread-count';

export function markRead(body: MarkRead) {
  return api('alerts.markRead', { body });
}

/** Marks these alerts (or all) read; the bell takes the count the answer carries. */
export function useMarkRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: markRead,
    onSuccess: (result) => {
      queryClient.setQueryData<UnreadCount>(unreadCountQueryOptions().queryKey, {
        unread: result.unread,
      });
      return queryClient.invalidateQueries({ queryKey: inboxQueryOptions().queryKey });
    },
  });
}
