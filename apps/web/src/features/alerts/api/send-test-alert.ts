import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { inboxQueryOptions } from './get-inbox';
import { unreadCountQueryOptions } from './get-unread-count';

export function sendTestAlert(id: string) {
  return api('alerts.testRule', { params: { id } });
}

/** Sends a test of a rule to the caller; the bell and the inbox show it at once. */
export function useSendTestAlert() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: sendTestAlert,
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: unreadCountQueryOptions().queryKey }),
        queryClient.invalidateQueries({ queryKey: inboxQueryOptions().queryKey }),
      ]),
  });
}
