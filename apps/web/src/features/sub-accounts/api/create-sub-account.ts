import type { SubAccountCreateBody } from '@card-console/shared/api/sub-accounts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { subAccountsQueryOptions } from './get-sub-accounts';

export function createSubAccount(body: SubAccountCreateBody) {
  return api('subAccounts.create', { body });
}

export function useCreateSubAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createSubAccount,
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: subAccountsQueryOptions().queryKey }),
  });
}
