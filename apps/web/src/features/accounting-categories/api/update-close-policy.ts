import type { ClosePolicyUpdate } from '@card-console/shared/api/close-policy';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { apiProblem } from '../../../lib/api-error';
import { indexListsKey } from '../../transactions/api/get-index-transactions';
import { closePolicyQueryOptions } from './get-close-policy';

export function updateClosePolicy(body: ClosePolicyUpdate) {
  return api('closePolicy.update', { body });
}

/**
 * Sets the close policy, on the `version` the form was made on; the policy is kept as answered,
 * and the month close's counts (which the policy decides) are asked for again. Refused because
 * another admin changed it first (409 `close_policy_changed`), the policy is kept as it is now:
 * the form that sent the change keeps what its person typed until they reload it.
 */
export function useUpdateClosePolicy() {
  const queryClient = useQueryClient();
  const { queryKey } = closePolicyQueryOptions();
  return useMutation({
    mutationFn: updateClosePolicy,
    onSuccess: async (saved) => {
      queryClient.setQueryData(queryKey, saved);
      await queryClient.invalidateQueries({ queryKey: [...indexListsKey, 'attention'] });
    },
    onError: async (error) => {
      const current = apiProblem(error, 'close_policy_changed')?.current;
      if (!current) return;
      queryClient.setQueryData(queryKey, current);
      await queryClient.invalidateQueries({ queryKey: [...indexListsKey, 'attention'] });
    },
  });
}
