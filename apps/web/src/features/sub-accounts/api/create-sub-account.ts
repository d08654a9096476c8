import type {
  SubAccountCreateBody,
  SubAccountCreated,
} from '@card-console/shared/api/sub-accounts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import { subAccountsQueryOptions } from './get-sub-accounts';

export function createSubAccount(body: SubAccountCreateBody) {
  return apiJson<SubAccountCreated>('/api/sub-accounts', { method: 'POST', body });
}

export function useCreateSubAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createSubAccount,
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: subAccountsQueryOptions().queryKey }),
  });
}
