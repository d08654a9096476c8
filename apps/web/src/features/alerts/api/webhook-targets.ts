import type {
  WebhookTargetCreated,
  WebhookTargetInput,
  WebhookTargetList,
  WebhookTargetView,
} from '@card-console/shared/api/alerts';
import { ALERTS_API } from '@card-console/shared/api/alerts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiJson, apiRequest } from '../../../lib/api-client';

/** The webhook targets (admins only): never their secrets. */
export function webhookTargetsQueryOptions() {
  return queryOptions({
    queryKey: ['alerts', 'webhooks'] as const,
    queryFn: ({ signal }) => apiJson<WebhookTargetList>(ALERTS_API.webhooks, { signal }),
    select: (list): WebhookTargetView[] => list.items,
  });
}

/** Adds a target; the answer holds its signing secret, shown this once. */
export function useCreateWebhookTarget() {
  const queryClient = useQueryClient();
  const { queryKey } = webhookTargetsQueryOptions();
  return useMutation({
    mutationFn: (body: WebhookTargetInput) =>
      apiJson<WebhookTargetCreated>(ALERTS_API.webhooks, { method: 'POST', body }),
    onSettled: () => queryClient.invalidateQueries({ queryKey }),
  });
}

/** Removes a target no rule sends to. */
export function useDeleteWebhookTarget() {
  const queryClient = useQueryClient();
  const { queryKey } = webhookTargetsQueryOptions();
  return useMutation({
    mutationFn: async (id: string) => {
      await apiRequest(ALERTS_API.webhook(id), { method: 'DELETE' });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey }),
  });
}
