import type { WebhookTargetInput, WebhookTargetView } from '@card-console/shared/api/alerts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** The webhook targets (admins only): never their secrets. */
export function webhookTargetsQueryOptions() {
  return queryOptions({
    queryKey: ['alerts', 'webhooks'] as const,
    queryFn: ({ signal }) => api('alerts.webhooks', { signal }),
    select: (list): WebhookTargetView[] => list.items,
  });
}

/** Adds a target; the answer holds its signing secret, shown this once. */
export function useCreateWebhookTarget() {
  const queryClient = useQueryClient();
  const { queryKey } = webhookTargetsQueryOptions();
  return useMutation({
    mutationFn: (body: WebhookTargetInput) => api('alerts.createWebhook', { body }),
    onSettled: () => queryClient.invalidateQueries({ queryKey }),
  });
}

/** Removes a target no rule sends to. */
export function useDeleteWebhookTarget() {
  const queryClient = useQueryClient();
  const { queryKey } = webhookTargetsQueryOptions();
  return useMutation({
    mutationFn: async (id: string) => {
      await api('alerts.deleteWebhook', { params: { id } });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey }),
  });
}
