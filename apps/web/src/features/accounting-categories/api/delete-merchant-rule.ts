import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { merchantRulesQueryOptions } from './get-merchant-rules';

export async function deleteMerchantRule(id: string) {
  await api('merchantRules.remove', { params: { id } });
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
