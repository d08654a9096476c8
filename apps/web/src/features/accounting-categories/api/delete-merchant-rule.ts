import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { merchantRulesQueryOptions } from './get-merchant-rules';

export async function deleteMerchantRule(id: string) {
  await apiRequest(`/api/merchant-rules/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** Removes a rule; the notes it made stay. */
export function useDeleteMerchantRule() {
  const queryClient = useQueryClient();
  const { queryKey } = merchantRulesQueryOptions();
  return useMutation({
    mutationFn: deleteMerchantRule,
    onSettled: () => queryClient.invalidateQueries({ queryKey }),
  });
}
