import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { alertRulesQueryOptions } from './get-alert-rules';

export async function deleteAlertRule({ id, version }: { id: string; version: number }) {
  await api('alerts.deleteRule', { params: { id }, query: { version: String(version) } });
}

/** Deletes a rule as it was at `version`; the alerts it raised stay in the inboxes. */
export function useDeleteAlertRule() {
  const queryClient = useQueryClient();
  const { queryKey } = alertRulesQueryOptions();
  return useMutation({
    mutationFn: deleteAlertRule,
    onSettled: () => queryClient.invalidateQueries({ queryKey }),
  });
}
