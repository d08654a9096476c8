import type { ClosePolicyUpdate } from '@card-console/shared/api/close-policy';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { indexListsKey } from '../../transactions/api/get-index-transactions';
import { closePolicyQueryOptions } from './get-close-policy';

export function updateClosePolicy(body: ClosePolicyUpdate) {
  return api('closePolicy.update', { body });
}

/**
 * Sets the close policy; the policy is kept as answered, and the month close's counts (which
 * the policy decides) are asked for again.
 */
export function useUpdateClosePolicy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateClosePolicy,
    onSuccess: async (saved) => {
      queryClient.setQueryData(closePolicyQueryOptions().queryKey, saved);
      await queryClient.invalidateQueries({ queryKey: [...indexListsKey, 'attention'] });
    },
  });
}
