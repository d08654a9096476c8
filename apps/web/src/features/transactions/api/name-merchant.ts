import type {
  MerchantNameChange,
  MerchantNameReset,
} from '@card-console/shared/api/transaction-index';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/**
 * An admin's name for a merchant, and taking it off: every list, total and Overview groups by
 * it, so every transaction query is read again (the detail's merchant among them).
 */
export function useNameMerchant() {
  const queryClient = useQueryClient();
  const settled = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['transactions'] }),
      queryClient.invalidateQueries({ queryKey: ['overview'] }),
    ]);
  const name = useMutation({
    mutationFn: (body: MerchantNameChange) => api('index.nameMerchant', { body }),
    onSettled: settled,
  });
  const unname = useMutation({
    mutationFn: (query: MerchantNameReset) => api('index.unnameMerchant', { query }),
    onSettled: settled,
  });
  return { name, unname };
}
